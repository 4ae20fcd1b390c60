//! What the machine is doing to a two-thread run: the round trip of a cache line between two
//! cores, which tells whether the cores a run gets share a last-level cache. `cargo xtask
//! bench` prints it before and after its rows; bench/README.md says how to read it and what
//! it was on the team's VM.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Round trips per batch; the probe reports the fastest of [`BATCHES`] batches' means, so that
/// a batch in which a thread lost its core does not count.
const TRIPS: u64 = 2000;
const BATCHES: usize = 5;

#[repr(align(128))]
struct Line(AtomicU64);

/// The time for a value written by one thread to be seen and answered by another, spinning on
/// one cache line: `None` with fewer than two hardware threads (two spinners on one core would
/// measure the scheduler).
pub fn core_round_trip() -> Option<Duration> {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return None;
    }
    let line = Line(AtomicU64::new(0));
    let total = TRIPS * BATCHES as u64;
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..total {
                while line.0.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                line.0.store(2 * i + 2, Ordering::Release);
            }
        });
        let mut best = Duration::MAX;
        for b in 0..BATCHES as u64 {
            let start = Instant::now();
            for i in b * TRIPS..(b + 1) * TRIPS {
                line.0.store(2 * i + 1, Ordering::Release);
                while line.0.load(Ordering::Acquire) != 2 * i + 2 {
                    std::hint::spin_loop();
                }
            }
            best = best.min(start.elapsed() / TRIPS as u32);
        }
        Some(best)
    })
}

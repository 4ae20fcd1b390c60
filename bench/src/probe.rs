//! What the machine is doing to a two-thread run: the round trip of a cache line between two
//! cores, which tells whether the cores a run gets share a last-level cache.
//!
//! On the team's 2-core VM (AMD EPYC, Zen 5, L3 per CCD) the hypervisor places the two vCPUs
//! on one CCD at some times and on two at others, for minutes at a time: the round trip reads
//! 75–135 ns on one and 370–425 ns on two, and every two-thread figure moves with it
//! (SqueezeNet 1.50–1.64 ms on one, 2.40–2.55 ms on two; onnxruntime 1.60–1.62 and 2.0 ms; one
//! thread 2.9–3.0 ms either way). `cargo xtask bench` prints it before and after its rows.

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

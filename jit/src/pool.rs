//! The thread pool that kernels' parallel work runs on: rayon's global pool unless a caller
//! (an `Engine` with its own pool) has set one for the current thread with [`enter`].
//!
//! Setting the pool costs a thread-local write, so a call that does no parallel work never
//! leaves the caller's thread; a parallel loop started outside the pool ([`run`]) moves into
//! it. That crossing (queue the job, wake a sleeping worker, put the caller to sleep until the
//! loop is done, wake it) costs about 14 µs on a 2-core VM, more than many kernels of a model
//! take; so a call that starts parallel loops runs whole inside the pool ([`call`]), crossing
//! once, and while it runs the pool's other workers wait for its loops' work spinning instead
//! of asleep, as onnxruntime's pool does.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use rayon::ThreadPool;

thread_local! {
    static CURRENT: RefCell<Option<Arc<ThreadPool>>> = const { RefCell::new(None) };
    /// Whether this thread runs a [`call`] or spins for one: a spinner that found itself
    /// there would wait for a call that cannot finish before it does.
    static BUSY: Cell<bool> = const { Cell::new(false) };
    /// Set by a spinner job that found its worker already busy and returned at once, so that
    /// the worker that ran it does not count it as shared work.
    static IDLE_JOB: Cell<bool> = const { Cell::new(false) };
}

/// Restores the previous pool of the thread when dropped.
pub struct PoolGuard {
    previous: Option<Arc<ThreadPool>>,
}

impl Drop for PoolGuard {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// Makes `pool` (or the global pool, for `None`) the pool of parallel work started on this
/// thread until the guard drops.
pub fn enter(pool: Option<Arc<ThreadPool>>) -> PoolGuard {
    let previous = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), pool));
    PoolGuard { previous }
}

/// Runs `f`, which starts parallel work, in the current thread's pool: inside the pool set by
/// [`enter`] if there is one and this thread is not already one of its workers, else here
/// (rayon's global pool, or the pool this worker belongs to).
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let pool = CURRENT.with(|c| c.borrow().clone());
    match pool {
        Some(p) if p.current_thread_index().is_none() => p.install(f),
        _ => f(),
    }
}

/// How long a worker spinning for a call's parallel work waits without finding any before it
/// gives up its core and leaves waking to rayon (a futex, as outside a call). It bounds what a
/// call that is mostly serial burns on the other cores, and the stall in the rare case where a
/// spinner was picked up, nested, by a worker waiting inside a loop of the same call.
const SPIN_IDLE: Duration = Duration::from_micros(200);

/// Runs `f`, one call of a VM function that starts parallel loops, on a worker of `pool`
/// (rayon's global pool for `None`), so that its loops start inside the pool and the crossing
/// into it is paid once per call, not once per loop. Until `f` returns, the pool's other
/// workers look for its loops' work spinning (up to [`SPIN_IDLE`] without finding any) rather
/// than falling asleep between loops. On a pool of one thread, on a thread that already runs
/// in a pool or in a call, `f` runs here.
pub fn call<R: Send>(pool: Option<&ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    call_sharing(pool, f).0
}

/// [`call`], also telling whether another worker ran part of `f`'s work (a spinning worker
/// executed a job), i.e. whether crossing into the pool bought anything.
pub fn call_sharing<R: Send>(pool: Option<&ThreadPool>, f: impl FnOnce() -> R + Send) -> (R, bool) {
    let (threads, inside) = match pool {
        Some(p) => (p.current_num_threads(), p.current_thread_index().is_some()),
        None => (
            rayon::current_num_threads(),
            rayon::current_thread_index().is_some(),
        ),
    };
    if threads <= 1 || inside || BUSY.get() {
        return (f(), false);
    }
    let done = AtomicBool::new(false);
    let shared = AtomicBool::new(false);
    let out = match pool {
        Some(p) => p.scope(|s| spin_around(s, threads, &done, &shared, f)),
        None => rayon::scope(|s| spin_around(s, threads, &done, &shared, f)),
    };
    (out, shared.load(Ordering::Acquire))
}

/// Inside a scope of the pool: starts `threads - 1` spinners, then runs `f` here.
/// Calls of one module through [`call`] only while crossing into the pool pays: a module
/// whose calls start no parallel work another worker takes (a batch-1 layer too small to
/// split) runs on the caller's thread after [`CallPolicy::IDLE_CALLS`] such calls in a row,
/// sparing the crossing (two thread wake-ups, ~10 µs on a VM); every
/// [`CallPolicy::PROBE_EVERY`]-th call crosses again, so a module whose shapes change back to
/// parallel sizes returns to the pool.
#[derive(Debug, Default)]
pub struct CallPolicy {
    calls: AtomicU32,
    idle: AtomicU32,
}

impl CallPolicy {
    /// Calls in a row without shared work after which calls stay on the caller's thread.
    pub const IDLE_CALLS: u32 = 3;
    /// One call in this many crosses into the pool to look again.
    pub const PROBE_EVERY: u32 = 64;

    /// Runs `f` as [`call`] does, or on this thread when the last calls shared no work.
    pub fn run<R: Send>(&self, pool: Option<&ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        if self.idle.load(Ordering::Relaxed) >= Self::IDLE_CALLS
            && !n.is_multiple_of(Self::PROBE_EVERY)
        {
            return f();
        }
        let (out, shared) = call_sharing(pool, f);
        if shared {
            self.idle.store(0, Ordering::Relaxed);
        } else {
            let _ = self
                .idle
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |i| i.checked_add(1));
        }
        out
    }

    /// Whether calls currently run on the caller's thread.
    pub fn stays_here(&self) -> bool {
        self.idle.load(Ordering::Relaxed) >= Self::IDLE_CALLS
    }
}

fn spin_around<'s, R>(
    s: &rayon::Scope<'s>,
    threads: usize,
    done: &'s AtomicBool,
    shared: &'s AtomicBool,
    f: impl FnOnce() -> R,
) -> R {
    for _ in 1..threads {
        s.spawn(move |_| spin(done, shared));
    }
    let _busy = Busy::enter();
    let _done = SetOnDrop(done);
    f()
}

/// Marks the thread [`BUSY`] until dropped, restoring what it was.
struct Busy(bool);

impl Busy {
    fn enter() -> Busy {
        Busy(BUSY.replace(true))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        BUSY.set(self.0);
    }
}

/// Sets its flag when dropped, so that a call that panics still releases its spinners.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Runs the pool's pending work until `done`, or until [`SPIN_IDLE`] passes without any.
fn spin(done: &AtomicBool, shared: &AtomicBool) {
    if BUSY.get() {
        IDLE_JOB.set(true);
        return;
    }
    let _busy = Busy::enter();
    let mut idle_since: Option<Instant> = None;
    let mut rounds = 0u32;
    while !done.load(Ordering::Acquire) {
        IDLE_JOB.set(false);
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            if !IDLE_JOB.get() {
                shared.store(true, Ordering::Release);
            }
            idle_since = None;
            rounds = 0;
            continue;
        }
        rounds += 1;
        if rounds < 64 {
            std::hint::spin_loop();
            continue;
        }
        // Past a short spin, give the core to whatever else wants it, and check the clock.
        std::thread::yield_now();
        let since = *idle_since.get_or_insert_with(Instant::now);
        if since.elapsed() > SPIN_IDLE {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_work_runs_in_the_entered_pool_and_the_guard_restores() {
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap(),
        );
        assert_eq!(
            run(rayon::current_num_threads),
            rayon::current_num_threads()
        );
        {
            let _g = enter(Some(pool.clone()));
            assert_eq!(run(rayon::current_num_threads), 3);
            assert!(run(|| pool.current_thread_index().is_some()));
            {
                let _inner = enter(None);
                assert!(run(|| pool.current_thread_index().is_none()));
            }
            assert_eq!(run(rayon::current_num_threads), 3);
        }
        assert!(run(|| pool.current_thread_index().is_none()));
    }

    #[test]
    fn calls_that_share_no_work_stay_on_the_callers_thread_until_a_probe_shares() {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let policy = CallPolicy::default();
        let here = std::thread::current().id();
        for _ in 0..CallPolicy::IDLE_CALLS {
            assert!(!policy.stays_here());
            assert_ne!(
                policy.run(Some(&pool), || std::thread::current().id()),
                here
            );
        }
        assert!(policy.stays_here());
        for _ in CallPolicy::IDLE_CALLS..CallPolicy::PROBE_EVERY {
            assert_eq!(
                policy.run(Some(&pool), || std::thread::current().id()),
                here
            );
        }
        // The probe (call number PROBE_EVERY): eight loop bodies of 2 ms each, so the
        // spinning worker takes some.
        let slow = || {
            (0..8).into_par_iter().for_each(|_| {
                std::thread::sleep(Duration::from_millis(2));
            })
        };
        policy.run(Some(&pool), slow);
        assert!(!policy.stays_here());
        let (_, shared) = call_sharing(Some(&pool), slow);
        assert!(shared);
        let (_, shared) = call_sharing(Some(&pool), || 1 + 1);
        assert!(!shared);
    }

    #[test]
    fn a_call_runs_on_a_worker_and_its_loops_see_the_pool() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (index, threads, sum) = call(Some(&pool), || {
            use rayon::prelude::*;
            let sum: u64 = (0..10_000u64).into_par_iter().sum();
            (
                pool.current_thread_index(),
                rayon::current_num_threads(),
                sum,
            )
        });
        assert!(index.is_some());
        assert_eq!((threads, sum), (2, 49_995_000));
        // Nested: already on a worker, the inner call runs where it is.
        let same = call(Some(&pool), || {
            let outer = std::thread::current().id();
            call(Some(&pool), || std::thread::current().id()) == outer
        });
        assert!(same);
        assert!(!BUSY.get());
    }

    #[test]
    fn a_call_on_one_thread_runs_on_the_caller() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let here = std::thread::current().id();
        assert_eq!(call(Some(&pool), || std::thread::current().id()), here);
    }

    #[test]
    fn a_panicking_call_releases_its_spinners() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            call(Some(&pool), || panic!("kernel failed"))
        }));
        assert!(caught.is_err());
        assert_eq!(call(Some(&pool), || 7), 7);
    }

    #[test]
    fn concurrent_calls_with_parallel_loops_all_finish() {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let pool = &pool;
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..4u64)
                .map(|t| {
                    s.spawn(move || {
                        (0..50)
                            .map(|_| {
                                call(Some(pool), || {
                                    (0..2_000u64).into_par_iter().map(|i| i * t).sum::<u64>()
                                })
                            })
                            .sum::<u64>()
                    })
                })
                .collect();
            for (t, h) in handles.into_iter().enumerate() {
                assert_eq!(h.join().unwrap(), 50 * 1_999_000 * t as u64);
            }
        });
    }
}

//! The thread pool that kernels' parallel work runs on: rayon's global pool unless a caller
//! (an `Engine` with its own pool) has set one for the current thread with [`enter`].
//!
//! Setting the pool costs a thread-local write, so a call that does no parallel work never
//! leaves the caller's thread; only a parallel loop ([`run`]) moves into the pool, and pays
//! for crossing threads where there is real work to share.

use std::cell::RefCell;
use std::sync::Arc;

use rayon::ThreadPool;

thread_local! {
    static CURRENT: RefCell<Option<Arc<ThreadPool>>> = const { RefCell::new(None) };
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
}

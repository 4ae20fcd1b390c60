//! The thread pool that kernels' parallel work runs on: rayon's global pool unless a caller
//! (an `Engine` with its own pool) has set one for the current thread with [`enter`].
//!
//! Setting the pool costs a thread-local write, so a call that does no parallel work never
//! involves the pool. A call that starts parallel loops runs on the caller's thread as the
//! lead of a [`Team`] ([`call`]): its loops ([`for_each`]) do not go through rayon's queues;
//! the lead publishes each loop to the team's spinners (the pool's other workers, sent as
//! rayon jobs when the team has fewer than it wants) and all claim its iterations one at a
//! time. The caller's thread never crosses into the pool (a crossing, queue the job, wake a
//! sleeping worker, put the caller to sleep until the job is done, wake it, costs 7–14 µs on
//! a 2-core VM, more than many kernels of a model take), and the spinners spin between loops
//! and between calls, as onnxruntime's pool does, until [`SPIN_IDLE`] passes without work.
//!
//! No thread of a call sleeps, wakes or yields its core between or inside loops. That is what
//! keeps a call's time when other processes want the cores: a thread that gives up its core
//! (rayon's idle loop yields, then sleeps) lets a waiting process run for its whole time slice
//! (~1 ms) before it is back. Measured on SqueezeNet with two `nice -n 19` busy loops beside
//! it: median call 11–15 ms through rayon's loops and yielding spinners, 6–9 ms (as on an idle
//! machine) this way.
//!
//! The call's thread claims a loop's iterations from the front and its spinners from the
//! back ([`Loop`]): with the kernels' loops ordered down the image, each core keeps to the
//! part of the activations it wrote, and to the same part of a weight from call to call.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::ThreadPool;

thread_local! {
    static CURRENT: RefCell<Option<Arc<ThreadPool>>> = const { RefCell::new(None) };
    /// Whether this thread runs a [`call`] or spins for one: a spinner that found itself
    /// there would wait for a call that cannot finish before it does.
    static BUSY: Cell<bool> = const { Cell::new(false) };
    /// Set by a spinner job that found its worker already busy and returned at once, so that
    /// the spinner that ran it, nested, does not count it as work.
    static IDLE_JOB: Cell<bool> = const { Cell::new(false) };
    /// The [`Lead`] of the call this thread runs, while it runs it outside the call's loops
    /// (a `*const Lead<'_>`; null elsewhere).
    static LEAD: Cell<*const ()> = const { Cell::new(std::ptr::null()) };
    /// The team this thread led in its last call ([`LedTeam`]).
    static LED: RefCell<Option<LedTeam>> = const { RefCell::new(None) };
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

/// Runs `f`, which starts rayon's parallel work, in the current thread's pool: inside the pool
/// set by [`enter`] if there is one and this thread is not one of its workers, else here
/// (rayon's global pool, or the pool this worker belongs to).
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let pool = CURRENT.with(|c| c.borrow().clone());
    match pool {
        Some(p) if p.current_thread_index().is_none() => p.install(f),
        _ => f(),
    }
}

/// How many threads the parallel loops ([`for_each`]) started on this thread run on: those of
/// the pool set by [`enter`], else of rayon's pool of this thread (the global pool outside
/// any). Kernels cut their work by it.
pub fn threads() -> usize {
    CURRENT
        .with(|c| c.borrow().as_ref().map(|p| p.current_num_threads()))
        .unwrap_or_else(rayon::current_num_threads)
}

/// How long a worker spinning for a call's parallel work goes on without finding any before
/// it leaves (its worker returns to rayon's idle loop; the call's next loop sends a new
/// spinner, [`Lead::recruit`]). It bounds what a call that is mostly serial burns on the other
/// cores, and the stall in the rare case where a spinner was picked up, nested, by a worker
/// waiting inside a loop of the same call.
const SPIN_IDLE: Duration = Duration::from_micros(200);

/// Runs `f`, one call of a VM function that may start parallel loops, on this thread as the
/// lead of a [`Team`] of `pool`'s workers (rayon's global pool for `None`): a parallel loop
/// that finds the team short of spinners sends the pool's other workers to spin for its
/// loops' work, and they spin between its loops and on to the thread's next call (up to
/// [`SPIN_IDLE`] without finding any) rather than falling asleep. The call's thread never
/// leaves for the pool nor sleeps: a call without parallel loops costs what `f` costs, and
/// one with loops at most the sending of spinners (a job into the pool's queue), not a
/// crossing into the pool and back. Measured on two cores (`cargo run --release -p
/// relaxjit-bench --example call_overhead -- --gap G`): a call of two 50 µs iterations took
/// 62 µs through a crossing and 53 µs led from the caller, back to back (`G` = 0); 113 and
/// 58 µs with 100 µs between calls. On a pool of one thread, or on a thread that is
/// one of its workers or already runs a call, `f` runs as it is: its loops go to the team of
/// the call it runs inside, if any, else through rayon.
pub fn call<R>(pool: Option<&ThreadPool>, f: impl FnOnce() -> R) -> R {
    let (threads, inside) = match pool {
        Some(p) => (p.current_num_threads(), p.current_thread_index().is_some()),
        None => (
            rayon::current_num_threads(),
            rayon::current_thread_index().is_some(),
        ),
    };
    if threads <= 1 || inside || BUSY.get() {
        return f();
    }
    let team = LedTeam::of(pool);
    let lead = Lead {
        team: &team,
        pool,
        spinners: threads - 1,
    };
    let _busy = Busy::enter();
    let _lead = Leading::enter(&lead as *const Lead<'_> as *const ());
    f()
}

/// The [`Team`] a thread leads: kept from call to call (in [`LED`]) while its calls go to one
/// pool, so that the spinners of the last call, still spinning, take the next call's loops
/// without being sent again; retired when the thread leads calls on another pool or ends.
/// (A pool dropped and another built at its address gets the old team: spinners of the old
/// pool that still spin run the new call's loops, correctly, until [`SPIN_IDLE`] sends them
/// off and the new pool's come.)
struct LedTeam {
    /// The pool's address (0 for rayon's global pool).
    pool: usize,
    team: Arc<Team>,
}

impl LedTeam {
    /// This thread's team for calls on `pool`.
    fn of(pool: Option<&ThreadPool>) -> Arc<Team> {
        let id = pool.map_or(0, |p| p as *const ThreadPool as usize);
        // While the thread's locals are destroyed, a team of its own for this call.
        LED.try_with(|led| {
            let mut led = led.borrow_mut();
            match &*led {
                Some(t) if t.pool == id => Arc::clone(&t.team),
                _ => {
                    let team = Arc::new(Team::default());
                    *led = Some(LedTeam {
                        pool: id,
                        team: Arc::clone(&team),
                    });
                    team
                }
            }
        })
        .unwrap_or_else(|_| Arc::new(Team::default()))
    }
}

impl Drop for LedTeam {
    fn drop(&mut self) {
        self.team.retired.store(true, Ordering::Release);
    }
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

/// Makes a [`Lead`] this thread's ([`LEAD`]) until dropped, restoring the previous one.
struct Leading(*const ());

impl Leading {
    fn enter(lead: *const ()) -> Leading {
        Leading(LEAD.replace(lead))
    }
}

impl Drop for Leading {
    fn drop(&mut self) {
        LEAD.set(self.0);
    }
}

/// Runs the team's loops and the pool's pending work, within a call and from call to call,
/// until [`SPIN_IDLE`] passes without any or the team is retired. It never gives up its core
/// before that (see the module's docs).
fn spin(team: &Team) {
    let _left = Leave(team);
    if BUSY.get() {
        IDLE_JOB.set(true);
        return;
    }
    let _busy = Busy::enter();
    let mut idle_since: Option<Instant> = None;
    let mut rounds = 0u32;
    while !team.retired.load(Ordering::Acquire) {
        IDLE_JOB.set(false);
        let ran =
            team.help() || (rayon::yield_now() == Some(rayon::Yield::Executed) && !IDLE_JOB.get());
        if ran {
            idle_since = None;
            rounds = 0;
            continue;
        }
        std::hint::spin_loop();
        rounds = rounds.wrapping_add(1);
        if rounds.is_multiple_of(64) {
            let since = *idle_since.get_or_insert_with(Instant::now);
            if since.elapsed() > SPIN_IDLE {
                return;
            }
        }
    }
}

/// Uncounts a spinner from its team's when dropped.
struct Leave<'a>(&'a Team);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.spinners.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a call's thread and its spinners share: the loop it runs now (if any), and how
/// many spinners are on their way or spinning.
///
/// A loop is published by the call's thread ([`Team::run`]) as a pointer to a [`Loop`] on its
/// stack, and unpublished before that frame ends. A spinner counts itself among the
/// `visitors` before it reads the pointer and uncounts itself when done with the loop; the
/// call's thread, having unpublished, waits for `visitors` to be zero. Both sides use
/// sequentially consistent operations, so a visitor that counted itself after the call's
/// thread saw zero reads the pointer after it was cleared: no spinner touches a loop whose
/// frame has ended.
#[derive(Default)]
struct Team {
    current: AtomicPtr<()>,
    visitors: AtomicUsize,
    /// Spinners sent and not yet left.
    spinners: AtomicUsize,
    /// Set when the thread that leads the team leads no more calls with it (it leads calls
    /// on another pool, or it ended): its spinners leave.
    retired: AtomicBool,
}

impl Team {
    /// Runs iterations of the loop published now, if there is one; whether it ran any.
    fn help(&self) -> bool {
        if self.current.load(Ordering::Relaxed).is_null() {
            return false;
        }
        self.visitors.fetch_add(1, Ordering::SeqCst);
        let job = self.current.load(Ordering::SeqCst);
        // SAFETY: a published loop stays alive until its thread has cleared `current` and
        // then seen `visitors` at zero (see the type's docs); this thread is counted.
        let ran = !job.is_null() && unsafe { &*(job as *const Loop<'_>) }.work(End::Back);
        self.visitors.fetch_sub(1, Ordering::SeqCst);
        ran
    }

    /// Runs `body(i)` for every `i < n`, shared with the spinners, on the call's thread: it
    /// runs what no spinner claims (all of it if none comes) and returns when every
    /// iteration has ended; a panic of an iteration is raised again here.
    fn run(&self, n: usize, body: &(dyn Fn(usize) + Sync)) {
        let job = Loop {
            body,
            n,
            claimed: AtomicU64::new(0),
            finished: AtomicUsize::new(0),
            panic: Mutex::new(None),
        };
        self.current
            .store(&job as *const Loop<'_> as *mut (), Ordering::SeqCst);
        job.work(End::Front);
        while job.finished.load(Ordering::Acquire) < n {
            std::hint::spin_loop();
        }
        self.current.store(std::ptr::null_mut(), Ordering::SeqCst);
        while self.visitors.load(Ordering::SeqCst) != 0 {
            std::hint::spin_loop();
        }
        let panic = job.panic.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
    }
}

/// The call's side of a [`Team`]: where to send it spinners.
struct Lead<'a> {
    team: &'a Arc<Team>,
    /// The pool the spinners come from (rayon's global pool for `None`).
    pool: Option<&'a ThreadPool>,
    /// How many spinners the call wants (the pool's other workers).
    spinners: usize,
}

impl Lead<'_> {
    /// Sends spinners until the call has as many as it wants (replacing those that left).
    fn recruit(&self) {
        while self.team.spinners.load(Ordering::Acquire) < self.spinners {
            self.team.spinners.fetch_add(1, Ordering::AcqRel);
            let team = Arc::clone(self.team);
            let job = move || spin(&team);
            match self.pool {
                Some(p) => p.spawn(job),
                None => rayon::spawn(job),
            }
        }
    }
}

/// One parallel loop of a call: iterations are claimed one at a time by whichever of the
/// call's threads comes first, the call's thread from the front (0, 1, …), its spinners from
/// the back (n − 1, n − 2, …).
///
/// Why two ends: the kernels order their iterations by where in the activations they work
/// (the top of the image first), so the call's thread works on about the same part of the
/// activations in one loop as in the previous one — the part it wrote, still in its core's
/// L2 — and the spinners on the rest. Claimed from one end, who ran which iteration is a
/// race, and a layer read about half of its input from the other core's cache, which costs
/// more than L3. Measured on SqueezeNet (`rows`, alternated call by call): the 1×1
/// convolutions at 55 × 55 and 27 × 27 15–25% faster, the model ~5%. (With more than one
/// spinner, the spinners share the back among themselves as before.)
struct Loop<'a> {
    body: &'a (dyn Fn(usize) + Sync + 'a),
    n: usize,
    /// Claims from the front in the low 32 bits, from the back in the high 32 bits; a claim
    /// is an iteration when the claims counted before it sum to less than `n` (one word, so
    /// the claims are ordered and no iteration is claimed from both ends). Loops of 2^31
    /// iterations or more are claimed from the front only (the whole word counts them).
    claimed: AtomicU64,
    /// Iterations run to their end (or their panic).
    finished: AtomicUsize,
    /// The first panic of an iteration, raised again on the call's thread.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// Which end of a [`Loop`] a thread claims from.
#[derive(Clone, Copy)]
enum End {
    Front,
    Back,
}

impl Loop<'_> {
    /// Claims one iteration from `end`, if any is left.
    fn claim(&self, end: End) -> Option<usize> {
        const HALF: u32 = 32;
        // Below 2^31 iterations each half stays below 2^31 + the number of threads (a claim
        // that comes too late is the last its thread makes in this loop); above, the whole
        // word counts claims from the front.
        let two_ended = self.n < 1 << (HALF - 1);
        let split = |v: u64| match two_ended {
            true => ((v & u64::from(u32::MAX)) as usize, (v >> HALF) as usize),
            false => (v as usize, 0),
        };
        // A load first: spinners visit an exhausted loop until it is unpublished, and their
        // read-modify-writes would contend for the line the call's thread waits on.
        let (front, back) = split(self.claimed.load(Ordering::Relaxed));
        if front + back >= self.n {
            return None;
        }
        let end = if two_ended { end } else { End::Front };
        let step = match end {
            End::Front => 1,
            End::Back => 1 << HALF,
        };
        let (front, back) = split(self.claimed.fetch_add(step, Ordering::Relaxed));
        (front + back < self.n).then(|| match end {
            End::Front => front,
            End::Back => self.n - 1 - back,
        })
    }

    /// Claims (from `end`) and runs iterations until none is left; whether it ran any.
    fn work(&self, end: End) -> bool {
        let mut ran = 0;
        while let Some(i) = self.claim(end) {
            if let Err(payload) = std::panic::catch_unwind(AssertUnwindSafe(|| (self.body)(i))) {
                let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert(payload);
            }
            ran += 1;
        }
        if ran > 0 {
            self.finished.fetch_add(ran, Ordering::Release);
        }
        ran > 0
    }
}

/// Runs `body(i)` for every `i < n`, in parallel: inside a [`call`], on the call's thread and
/// its spinning workers, which claim iterations one at a time (see the module's docs);
/// elsewhere, and for loops started inside an iteration, as rayon's
/// `(0..n).into_par_iter().for_each(body)`. A panic in an iteration is raised again here
/// once every iteration has ended.
pub fn for_each(n: usize, body: impl Fn(usize) + Sync + Send) {
    use rayon::prelude::*;
    match n {
        0 => return,
        1 => return body(0),
        _ => {}
    }
    // SAFETY: `LEAD` points at the lead of the call this thread runs, which lives until the
    // call returns (`lead`'s frame), and is reset before that (`Leading`).
    match unsafe { (LEAD.get() as *const Lead<'_>).as_ref() } {
        Some(lead) => {
            let _inside = Leading::enter(std::ptr::null());
            lead.recruit();
            lead.team.run(n, &body);
        }
        None => run(|| (0..n).into_par_iter().for_each(body)),
    }
}

/// [`for_each`] over owned items: `body` takes each item of `items` once.
pub fn for_each_item<I: Send>(items: Vec<I>, body: impl Fn(I) + Sync + Send) {
    let items: Vec<Mutex<Option<I>>> = items.into_iter().map(|i| Mutex::new(Some(i))).collect();
    for_each(items.len(), |i| {
        let item = items[i].lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(item) = item {
            body(item);
        }
    });
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
    fn a_call_runs_on_the_callers_thread_and_its_loops_see_the_pool() {
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap(),
        );
        let here = std::thread::current().id();
        let _g = enter(Some(pool.clone()));
        let (thread, threads, sum, sum_rayon) = call(Some(&pool), || {
            use rayon::prelude::*;
            let sum = AtomicU64::new(0);
            for_each(10_000, |i| {
                sum.fetch_add(i as u64, Ordering::Relaxed);
            });
            // rayon's own parallel work goes to the entered pool through `run`.
            let sum_rayon: u64 = run(|| (0..10_000u64).into_par_iter().sum());
            (
                std::thread::current().id(),
                threads(),
                sum.into_inner(),
                sum_rayon,
            )
        });
        assert_eq!(thread, here);
        assert_eq!((threads, sum, sum_rayon), (3, 49_995_000, 49_995_000));
        // Nested: already leading a call, the inner call runs as it is.
        let same = call(Some(&pool), || {
            call(Some(&pool), || std::thread::current().id()) == here
        });
        assert!(same);
        // On a worker of the pool, a call runs where it is.
        let worker = pool.install(|| {
            call(Some(&pool), || {
                assert!(LEAD.get().is_null());
                pool.current_thread_index()
            })
        });
        assert!(worker.is_some());
        assert!(!BUSY.get() && LEAD.get().is_null());
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
    fn a_panicking_call_leaves_the_pool_usable() {
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

    /// The threads that ran `for_each(n, ..)`'s iterations (each iteration sleeping `pause`),
    /// checking that each ran exactly once.
    fn loop_threads(n: usize, pause: Duration) -> std::collections::HashSet<std::thread::ThreadId> {
        let ran: Vec<Mutex<Option<std::thread::ThreadId>>> =
            (0..n).map(|_| Mutex::new(None)).collect();
        for_each(n, |i| {
            std::thread::sleep(pause);
            let before = ran[i].lock().unwrap().replace(std::thread::current().id());
            assert!(before.is_none(), "iteration {i} ran twice");
        });
        ran.into_iter()
            .map(|r| r.into_inner().unwrap().expect("an iteration did not run"))
            .collect()
    }

    #[test]
    fn a_calls_loops_are_shared_with_its_spinners() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let threads = call(Some(&pool), || {
            assert!(!LEAD.get().is_null());
            let threads = loop_threads(32, Duration::from_millis(1));
            // Inside an iteration there is no team: a nested loop runs through rayon.
            for_each(4, |_| assert!(LEAD.get().is_null()));
            threads
        });
        assert_eq!(threads.len(), 2);
        assert!(LEAD.get().is_null());
        // Outside a call, through rayon; an empty loop and a loop of one run here.
        let outside = loop_threads(8, Duration::ZERO);
        assert!((1..=2).contains(&outside.len()));
        for_each(0, |_| unreachable!());
        let here = std::thread::current().id();
        for_each(1, |_| assert_eq!(std::thread::current().id(), here));
    }

    /// The call's thread claims from the front of a loop and its spinner from the back, so
    /// that consecutive loops ordered alike give each thread the same part of the data.
    #[test]
    fn the_calls_thread_takes_the_front_of_each_loop_and_its_spinner_the_back() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (runs, lead) = call(Some(&pool), || {
            let runs: Vec<Mutex<Option<std::thread::ThreadId>>> =
                (0..32).map(|_| Mutex::new(None)).collect();
            for_each(runs.len(), |i| {
                *runs[i].lock().unwrap() = Some(std::thread::current().id());
                std::thread::sleep(Duration::from_millis(1));
            });
            let runs: Vec<_> = runs.into_iter().map(|r| r.into_inner().unwrap()).collect();
            (runs, std::thread::current().id())
        });
        let runs: Vec<std::thread::ThreadId> = runs.into_iter().map(Option::unwrap).collect();
        let front = runs.iter().take_while(|&&t| t == lead).count();
        assert!(
            front > 0 && front < runs.len(),
            "both threads ran: {runs:?}"
        );
        assert!(
            runs[front..].iter().all(|&t| t != lead),
            "the call's thread ran a prefix, the spinner the rest: {runs:?}"
        );
    }

    /// The team a thread leads stays from call to call on one pool, and is retired (its
    /// spinners leave) when the thread leads a call on another pool or ends.
    #[test]
    fn a_team_is_kept_from_call_to_call_and_retired_after() {
        let pools: Vec<ThreadPool> = (0..2)
            .map(|_| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(2)
                    .build()
                    .unwrap()
            })
            .collect();
        let led = || LED.with(|l| Arc::clone(&l.borrow().as_ref().unwrap().team));
        let (first, last) = std::thread::scope(|s| {
            s.spawn(|| {
                let threads = call(Some(&pools[0]), || {
                    loop_threads(16, Duration::from_millis(1))
                });
                assert_eq!(threads.len(), 2);
                let first = led();
                call(Some(&pools[0]), || loop_threads(4, Duration::ZERO));
                assert!(Arc::ptr_eq(&first, &led()));
                assert!(!first.retired.load(Ordering::Acquire));
                call(Some(&pools[1]), || loop_threads(4, Duration::ZERO));
                assert!(first.retired.load(Ordering::Acquire));
                (first, led())
            })
            .join()
            .unwrap()
        });
        assert!(last.retired.load(Ordering::Acquire), "the thread ended");
        // Retired, the spinners leave (well before SPIN_IDLE would send them off).
        let start = Instant::now();
        while first.spinners.load(Ordering::Acquire) + last.spinners.load(Ordering::Acquire) > 0 {
            assert!(start.elapsed() < Duration::from_secs(10), "spinners stayed");
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_spinner_that_left_is_replaced_by_the_next_loop() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let threads = call(Some(&pool), || {
            loop_threads(8, Duration::from_millis(1));
            // Serial work far longer than a spinner waits without finding any.
            std::thread::sleep(SPIN_IDLE * 20);
            loop_threads(32, Duration::from_millis(1))
        });
        assert_eq!(threads.len(), 2);
    }

    #[test]
    fn a_panicking_iteration_is_raised_on_the_calls_thread_once_all_ended() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let ended = AtomicUsize::new(0);
        let caught = std::panic::catch_unwind(AssertUnwindSafe(|| {
            call(Some(&pool), || {
                for_each(16, |i| {
                    std::thread::sleep(Duration::from_micros(200));
                    ended.fetch_add(1, Ordering::Relaxed);
                    assert!(i != 3, "iteration 3 failed");
                })
            })
        }));
        let payload = caught.expect_err("the panic was lost");
        assert_eq!(
            crate::kernel::runtime::panic_message(payload.as_ref()),
            "iteration 3 failed"
        );
        assert_eq!(ended.load(Ordering::Relaxed), 16);
        // The pool and its spinners are not left in a loop.
        assert_eq!(
            call(Some(&pool), || loop_threads(8, Duration::ZERO).len().min(1)),
            1
        );
        assert!(LEAD.get().is_null() && !BUSY.get());
    }

    #[test]
    fn owned_items_are_each_taken_once() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut out = vec![0u32; 100];
        let items: Vec<(usize, &mut [u32])> = out.chunks_mut(7).enumerate().collect();
        call(Some(&pool), || {
            for_each_item(items, |(i, chunk)| {
                chunk.iter_mut().for_each(|x| *x += i as u32 + 1)
            })
        });
        assert!(
            out.iter()
                .enumerate()
                .all(|(j, &x)| x == (j / 7) as u32 + 1)
        );
    }

    #[test]
    fn concurrent_calls_with_parallel_loops_all_finish() {
        use rayon::prelude::*;
        use std::sync::atomic::AtomicU64;
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
                                    let sum = AtomicU64::new(0);
                                    for_each(2_000, |i| {
                                        sum.fetch_add(i as u64 * t, Ordering::Relaxed);
                                    });
                                    let sum = sum.into_inner();
                                    assert_eq!(
                                        sum,
                                        (0..2_000u64).into_par_iter().map(|i| i * t).sum::<u64>()
                                    );
                                    sum
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

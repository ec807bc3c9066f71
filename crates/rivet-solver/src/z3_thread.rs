//! The one thread that talks to Z3: every query of the process (its translation, the check,
//! the model read back) and every kept solver's free run there, one at a time, in the order
//! sent, while the caller waits for the answer.
//!
//! Z3 4.8.12 (Debian's) is not safe with more than one thread, even when each uses its own
//! context: two checks at once, a solver freed beside a check, and a thread's exit (the z3
//! crate frees the thread's context then) each ended Rivet with SIGSEGV. A lock around
//! queries covered the first two, not the last. With Z3 on one thread that never exits, no
//! other thread ever holds a Z3 object, and a crash inside Z3 that remains is Z3's alone with
//! one query (as the re-check of a popped solver was, see `z3_backend`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Mutex, PoisonError};

use crate::job_thread::JobThread;

/// The Z3 solvers a backend keeps between its queries (incremental, push and pop).
#[derive(Default)]
pub(crate) struct Kept {
    pub solver: Option<z3::Solver>,
    /// The solver of linear queries (kept apart from the bit-vector one).
    pub lia: Option<z3::Solver>,
}

/// A backend's name on the Z3 thread: the key of its kept solvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct BackendId(u64);

impl BackendId {
    pub fn fresh() -> BackendId {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        BackendId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

thread_local! {
    /// The kept solvers of every backend, on the thread that runs Z3.
    static KEPT: RefCell<HashMap<BackendId, Kept>> = RefCell::new(HashMap::new());
}

/// The niceness of the threads whose work runs beside the search (Linux's, per thread): at
/// 10, such a thread gets about a tenth of a core the search wants and every idle moment.
pub(crate) const BACKGROUND_NICE: i32 = 10;

/// The thread every Z3 job runs on, yielding the cores to the process's other threads (the
/// search's, which keep the worker JVMs busy): a query asked in a turn has the cores to itself
/// anyway, while one asked by work running beside the search (a concolic node's answer, an
/// exploration) takes the time the search leaves.
static Z3: JobThread = JobThread::new("rivet-z3", BACKGROUND_NICE);

/// Serializes the fallback, when the thread could not be started: Z3 on the callers' threads,
/// one at a time.
static INLINE: Mutex<()> = Mutex::new(());

/// Runs `job` on the Z3 thread with backend `id`'s kept solvers and waits for its result;
/// None when the job panicked.
pub(crate) fn with_z3<T, F>(id: BackendId, job: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce(&mut Kept) -> T + Send + 'static,
{
    let (reply, answer) = channel();
    let run = move || {
        let result = KEPT.with(|k| job(k.borrow_mut().entry(id).or_default()));
        let _ = reply.send(result);
    };
    if let Some(refused) = Z3.send(Box::new(run)) {
        let _one = INLINE.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(refused));
    }
    answer.recv().ok()
}

/// Frees backend `id`'s kept solvers on the Z3 thread (without waiting).
pub(crate) fn free(id: BackendId) {
    let run = move || {
        KEPT.with(|k| k.borrow_mut().remove(&id));
    };
    if let Some(refused) = Z3.send(Box::new(run)) {
        let _one = INLINE.lock().unwrap_or_else(PoisonError::into_inner);
        refused();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_backend_runs_on_one_thread_with_its_own_kept_solvers() {
        let (a, b) = (BackendId::fresh(), BackendId::fresh());
        let here = std::thread::current().id();
        let on = |id| {
            with_z3(id, |kept| {
                let had = kept.solver.is_some();
                kept.solver.get_or_insert_with(z3::Solver::new);
                (std::thread::current().id(), had)
            })
            .expect("an answer")
        };
        let (ta, first) = on(a);
        let (tb, other) = on(b);
        let (_, again) = on(a);
        assert_eq!(ta, tb, "one thread");
        assert_ne!(ta, here);
        assert_eq!((first, other, again), (false, false, true));
        free(a);
        assert!(!on(a).1, "freed");
        assert_eq!(with_z3(b, |_| -> u8 { panic!("a job's bug") }), None);
        assert!(on(b).1, "the thread and its solvers live on");
        free(a);
        free(b);
    }
}

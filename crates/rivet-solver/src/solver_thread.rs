//! The process's thread for solving work beside the caller's (an exploration that runs while
//! the search does): one thread, started on first use, that never exits, so that such work
//! never waits for a thread to start and never runs two at once. Its Z3 queries go to the Z3
//! thread like every other (`z3_thread`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;

use crate::job_thread::{Job, JobThread};

/// The solving thread: its work runs beside the search and takes the time the search leaves.
static SOLVING: JobThread = JobThread::new("rivet-solving", crate::z3_thread::BACKGROUND_NICE);

/// Runs `job` on the solving thread; its result arrives on the returned receiver (or, when
/// `job` panicked, the receiver's sender is gone). When the thread could not be started,
/// `job` runs here instead, before this returns.
pub fn on_solver_thread<T, F>(job: F) -> Receiver<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (send, receive) = channel();
    let reply = send.clone();
    let boxed: Job = Box::new(move || {
        // The caller may have stopped waiting: nothing to tell then.
        let _ = reply.send(job());
    });
    if let Some(job) = SOLVING.send(boxed) {
        job();
    }
    drop(send);
    receive
}

/// A job on the solving thread whose caller goes on meanwhile and asks whether it ended.
pub struct SolverJob<T> {
    result: Receiver<T>,
    ended: Arc<AtomicBool>,
}

/// Set when a job ends, by return or panic (its result is sent right after).
struct Ended(Arc<AtomicBool>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

impl<T: Send + 'static> SolverJob<T> {
    /// Starts `job` on the solving thread (queued behind the jobs sent before it).
    pub fn start<F>(job: F) -> SolverJob<T>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        let ended = Arc::new(AtomicBool::new(false));
        let flag = Ended(Arc::clone(&ended));
        SolverJob {
            result: on_solver_thread(move || {
                let _ended = flag;
                job()
            }),
            ended,
        }
    }
}

impl<T> SolverJob<T> {
    /// Has it not ended yet (queued or running)?
    pub fn running(&self) -> bool {
        !self.ended.load(Ordering::Acquire)
    }

    /// Waits for its result (None when the job panicked, or its result was taken).
    pub fn wait(&self) -> Option<T> {
        self.result.recv().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_runs_while_its_caller_goes_on_and_says_when_it_ended() {
        let (go, wait) = channel::<()>();
        let job = SolverJob::start(move || {
            let _ = wait.recv();
            7
        });
        assert!(job.running(), "it waits for the caller's word");
        go.send(()).expect("the job waits");
        while job.running() {
            std::thread::yield_now();
        }
        assert_eq!(job.wait(), Some(7));
        let lost = SolverJob::start(|| -> u8 { panic!("a job's bug") });
        while lost.running() {
            std::thread::yield_now();
        }
        assert_eq!(lost.wait(), None, "a panic ends it without a result");
    }

    #[test]
    fn jobs_run_on_one_thread_that_is_not_the_callers_and_give_their_results() {
        let here = std::thread::current().id();
        let a = on_solver_thread(|| (std::thread::current().id(), 1 + 1));
        let b = on_solver_thread(|| (std::thread::current().id(), 2 * 3));
        let (ta, ra) = a.recv().expect("a result");
        let (tb, rb) = b.recv().expect("a result");
        assert_eq!((ra, rb), (2, 6));
        assert_eq!(ta, tb, "one thread");
        assert_ne!(ta, here);
        let lost = on_solver_thread(|| -> u8 { panic!("a job's bug") });
        assert!(lost.recv().is_err(), "no result");
        let after = on_solver_thread(|| std::thread::current().id());
        assert_eq!(after.recv().ok(), Some(ta), "the thread lives on");
    }
}

//! A named thread of the process that runs jobs one at a time in the order sent and never
//! exits (started on first use, with a 256 MiB stack, at a given niceness): the Z3 thread and
//! the solving thread are two of them.

use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock, PoisonError};

/// A job for such a thread.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// The stack of each such thread (address space; only what is used is mapped), as large as
/// the CLI's work thread's: the interpreter, the translation and Z3 recurse over terms whose
/// depth the code under test decides (on a default 2 MiB stack, explorations of
/// commons-lang3's `StringUtils` ended the process).
const STACK_SIZE: usize = 256 << 20;

/// One such thread, by name; its queue is made when the first job is sent.
pub(crate) struct JobThread {
    name: &'static str,
    /// Its niceness (Linux's, per thread; 0 is the process's own): above 0, it yields the
    /// cores to the process's other threads whenever they want them.
    nice: i32,
    queue: OnceLock<Mutex<Option<Sender<Job>>>>,
}

impl JobThread {
    pub(crate) const fn new(name: &'static str, nice: i32) -> JobThread {
        JobThread {
            name,
            nice,
            queue: OnceLock::new(),
        }
    }

    /// Queues `job` behind those sent before it; gives it back when the thread could not be
    /// started or is gone (the caller then runs it itself).
    pub(crate) fn send(&self, job: Job) -> Option<Job> {
        let queue = self.queue.get_or_init(|| {
            let (send, receive) = channel::<Job>();
            let nice = self.nice;
            let started = std::thread::Builder::new()
                .name(self.name.into())
                .stack_size(STACK_SIZE)
                .spawn(move || {
                    if nice != 0 {
                        // Only ever lowers this thread's priority; a refusal leaves it as is.
                        let me = rustix::thread::gettid();
                        let _ = rustix::process::setpriority_process(Some(me), nice);
                    }
                    for job in receive {
                        // A job that panics loses its result (its receiver sees the sender
                        // gone), not the thread.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                });
            Mutex::new(started.ok().map(|_| send))
        });
        let mut q = queue.lock().unwrap_or_else(PoisonError::into_inner);
        let refused = match q.as_ref() {
            Some(s) => s.send(job).err().map(|e| e.0),
            None => Some(job),
        };
        if refused.is_some() {
            *q = None;
        }
        refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_in_order_on_the_named_thread_and_a_panic_does_not_end_it() {
        static THREAD: JobThread = JobThread::new("rivet-test-jobs", 0);
        let (send, receive) = channel();
        for i in 0..3 {
            let s = send.clone();
            let job: Job = Box::new(move || {
                if i == 1 {
                    panic!("job 1 panics");
                }
                let name = std::thread::current().name().map(str::to_string);
                let _ = s.send((i, name));
            });
            assert!(THREAD.send(job).is_none());
        }
        drop(send);
        let got: Vec<(i32, Option<String>)> = receive.iter().collect();
        let name = Some("rivet-test-jobs".to_string());
        assert_eq!(got, [(0, name.clone()), (2, name)]);
    }

    #[test]
    fn a_job_thread_runs_at_its_niceness() {
        static NICE: JobThread = JobThread::new("rivet-test-nice", 5);
        let me = rustix::thread::gettid();
        let here = rustix::process::getpriority_process(Some(me)).expect("own niceness");
        let (send, receive) = channel();
        let job: Job = Box::new(move || {
            let me = rustix::thread::gettid();
            let _ = send.send(rustix::process::getpriority_process(Some(me)).ok());
        });
        assert!(NICE.send(job).is_none());
        // A thread never gets nicer than the one that started it (raising a priority takes
        // a privilege): at least 5.
        assert_eq!(receive.recv().ok().flatten(), Some(here.max(5)));
    }
}

//! Errors of starting and talking to workers; each names the worker and the failing step.

use std::fmt;
use std::io;

use crate::protocol::ProtocolError;
use rivet_testcase::WorkerId;

/// The step of a worker's life that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    CreateTempDir,
    WriteHarness,
    Spawn,
    Handshake,
    Send,
    Receive,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Step::CreateTempDir => "creating its temporary directory",
            Step::WriteHarness => "writing the harness classes",
            Step::Spawn => "spawning the JVM",
            Step::Handshake => "waiting for the ready handshake",
            Step::Send => "sending a request",
            Step::Receive => "receiving a response",
        })
    }
}

/// A worker could not be started or spoke out of protocol.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("{worker}: {step} failed: {source}")]
    Io {
        worker: WorkerId,
        step: Step,
        #[source]
        source: io::Error,
    },
    #[error("{worker}: protocol error while {step}: {source}")]
    Protocol {
        worker: WorkerId,
        step: Step,
        #[source]
        source: ProtocolError,
    },
    #[error("{worker}: {step} failed: {reason}")]
    Failed {
        worker: WorkerId,
        step: Step,
        reason: String,
    },
    #[error("the worker harness is not embedded: no javac was found (JAVA_HOME or PATH) when rivet-worker was built")]
    HarnessMissing,
    #[error("a pool needs at least one worker")]
    NoWorkers,
}

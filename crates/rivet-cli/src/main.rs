//! The `rivet` command line: parses arguments, runs a subcommand, maps failures to exit codes.

// The binary's job is to print.
#![allow(clippy::print_stdout)]

mod branches;
mod cli;
mod crash;
mod explore;
mod generate;
mod guard;
mod instrument;
mod merge;
mod mutate;
mod progress;
mod report;

use clap::Parser;
use cli::{Cli, Command};
use std::io::Write;
use std::process::ExitCode;

/// mimalloc, not the system allocator: the search and the symbolic executor allocate and free
/// small vectors and strings at a high rate, and glibc's malloc and free were a fifth of the
/// strategies thread's time on CompactHashMap.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A failure the user caused (bad flags, missing class, corrupt input): exit code 2.
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// Shorthand for returning a bad-input failure.
pub fn bad_input(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(msg.into()))
}

/// Help and version go to stdout as usual; a usage error becomes one `rivet: error:` line.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let text = e.to_string();
    // Clap's message is its first paragraph (it may continue on indented lines).
    let message: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let message = message.join(" ");
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    eprintln!("rivet: error: {message} (see 'rivet --help')");
    ExitCode::from(2)
}

/// The error and its causes, each cause said once: library errors often quote their source
/// in their own message already.
fn message(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}

/// The stack of the thread that does the work (address space; only what is used is mapped).
const STACK_SIZE: usize = 256 << 20;

type WorkResult = std::thread::Result<anyhow::Result<ExitCode>>;

/// The work thread's result, or an internal error once the run is past the time bound it
/// armed (the process then ends, and with it the worker JVMs, whose input closes).
fn wait_for(
    finished: &std::sync::mpsc::Receiver<WorkResult>,
    guard: &guard::TimeGuard,
) -> anyhow::Result<ExitCode> {
    use std::sync::mpsc::RecvTimeoutError;
    loop {
        match finished.recv_timeout(std::time::Duration::from_millis(500)) {
            Ok(Ok(result)) => return result,
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => {
                return Err(anyhow::anyhow!(
                    "internal error: the run panicked (see above)"
                ))
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Some(bound) = guard.overrun() {
                    return Err(anyhow::anyhow!(
                        "internal error: the run did not end within its time bound of {} s; stopped (a bug in Rivet: please report it with the class)",
                        bound.as_secs()
                    ));
                }
            }
        }
    }
}

fn main() -> ExitCode {
    crash::report_crashes();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("RIVET_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    // The work runs on a thread with a large stack: the evaluator and the generator recurse
    // over terms and values whose depth the code under test decides.
    let guard = guard::TimeGuard::default();
    let armed = guard.clone();
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("rivet".into())
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match cli.command {
                    Command::Branches(args) => branches::run(&args),
                    Command::Instrument(args) => instrument::run(&args),
                    Command::Generate(args) => generate::run(&args, &armed),
                    Command::Explore(args) => explore::run(&args),
                    Command::Mutate(args) => mutate::run(&args),
                    Command::Report(cli::ReportCommand::Merge(args)) => merge::run(&args),
                }));
            let _ = done.send(result);
        });
    let result = match worker {
        Ok(_) => wait_for(&finished, &guard),
        Err(e) => Err(anyhow::Error::new(e).context("starting the work thread")),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let mut err = std::io::stderr().lock();
            // A closed stdout (`rivet branches … | head`) is not an error worth reporting.
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(err, "rivet: error: {}", message(&e));
            if e.downcast_ref::<BadInput>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

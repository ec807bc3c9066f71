//! One worker: a JVM running the harness in its own temporary directory, fed batches over its
//! stdin (by a writer thread), its results read with a per-test deadline by the thread that
//! supervises it; replaced when it times out, dies, corrupts the protocol or accumulates stray
//! threads.

use std::fs::File;
use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rivet_sandbox::Confinement;
use rivet_testcase::{ObservationSpec, Statement, TestCase};
use tempfile::TempDir;
use tracing::{debug, info, info_span, trace, warn};

use crate::config::WorkerConfig;
use crate::error::{Step, WorkerError};
use crate::frames::{Event, FrameReader};
use crate::harness::{write_harness, MAIN_CLASS};
use crate::limit::{time_limit, RecentSlowest, TestLimit};
use crate::protocol::{
    encode_batch_observing, encode_limits, encode_ping, observations, snapshots, BatchId, Response,
    TestResult, OVERRUN_CAUGHT_CLASS, OVERRUN_CLASS, PROTOCOL_VERSION,
};
use rivet_testcase::{Execution, ExecutionStatus, ProbeId, WorkerId};

/// JVM flags every worker gets: no hsperfdata files (left behind by SIGKILL), VM messages on
/// stderr (never on the protocol's stdout), deterministic exception messages, no display.
const FIXED_FLAGS: &[&str] = &[
    "-XX:-UsePerfData",
    "-XX:+DisplayVMOutputToStderr",
    "-XX:-OmitStackTraceInFastThrow",
    "-Djava.awt.headless=true",
    "-Dfile.encoding=UTF-8",
    // No --add-opens: the code under test may reflect on what it may in a developer's test
    // JVM. The harness reads JDK classes' private fields without them (`Peek.java`).
];

/// Java 18 to 23 allow a security manager only when asked on the command line; the harness's
/// write watch (`WriteWatch.java`) is one. Java 17 allows it without the flag, and from 24 on
/// there is none (the flag would stop the JVM).
fn security_manager_flag(java: &Path) -> Option<&'static str> {
    let feature = java_feature_version(java)?;
    (18..=23)
        .contains(&feature)
        .then_some("-Djava.security.manager=allow")
}

/// The feature version (17, 21, 25) of the JDK whose `bin/java` this is, from its `release`
/// file; None when it cannot be read.
fn java_feature_version(java: &Path) -> Option<u32> {
    let real = std::fs::canonicalize(java).ok()?;
    let home = real.parent()?.parent()?;
    let release = std::fs::read_to_string(home.join("release")).ok()?;
    let line = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?;
    let version = line.trim().trim_matches('"');
    let mut parts = version.split(['.', '-', '+']);
    match parts.next()?.parse().ok()? {
        1 => parts.next()?.parse().ok(),
        feature => Some(feature),
    }
}

/// A running worker JVM.
struct Process {
    child: Child,
    pid: u32,
    requests: Sender<Vec<u8>>,
    responses: FrameReader,
    log: PathBuf,
    java_version: String,
    /// Tests this JVM completed.
    completed: u64,
    /// The slowest of its recent tests (not the first, which also loads classes).
    slowest: RecentSlowest,
    /// The limits this JVM was last told (`LIMITS`), so that its probes end a looping test.
    told: Option<(Duration, TestLimit)>,
    /// Dropped after the process is dead (field order).
    _dir: TempDir,
}

impl Process {
    fn spawn(id: WorkerId, config: &WorkerConfig) -> Result<Process, WorkerError> {
        let io = |step| {
            move |source| WorkerError::Io {
                worker: id,
                step,
                source,
            }
        };
        let prefix = format!("rivet-worker-{}-", id.0);
        let mut dir = tempfile::Builder::new();
        dir.prefix(&prefix);
        let dir = match &config.temp_root {
            Some(root) => dir.tempdir_in(root),
            None => dir.tempdir(),
        }
        .map_err(io(Step::CreateTempDir))?;
        let harness = dir.path().join("harness");
        write_harness(&harness).map_err(io(Step::WriteHarness))?;
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).map_err(io(Step::CreateTempDir))?;
        // The working directory is empty and writable, as a developer's project directory:
        // the interception refuses the writes it sees there, and the harness refuses a test
        // that left anything there anyway (`WorkDir.java`).
        let cwd = dir.path().join("cwd");
        std::fs::create_dir_all(&cwd).map_err(io(Step::CreateTempDir))?;
        // The code under test sees a home directory of the worker's own, outside what it may
        // change: a call that would change the user's home is refused by the interception,
        // whatever OS confinement there is.
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).map_err(io(Step::CreateTempDir))?;
        let log = dir.path().join("worker.log");
        let stderr = File::create(&log).map_err(io(Step::CreateTempDir))?;
        let classpath = std::env::join_paths(std::iter::once(&harness).chain(&config.classpath))
            .map_err(|e| WorkerError::Failed {
                worker: id,
                step: Step::Spawn,
                reason: format!("bad classpath entry: {e}"),
            })?;

        let mut cmd = Command::new(&config.java);
        cmd.arg(format!("-Xmx{}m", config.max_heap_mb))
            .arg(format!("-Xss{}k", config.thread_stack_kb))
            .args(&config.tuning_flags)
            .args(FIXED_FLAGS)
            .arg(format!("-Djava.io.tmpdir={}", tmp.display()))
            .arg(format!("-Duser.home={}", home.display()))
            .args(security_manager_flag(&config.java))
            .args(&config.extra_jvm_args)
            .arg("-cp")
            .arg(classpath)
            .arg(MAIN_CLASS)
            .current_dir(&cwd)
            .env("HOME", &home)
            .env_remove("JAVA_TOOL_OPTIONS")
            .env_remove("_JAVA_OPTIONS")
            .env_remove("JDK_JAVA_OPTIONS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            // Its own process group, so that killing it also kills what the code under test ran.
            .process_group(0);
        // The OS backstop: writes only beneath tmp and the working directory, no TCP, no
        // signals outside, no programs but the JDK's.
        let mut child = Confinement::for_jvm(&config.java, vec![tmp.clone(), cwd.clone()])
            .spawn(&mut cmd)
            .map_err(|e| match e {
                rivet_sandbox::SandboxError::Spawn { source, .. } => io(Step::Spawn)(source),
                e => WorkerError::Failed {
                    worker: id,
                    step: Step::Spawn,
                    reason: e.to_string(),
                },
            })?;
        let pid = child.id();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            kill_group(&mut child);
            return Err(WorkerError::Failed {
                worker: id,
                step: Step::Spawn,
                reason: "no pipes to the JVM".into(),
            });
        };

        let (requests, to_write) = mpsc::channel::<Vec<u8>>();
        let writer = std::thread::Builder::new()
            .name(format!("rivet-worker-{}-stdin", id.0))
            .spawn(move || write_requests(stdin, to_write));
        if let Err(e) = writer {
            kill_group(&mut child);
            return Err(io(Step::Spawn)(e));
        }

        let mut process = Process {
            child,
            pid,
            requests,
            responses: FrameReader::new(stdout),
            log,
            java_version: String::new(),
            completed: 0,
            slowest: RecentSlowest::default(),
            told: None,
            _dir: dir,
        };
        match process
            .responses
            .next(Instant::now() + config.startup_timeout)
        {
            Event::Frame(Response::Ready(ready)) if ready.version == PROTOCOL_VERSION => {
                info!(worker = id.0, pid, java = %ready.java_version, vm = %ready.vm_name, "worker ready");
                process.java_version = ready.java_version;
                Ok(process)
            }
            Event::Frame(Response::Ready(ready)) => Err(WorkerError::Failed {
                worker: id,
                step: Step::Handshake,
                reason: format!(
                    "harness speaks protocol {}, Rivet {PROTOCOL_VERSION}",
                    ready.version
                ),
            }),
            Event::Frame(other) => Err(WorkerError::Failed {
                worker: id,
                step: Step::Handshake,
                reason: format!("expected READY, got {other:?}"),
            }),
            Event::Closed(why) => Err(WorkerError::Failed {
                worker: id,
                step: Step::Handshake,
                reason: process.death(&why),
            }),
            Event::Corrupt(why) => Err(WorkerError::Failed {
                worker: id,
                step: Step::Handshake,
                reason: format!("{why}{}", log_tail(&process.log)),
            }),
            Event::Timeout => Err(WorkerError::Failed {
                worker: id,
                step: Step::Handshake,
                reason: format!(
                    "no READY within {:?}{}",
                    config.startup_timeout,
                    log_tail(&process.log)
                ),
            }),
        }
    }

    /// Why the process died: waits briefly for it to exit (killing it otherwise) and describes
    /// its exit status and the end of its stderr.
    fn death(&mut self, why: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => break None,
            }
        };
        let what = match status {
            Some(s) => match (s.code(), s.signal()) {
                (Some(code), _) => format!("exited with status {code}"),
                (_, Some(9)) => "killed by signal 9 (SIGKILL)".to_string(),
                (_, Some(sig)) => format!("killed by signal {sig}"),
                _ => format!("ended: {s}"),
            },
            None => {
                kill_group(&mut self.child);
                format!("{why}; killed it")
            }
        };
        format!("worker JVM {what}{}", log_tail(&self.log))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        kill_group(&mut self.child);
    }
}

/// Kills the JVM's process group (the JVM and whatever the code under test started) and reaps it.
fn kill_group(child: &mut Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group we created with
        // process_group(0), whose id is the child's pid; it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The last lines of a worker's stderr, for crash reasons.
fn log_tail(log: &std::path::Path) -> String {
    let Ok(text) = std::fs::read(log) else {
        return String::new();
    };
    let start = text.len().saturating_sub(2000);
    let text = String::from_utf8_lossy(&text[start..]);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let tail = lines[lines.len().saturating_sub(4)..].join(" | ");
    format!("; stderr: {tail}")
}

fn write_requests(mut stdin: std::process::ChildStdin, frames: Receiver<Vec<u8>>) {
    for frame in frames {
        if stdin
            .write_all(&frame)
            .and_then(|()| stdin.flush())
            .is_err()
        {
            // The worker is gone; the reader reports it.
            return;
        }
    }
}

/// A worker slot of a pool: its current JVM, started on demand and replaced after a failure.
pub(crate) struct Worker {
    id: WorkerId,
    config: Arc<WorkerConfig>,
    process: Option<Process>,
    next_batch: u32,
    spawns: u32,
    /// What the batches sent from now on ask the harness to observe.
    observation: Arc<ObservationSpec>,
    /// Threads the code under test left running in the current JVM, at its last result.
    stray: u32,
    /// How the tests sent from now on are limited.
    limit: TestLimit,
}

/// A worker as seen from outside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerInfo {
    pub id: WorkerId,
    /// The current JVM's pid (None between a failure and the next test).
    pub pid: Option<u32>,
    /// How many JVMs this slot has started.
    pub spawns: u32,
    pub java_version: Option<String>,
}

impl Worker {
    pub(crate) fn new(id: WorkerId, config: Arc<WorkerConfig>) -> Self {
        Worker {
            id,
            config,
            process: None,
            next_batch: 0,
            spawns: 0,
            observation: Arc::new(ObservationSpec::default()),
            stray: 0,
            limit: TestLimit::Configured,
        }
    }

    /// How the tests sent from now on are limited.
    pub(crate) fn set_test_limit(&mut self, limit: TestLimit) {
        self.limit = limit;
    }

    /// Ends the JVM if tests left threads running in it (a new one starts on demand).
    pub(crate) fn recycle_if_stray(&mut self) -> bool {
        let stray = std::mem::take(&mut self.stray) > 0 && self.process.is_some();
        if stray {
            self.process = None;
        }
        stray
    }

    /// What later batches ask the harness to observe.
    pub(crate) fn set_observation(&mut self, spec: Arc<ObservationSpec>) {
        self.observation = spec;
    }

    pub(crate) fn info(&self) -> WorkerInfo {
        WorkerInfo {
            id: self.id,
            pid: self.process.as_ref().map(|p| p.pid),
            spawns: self.spawns,
            java_version: self.process.as_ref().map(|p| p.java_version.clone()),
        }
    }

    /// Starts the JVM if none is running (one retry).
    pub(crate) fn start(&mut self) -> Result<(), WorkerError> {
        if self.process.is_some() {
            return Ok(());
        }
        let _span = info_span!("spawn", worker = self.id.0).entered();
        let mut attempt = Process::spawn(self.id, &self.config);
        if let Err(e) = &attempt {
            warn!(worker = self.id.0, error = %e, "worker failed to start; retrying once");
            attempt = Process::spawn(self.id, &self.config);
        }
        self.spawns += 1;
        self.process = Some(attempt?);
        Ok(())
    }

    /// Round trip of a ping.
    pub(crate) fn ping(&mut self, nonce: u64) -> Result<Duration, WorkerError> {
        self.start()?;
        let id = self.id;
        let limit = self.config.time_limit;
        let Some(p) = self.process.as_mut() else {
            return Err(WorkerError::Failed {
                worker: id,
                step: Step::Send,
                reason: "no JVM".into(),
            });
        };
        let start = Instant::now();
        if p.requests.send(encode_ping(nonce)).is_err() {
            let reason = p.death("its input closed");
            self.process = None;
            return Err(WorkerError::Failed {
                worker: id,
                step: Step::Send,
                reason,
            });
        }
        let failure = match p.responses.next(start + limit) {
            Event::Frame(Response::Pong(n)) if n == nonce => return Ok(start.elapsed()),
            Event::Frame(other) => format!("expected PONG {nonce}, got {other:?}"),
            Event::Closed(why) => p.death(&why),
            Event::Corrupt(why) => why,
            Event::Timeout => format!("no PONG within {limit:?}"),
        };
        self.process = None;
        Err(WorkerError::Failed {
            worker: id,
            step: Step::Receive,
            reason: failure,
        })
    }

    /// Runs tests in order, returning one execution per test whatever happens to the JVM.
    pub(crate) fn run(&mut self, tests: &[&TestCase]) -> Vec<Execution> {
        let mut out = Vec::with_capacity(tests.len());
        while out.len() < tests.len() {
            let rest = &tests[out.len()..];
            if let Err(e) = self.start() {
                warn!(worker = self.id.0, error = %e, tests = rest.len(), "no worker JVM for these tests");
                let reason = format!("cannot start a worker: {e}");
                out.extend(rest.iter().map(|t| {
                    Execution::without_result(
                        ExecutionStatus::WorkerCrashed {
                            reason: reason.clone(),
                        },
                        t.len(),
                        Duration::ZERO,
                        Some(self.id),
                    )
                }));
                break;
            }
            let batch = BatchId(self.next_batch);
            self.next_batch = self.next_batch.wrapping_add(1);
            let observing = Arc::clone(&self.observation);
            match encode_batch_observing(batch, rest.iter().copied(), &observing) {
                Ok(frame) => self.run_batch(batch, frame, rest, &mut out),
                Err(e) if rest.len() == 1 => out.push(Execution::without_result(
                    ExecutionStatus::Rejected {
                        reason: format!("cannot send the test: {e}"),
                    },
                    rest[0].len(),
                    Duration::ZERO,
                    None,
                )),
                Err(_) => {
                    let (a, b) = rest.split_at(rest.len() / 2);
                    out.extend(self.run(a));
                    out.extend(self.run(b));
                }
            }
        }
        out
    }

    /// Sends one batch and collects its results until it ends or the JVM has to be replaced;
    /// pushes one execution per test it accounts for (at least one).
    fn run_batch(
        &mut self,
        batch: BatchId,
        frame: Vec<u8>,
        tests: &[&TestCase],
        out: &mut Vec<Execution>,
    ) {
        let id = self.id;
        let configured = self.config.time_limit;
        let mode = self.limit;
        let max_stray = self.config.max_stray_threads;
        let spec = Arc::clone(&self.observation);
        let Some(p) = self.process.as_mut() else {
            return;
        };
        let _span = info_span!(
            "batch",
            worker = id.0,
            pid = p.pid,
            batch = batch.0,
            tests = tests.len()
        )
        .entered();
        debug!("sending batch");
        if p.told != Some((configured, mode)) {
            p.told = Some((configured, mode));
            let _ = p
                .requests
                .send(encode_limits(configured, mode.adapts(), mode.probes()));
        }
        // A closed channel means the writer saw the JVM die; the reader will report how.
        let _ = p.requests.send(frame);
        let mut started = Instant::now();
        let crashed = |reason: String, test: &TestCase, since: Instant| {
            Execution::without_result(
                ExecutionStatus::WorkerCrashed { reason },
                test.len(),
                since.elapsed(),
                Some(id),
            )
        };
        for (index, test) in tests.iter().enumerate() {
            let limit = time_limit(configured, mode.adapts(), p.slowest.get());
            match p.responses.next(started + limit) {
                Event::Frame(Response::Result(r))
                    if r.batch == batch
                        && r.index as usize == index
                        && r.outcomes.len() == test.len() =>
                {
                    started = Instant::now();
                    p.completed += 1;
                    let took = Duration::from_nanos(r.duration_ns);
                    let run = completed(r, id, &spec);
                    // The harness's probes ended it at its deadline: timed out, as if the JVM
                    // had been killed, but it goes on unless the code under test caught that.
                    if let Some(caught) = overrun(&run) {
                        let call = run
                            .exception()
                            .and_then(|(k, _, _)| test.statements.get(k))
                            .and_then(|s| match s {
                                Statement::Call { method, .. } => Some(method.to_string()),
                                Statement::Construct { constructor, .. } => {
                                    Some(constructor.to_string())
                                }
                                _ => None,
                            });
                        debug!(
                            test = index,
                            ?limit,
                            caught,
                            ?call,
                            "test overran its deadline"
                        );
                        out.push(Execution::without_result(
                            ExecutionStatus::TimedOut,
                            test.len(),
                            took,
                            Some(id),
                        ));
                        if caught {
                            self.process = None;
                            return;
                        }
                        continue;
                    }
                    if p.completed > 1 {
                        p.slowest.record(took);
                    }
                    if took > SLOW_TEST {
                        let calls = calls_of(test);
                        trace!(test = index, ?took, ?calls, "slow test");
                    }
                    let stray = run.stray_threads;
                    self.stray = stray;
                    out.push(run);
                    if stray > max_stray {
                        info!(
                            stray,
                            "tests left too many threads running; replacing the worker"
                        );
                        self.process = None;
                        return;
                    }
                }
                Event::Frame(Response::Error { message, .. }) => {
                    debug!(%message, "worker rejected the batch");
                    let reason = format!("the worker could not decode the batch: {message}");
                    out.extend(
                        tests[index..]
                            .iter()
                            .map(|t| crashed(reason.clone(), t, started)),
                    );
                    self.process = None;
                    return;
                }
                Event::Frame(other) => {
                    let reason = format!("protocol error: unexpected {}", describe(&other));
                    debug!(%reason, "replacing the worker");
                    out.push(crashed(reason, test, started));
                    self.process = None;
                    return;
                }
                Event::Corrupt(why) => {
                    debug!(reason = %why, test = index, "worker corrupted the protocol; replacing it");
                    out.push(crashed(why, test, started));
                    self.process = None;
                    return;
                }
                Event::Closed(why) => {
                    let reason = p.death(&why);
                    debug!(%reason, test = index, "worker died; replacing it");
                    out.push(crashed(reason, test, started));
                    self.process = None;
                    return;
                }
                Event::Timeout => {
                    let calls = calls_of(test);
                    debug!(
                        test = index,
                        ?limit,
                        ?calls,
                        "test timed out; replacing the worker"
                    );
                    out.push(Execution::without_result(
                        ExecutionStatus::TimedOut,
                        test.len(),
                        started.elapsed(),
                        Some(id),
                    ));
                    self.process = None;
                    return;
                }
            }
        }
    }
}

/// Did the test overrun its deadline in the harness's probes; if so, did the code under test
/// catch the `Overrun` (the JVM must then be replaced)?
fn overrun(run: &Execution) -> Option<bool> {
    let (_, class, _) = run.exception()?;
    if class.is(OVERRUN_CLASS) {
        Some(false)
    } else if class.is(OVERRUN_CAUGHT_CLASS) {
        Some(true)
    } else {
        None
    }
}

fn describe(r: &Response) -> String {
    match r {
        Response::Ready(_) => "READY".into(),
        Response::Result(t) => format!("RESULT (batch {}, test {})", t.batch.0, t.index),
        Response::Pong(n) => format!("PONG {n}"),
        Response::Error { message, .. } => format!("ERROR {message}"),
    }
}

fn completed(r: TestResult, worker: WorkerId, spec: &ObservationSpec) -> Execution {
    let mut hits: Vec<(ProbeId, u32)> = r
        .probes
        .iter()
        .filter(|p| p.hits > 0)
        .map(|p| (p.probe, p.hits))
        .collect();
    hits.sort_unstable_by_key(|(p, _)| *p);
    hits.dedup_by_key(|(p, _)| *p);
    let covered: Vec<ProbeId> = hits.iter().map(|(p, _)| *p).collect();
    let mut distances: Vec<(ProbeId, f64)> =
        r.probes.iter().map(|p| (p.probe, p.distance)).collect();
    distances.sort_unstable_by_key(|(p, _)| *p);
    distances.dedup_by_key(|(p, _)| *p);
    Execution {
        status: ExecutionStatus::Completed,
        outcomes: r.outcomes,
        covered,
        distances,
        hits,
        duration: Duration::from_nanos(r.duration_ns),
        worker: Some(worker),
        stray_threads: r.stray_threads,
        observations: observations(r.observed, spec),
        snapshots: snapshots(r.snapshots, spec),
        seeds: r.seeds,
    }
}

/// A test slower than this is named in the trace log.
const SLOW_TEST: Duration = Duration::from_millis(20);

/// What a test calls, in order (methods by name, constructors by class): how the debug log
/// names a test that timed out or ran slowly.
fn calls_of(test: &TestCase) -> Vec<String> {
    test.statements
        .iter()
        .filter_map(|s| match s {
            Statement::Call { method, .. } => Some(method.name.clone()),
            Statement::Construct { constructor, .. } => {
                Some(constructor.owner.simple().to_string())
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JDK home with this `release` line, and its `bin/java`.
    fn jdk_with(version: &str) -> (tempfile::TempDir, PathBuf) {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join("bin")).unwrap();
        let java = home.path().join("bin/java");
        std::fs::write(&java, "").unwrap();
        std::fs::write(
            home.path().join("release"),
            format!("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"{version}\"\n"),
        )
        .unwrap();
        (home, java)
    }

    #[test]
    fn only_java_18_to_23_are_asked_to_allow_the_write_watch() {
        for (version, feature, flag) in [
            ("1.8.0_392", Some(8), None),
            ("17.0.13", Some(17), None),
            ("21.0.5", Some(21), Some("-Djava.security.manager=allow")),
            ("23", Some(23), Some("-Djava.security.manager=allow")),
            ("25-ea", Some(25), None),
        ] {
            let (_home, java) = jdk_with(version);
            assert_eq!(java_feature_version(&java), feature, "{version}");
            assert_eq!(security_manager_flag(&java), flag, "{version}");
        }
        assert_eq!(java_feature_version(Path::new("/no/such/java")), None);
    }
}

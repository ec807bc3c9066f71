//! How a pool's workers are started and supervised: Java binary, classpath, JVM flags, limits.

use std::path::PathBuf;
use std::time::Duration;

/// Configuration of a [`crate::WorkerPool`].
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerConfig {
    /// Number of worker JVMs. Default: the number of cores.
    pub workers: usize,
    /// The `java` binary. Default: `$JAVA_HOME/bin/java`, else `java` on PATH.
    pub java: PathBuf,
    /// The user classpath, in order; the per-run cache of instrumented classes comes first.
    pub classpath: Vec<PathBuf>,
    /// `-Xmx` of each worker, in MiB. Default 512.
    pub max_heap_mb: u32,
    /// `-Xss` of each worker (the thread running tests included), in KiB. Default 2048.
    pub thread_stack_kb: u32,
    /// JVM flags tuned for throughput; replace them to experiment. Default
    /// `-XX:+UseSerialGC -XX:TieredStopAtLevel=1` (measured by `benches/throughput.rs`).
    pub tuning_flags: Vec<String>,
    /// Further JVM arguments (system properties, agents), after the tuning flags.
    pub extra_jvm_args: Vec<String>,
    /// Per-test time limit, enforced from Rust. Default 1 s.
    pub time_limit: Duration,
    /// How long a new worker may take to say it is ready. Default 60 s.
    pub startup_timeout: Duration,
    /// Most tests sent to a worker in one batch. Default 1,000.
    pub max_batch: usize,
    /// A worker whose tests have left more threads running than this is replaced after the
    /// test. Default 16.
    pub max_stray_threads: u32,
    /// Where workers' temporary directories are created. Default: the system temp dir.
    pub temp_root: Option<PathBuf>,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            java: default_java(),
            classpath: Vec::new(),
            max_heap_mb: 512,
            thread_stack_kb: 2048,
            tuning_flags: ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
                .map(String::from)
                .to_vec(),
            extra_jvm_args: Vec::new(),
            time_limit: Duration::from_secs(1),
            startup_timeout: Duration::from_secs(60),
            max_batch: 1000,
            max_stray_threads: 4,
            temp_root: None,
        }
    }
}

impl WorkerConfig {
    /// The default configuration with the given classpath.
    pub fn with_classpath(classpath: impl IntoIterator<Item = impl Into<PathBuf>>) -> Self {
        WorkerConfig {
            classpath: classpath.into_iter().map(Into::into).collect(),
            ..WorkerConfig::default()
        }
    }
}

/// `$JAVA_HOME/bin/java` when it exists, else `java` (looked up on PATH when spawned).
pub fn default_java() -> PathBuf {
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        let java = PathBuf::from(home).join("bin/java");
        if java.is_file() {
            return java;
        }
    }
    PathBuf::from("java")
}

//! Shared helpers of the worker tests: compiled fixtures, a builder for test cases, pools.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use rivet_testcase::{MemberRef, PrimitiveValue, Statement, StatementId, TestCase};
use rivet_testkit::Jdk;
use rivet_worker::{WorkerConfig, WorkerPool};

/// The fixtures in tests/fixtures compiled with `--release 8` (once per test binary, in its own
/// directory so that binaries running at the same time do not race), and the subjects.
pub fn fixtures() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let exe = std::env::current_exe().expect("test binary path");
        let name = exe
            .file_name()
            .expect("test binary name")
            .to_string_lossy()
            .to_string();
        let out = rivet_testkit::cache_dir().join(format!("worker-fixtures-{name}"));
        let runtime = manifest.join("../rivet-instrument/java");
        let sources = vec![
            manifest.join("tests/fixtures/fixtures/Values.java"),
            manifest.join("tests/fixtures/fixtures/Gauge.java"),
            manifest.join("tests/fixtures/fixtures/Loops.java"),
        ];
        rivet_testkit::javac(
            Jdk::Jdk17,
            8,
            &runtime.display().to_string(),
            &sources,
            &out,
        );
        out
    })
    .clone()
}

pub fn subjects() -> PathBuf {
    rivet_testkit::compiled_subjects(11)
}

/// A configuration over the fixtures and the subjects.
pub fn config(workers: usize, time_limit: Duration) -> WorkerConfig {
    WorkerConfig {
        workers,
        time_limit,
        max_heap_mb: 128,
        classpath: vec![fixtures(), subjects()],
        ..WorkerConfig::default()
    }
}

pub fn pool(workers: usize, time_limit: Duration) -> WorkerPool {
    WorkerPool::new(&config(workers, time_limit)).expect("pool starts")
}

/// Builds a test case statement by statement.
#[derive(Default)]
pub struct Builder {
    pub test: TestCase,
}

impl Builder {
    pub fn new() -> Self {
        Builder::default()
    }
    pub fn build(self) -> TestCase {
        self.test
    }
    pub fn prim(&mut self, v: PrimitiveValue) -> StatementId {
        self.test.push(Statement::Primitive(v))
    }
    pub fn int(&mut self, v: i32) -> StatementId {
        self.prim(PrimitiveValue::Int(v))
    }
    pub fn string(&mut self, s: &str) -> StatementId {
        self.test.push(Statement::String(s.to_string()))
    }
    pub fn null(&mut self, descriptor: &str) -> StatementId {
        self.test.push(Statement::Null {
            descriptor: descriptor.to_string(),
        })
    }
    pub fn array(&mut self, component: &str, elements: &[StatementId]) -> StatementId {
        self.test.push(Statement::Array {
            component: component.to_string(),
            elements: elements.to_vec(),
        })
    }
    pub fn new_object(
        &mut self,
        owner: &str,
        descriptor: &str,
        args: &[StatementId],
    ) -> StatementId {
        self.test.push(Statement::Construct {
            constructor: MemberRef::new(owner, "<init>", descriptor),
            args: args.to_vec(),
        })
    }
    pub fn call(
        &mut self,
        owner: &str,
        name: &str,
        descriptor: &str,
        receiver: Option<StatementId>,
        args: &[StatementId],
    ) -> StatementId {
        self.test.push(Statement::Call {
            method: MemberRef::new(owner, name, descriptor),
            receiver,
            args: args.to_vec(),
        })
    }
    /// A static call on fixtures/Values.
    pub fn values(&mut self, name: &str, descriptor: &str, args: &[StatementId]) -> StatementId {
        self.call("fixtures/Values", name, descriptor, None, args)
    }
    pub fn write(
        &mut self,
        owner: &str,
        name: &str,
        descriptor: &str,
        receiver: Option<StatementId>,
        value: StatementId,
    ) -> StatementId {
        self.test.push(Statement::FieldWrite {
            field: MemberRef::new(owner, name, descriptor),
            receiver,
            value,
        })
    }
}

/// A one-statement-call test on hostile.Hostile: `new Hostile().name(arg)`.
pub fn hostile(name: &str, descriptor: &str, arg: PrimitiveValue) -> TestCase {
    let mut b = Builder::new();
    let h = b.new_object("hostile/Hostile", "()V", &[]);
    let a = b.prim(arg);
    b.call("hostile/Hostile", name, descriptor, Some(h), &[a]);
    b.build()
}

/// A quick test that must complete: `new Hostile().count(5)` returns 1.
pub fn harmless() -> TestCase {
    hostile("count", "(I)I", PrimitiveValue::Int(5))
}

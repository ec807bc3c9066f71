//! The confinement on real processes: writes, executions, TCP connects and signals outside
//! what a `Confinement` allows are refused by the kernel. The machines of this project offer
//! Landlock ABI 7, so these tests require full enforcement; on a kernel without it, set
//! `RIVET_SANDBOX_OPTIONAL=1` and they check only what still holds.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use rivet_sandbox::{Confinement, Enforcement};

fn shell_confinement(writable: &Path) -> Confinement {
    let mut executable: Vec<PathBuf> = ["/bin", "/usr/bin", "/lib", "/lib64", "/usr/lib"]
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect();
    executable.sort();
    Confinement {
        writable: vec![writable.to_path_buf()],
        executable,
    }
}

/// Runs `script` under bash confined to `allowed`; its exit status code.
fn confined(allowed: &Path, script: &str) -> i32 {
    let mut cmd = Command::new("/bin/bash");
    cmd.arg("-c")
        .arg(script)
        .stderr(std::process::Stdio::null());
    shell_confinement(allowed)
        .spawn(&mut cmd)
        .expect("bash starts confined")
        .wait()
        .expect("bash runs")
        .code()
        .unwrap_or(-1)
}

static FORK_HANDLERS_RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

extern "C" fn count_fork() {
    FORK_HANDLERS_RUN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn a_confined_child_is_spawned_without_fork_and_rivet_stays_unconfined() {
    // Z3's fork handler deadlocks while another thread is in a Z3 check: no fork handler may
    // run when a confined JVM starts.
    // SAFETY: registers a handler that only increments an atomic counter.
    let registered = unsafe { libc::pthread_atfork(Some(count_fork), None, None) };
    assert_eq!(registered, 0);
    let root = tempfile::tempdir().expect("temp dir");
    let allowed = root.path().join("allowed");
    std::fs::create_dir_all(&allowed).expect("dir");
    let outside = root.path().join("outside");
    let code = confined(&allowed, &format!("touch {}", outside.display()));
    assert_eq!(
        FORK_HANDLERS_RUN.load(std::sync::atomic::Ordering::SeqCst),
        0
    );
    if full() {
        assert_ne!(code, 0, "the child wrote outside its directory");
        assert!(!outside.exists());
    }
    // The confinement stayed with the child and its thread: this process still writes there.
    std::fs::write(&outside, "x").expect("the test process is not confined");
}

fn full() -> bool {
    let optional = std::env::var_os("RIVET_SANDBOX_OPTIONAL").is_some();
    let full = Enforcement::available() == Enforcement::Full;
    assert!(
        full || optional,
        "this kernel does not fully enforce Landlock"
    );
    full
}

#[test]
fn writes_only_beneath_the_writable_directory() {
    let root = tempfile::tempdir().expect("temp dir");
    let allowed = root.path().join("allowed");
    let other = root.path().join("other");
    std::fs::create_dir_all(&allowed).expect("dir");
    std::fs::create_dir_all(&other).expect("dir");
    std::fs::write(other.join("keep"), "x").expect("file");
    let inside = format!(
        "echo hi > {}/a && mkdir {}/d",
        allowed.display(),
        allowed.display()
    );
    assert_eq!(confined(&allowed, &inside), 0);
    assert!(allowed.join("a").exists() && allowed.join("d").is_dir());
    let outside = format!("echo hi > {}/b", other.display());
    let delete = format!("rm {}/keep", other.display());
    if full() {
        assert_ne!(confined(&allowed, &outside), 0);
        assert_ne!(confined(&allowed, &delete), 0);
        assert!(!other.join("b").exists());
        assert!(other.join("keep").exists());
    }
}

#[test]
fn programs_outside_the_executable_directories_do_not_start() {
    let root = tempfile::tempdir().expect("temp dir");
    let copy = root.path().join("true");
    std::fs::copy("/bin/true", &copy).expect("copy of true");
    let script = format!("{}", copy.display());
    let code = confined(root.path(), &script);
    if full() {
        assert_eq!(code, 126, "a copied program must not be executable");
    }
    // Still allowed from the executable directories.
    assert_eq!(confined(root.path(), "/bin/true"), 0);
}

#[test]
fn tcp_connects_are_refused() {
    let root = tempfile::tempdir().expect("temp dir");
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let code = confined(root.path(), &format!("echo x > /dev/tcp/127.0.0.1/{port}"));
    if full() {
        assert_ne!(code, 0);
        assert!(listener.accept().is_err(), "nothing may have connected");
    }
}

#[test]
fn signals_to_outside_processes_are_refused() {
    let root = tempfile::tempdir().expect("temp dir");
    let me = std::process::id();
    // Signal 0 only checks permission: it can never hurt this test process.
    let code = confined(root.path(), &format!("kill -0 {me}"));
    if full() {
        assert_ne!(code, 0);
    }
    // Its own process is still fine.
    assert_eq!(confined(root.path(), "kill -0 $$"), 0);
}

#[test]
fn this_machine_reports_its_enforcement() {
    // The CI machines of this project offer Landlock ABI 7; say clearly when one does not.
    let e = Enforcement::available();
    assert_eq!(e.warning().is_none(), e == Enforcement::Full);
}

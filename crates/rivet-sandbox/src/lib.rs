//! Confinement of the JVMs that run code under test (Linux Landlock): a `Confinement` names
//! the directories a child may write beneath and the ones it may execute from, and is applied
//! to a `std::process::Command` so that the child is confined from its first instruction on.
//!
//! What a confined child cannot do: create, write, truncate, rename or delete anything outside
//! its writable directories; execute any file outside the executable directories (so no `sh`,
//! no other program); bind or connect TCP sockets; send signals to, or connect to abstract
//! Unix sockets of, processes outside its own Landlock domain (so it cannot kill Rivet).
//! Reading stays allowed everywhere. Where the kernel lacks Landlock (or some of its
//! features), the confinement is applied as far as the kernel goes and [`Enforcement`] says
//! so; the caller reports it once and goes on with Rivet's own interception.
//!
//! This crate starts no process: it only prepares one that the worker or verifier starts.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use landlock::{
    AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

/// The Landlock ABI Rivet asks for: filesystem (with truncate), TCP and scopes.
const TARGET_ABI: ABI = ABI::V6;

/// Errors preparing a confinement; each names the path or step it concerns.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot open {path} for the sandbox rules: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: landlock::PathFdError,
    },
    #[error("cannot add a sandbox rule for {path}: {source}")]
    Path {
        path: PathBuf,
        #[source]
        source: landlock::RulesetError,
    },
    #[error("cannot build the Landlock ruleset: {0}")]
    Ruleset(#[from] landlock::RulesetError),
}

/// How much of the confinement this kernel enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enforcement {
    /// Every restriction is enforced.
    Full,
    /// Some restrictions are enforced (an older Landlock ABI).
    Partial,
    /// Landlock is not available: only Rivet's interception protects the machine.
    None,
}

impl Enforcement {
    /// What this kernel offers, found by building (not applying) a full ruleset.
    pub fn available() -> Enforcement {
        match kernel_abi() {
            v if v <= 0 => Enforcement::None,
            v if v >= TARGET_ABI as i64 => Enforcement::Full,
            _ => Enforcement::Partial,
        }
    }

    /// A sentence for the user when the confinement is not complete, else None.
    pub fn warning(self) -> Option<&'static str> {
        match self {
            Enforcement::Full => None,
            Enforcement::Partial => Some(
                "this kernel's Landlock is older than ABI 6: workers are confined only in part \
                 (files always; TCP and signals only where the kernel has them)",
            ),
            Enforcement::None => Some(
                "Landlock is not available on this kernel: workers are not confined by the OS, \
                 only by Rivet's interception of file, network and process calls",
            ),
        }
    }
}

/// The kernel's Landlock ABI version, or 0 (or less) without Landlock.
fn kernel_abi() -> i64 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute and size 0 this call only returns the ABI version.
    unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    }
}

/// What a confined child may touch besides reading.
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    /// Directories (or files) beneath which the child may create, write and delete.
    pub writable: Vec<PathBuf>,
    /// Directories beneath which the child may execute files (the JDK, the dynamic loader).
    pub executable: Vec<PathBuf>,
}

impl Confinement {
    /// A confinement for a JVM from `java_home` writing only beneath `writable`.
    pub fn for_jvm(java: &Path, writable: Vec<PathBuf>) -> Confinement {
        let mut executable = vec![java_home(java)];
        // The ELF interpreter and shared libraries are opened for execution on execve.
        for lib in ["/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/libexec"] {
            let p = PathBuf::from(lib);
            if p.exists() {
                executable.push(p);
            }
        }
        Confinement {
            writable,
            executable,
        }
    }

    /// Prepares the ruleset now and installs it into `cmd`: the child confines itself after
    /// the fork, before it executes the program. Returns how much the kernel enforces.
    pub fn apply(&self, cmd: &mut Command) -> Result<Enforcement, SandboxError> {
        let enforcement = Enforcement::available();
        if enforcement == Enforcement::None {
            return Ok(enforcement);
        }
        let ruleset = self.ruleset()?;
        let mut pending: Option<RulesetCreated> = Some(ruleset);
        // SAFETY: the closure runs in the forked child before exec; it only makes the prctl
        // and landlock_restrict_self system calls on a ruleset built in the parent, and
        // allocates nothing on success.
        unsafe {
            cmd.pre_exec(move || {
                if let Some(r) = pending.take() {
                    match r.restrict_self() {
                        Ok(status) if status.ruleset != RulesetStatus::NotEnforced => {}
                        Ok(_) => {
                            return Err(std::io::Error::other("Landlock was not enforced"));
                        }
                        Err(_) => {
                            return Err(std::io::Error::other("landlock_restrict_self failed"));
                        }
                    }
                }
                Ok(())
            });
        }
        Ok(enforcement)
    }

    fn ruleset(&self) -> Result<RulesetCreated, SandboxError> {
        let abi = TARGET_ABI;
        let write = AccessFs::from_write(abi) & !AccessFs::IoctlDev;
        let mut created = Ruleset::default()
            .handle_access(write | AccessFs::Execute)?
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
            .scope(Scope::Signal | Scope::AbstractUnixSocket)?
            .create()?;
        for dir in &self.writable {
            created = add(created, dir, write)?;
        }
        for dir in &self.executable {
            created = add(created, dir, AccessFs::Execute.into())?;
        }
        // Writing to /dev/null is harmless and some code expects it.
        created = add(created, Path::new("/dev/null"), AccessFs::WriteFile.into())?;
        Ok(created)
    }
}

fn add(
    created: RulesetCreated,
    path: &Path,
    access: landlock::BitFlags<AccessFs>,
) -> Result<RulesetCreated, SandboxError> {
    let fd = PathFd::new(path).map_err(|source| SandboxError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    // A rule on a file may only carry file rights.
    let access = if path.is_dir() {
        access
    } else {
        access & AccessFs::from_file(TARGET_ABI)
    };
    created
        .add_rule(PathBeneath::new(fd, access))
        .map_err(|e| SandboxError::Path {
            path: path.to_path_buf(),
            source: e,
        })
}

/// The JDK directory of a `java` or `javac` executable (`…/bin/java` → `…`), following links.
pub fn java_home(java: &Path) -> PathBuf {
    let resolved = which(java).unwrap_or_else(|| java.to_path_buf());
    let resolved = std::fs::canonicalize(&resolved).unwrap_or(resolved);
    resolved
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or(resolved)
}

fn which(program: &Path) -> Option<PathBuf> {
    if program.components().count() > 1 {
        return Some(program.to_path_buf());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

//! Confinement of the JVMs that run code under test (Linux Landlock): a `Confinement` names
//! the directories a child may write beneath and the ones it may execute from, and spawns a
//! `std::process::Command` confined from its first instruction on.
//!
//! What a confined child cannot do: create, write, truncate, rename or delete anything outside
//! its writable directories; execute any file outside the executable directories (so no `sh`,
//! no other program); bind or connect TCP sockets; send signals to, or connect to abstract
//! Unix sockets of, processes outside its own Landlock domain (so it cannot kill Rivet).
//! Reading stays allowed everywhere. Where the kernel lacks Landlock (or some of its
//! features), the confinement is applied as far as the kernel goes and [`Enforcement`] says
//! so; the caller reports it once and goes on with Rivet's own interception.
//!
//! The child is not forked: a short-lived thread confines itself (Landlock applies to the
//! calling thread and what it starts, not to the rest of the process) and spawns the program,
//! which std does with `posix_spawn` when no `pre_exec` hook is set. So no library's fork
//! handlers run: Z3 4.8's (`scoped_timer::finalize`) wait for its timer threads and deadlock
//! when another thread of Rivet is in a Z3 check at the time, as it is when classes run side by
//! side. This crate spawns only the commands the worker and the verifier give it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

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
    #[error("cannot confine {program}: {source}")]
    Restrict {
        program: PathBuf,
        #[source]
        source: landlock::RulesetError,
    },
    #[error("Landlock was not enforced for {program}")]
    NotEnforced { program: PathBuf },
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
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

    /// Starts `cmd` confined (as far as the kernel goes: [`Enforcement::available`]). The
    /// ruleset is built here; a thread of its own confines itself and starts the program,
    /// which inherits the confinement, without a fork (see the crate's notes).
    pub fn spawn(&self, cmd: &mut Command) -> Result<Child, SandboxError> {
        let program = PathBuf::from(cmd.get_program());
        let spawn_error = |source| SandboxError::Spawn {
            program: program.clone(),
            source,
        };
        if Enforcement::available() == Enforcement::None {
            return cmd.spawn().map_err(spawn_error);
        }
        let ruleset = self.ruleset()?;
        std::thread::scope(|scope| {
            let confined = scope.spawn(|| {
                // Irreversible for this thread, which ends once the child has started.
                match ruleset.restrict_self() {
                    Ok(status) if status.ruleset != RulesetStatus::NotEnforced => {}
                    Ok(_) => {
                        return Err(SandboxError::NotEnforced {
                            program: program.clone(),
                        })
                    }
                    Err(source) => {
                        return Err(SandboxError::Restrict {
                            program: program.clone(),
                            source,
                        })
                    }
                }
                cmd.spawn().map_err(spawn_error)
            });
            confined.join().unwrap_or_else(|_| {
                Err(spawn_error(std::io::Error::other(
                    "the confining thread panicked",
                )))
            })
        })
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

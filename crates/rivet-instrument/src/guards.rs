//! The bytecode guards (distinct from the OS sandbox, `rivet-sandbox`): interception of the
//! calls from the code under test into the JDK that reach outside the sandbox: changes to
//! files outside `java.io.tmpdir`, sockets, URL connections, process starts and signals. Each
//! such call site is sent through the runtime's `Sandbox`, which refuses with `SandboxRefused`
//! (and remembers it for the worker) or lets the call go on.
//!
//! Three kinds of rewriting, all leaving the stack as the original call expects it:
//!
//! ```text
//! invokestatic  Files.write(Path,[B,[OpenOption)     ->  invokestatic Sandbox.filesWrite(same)
//! invokevirtual File.delete()Z                       ->  invokestatic Sandbox.fileDelete(File)Z
//! new FileOutputStream; dup; aload p; iconst_1;
//!   invokespecial <init>(String,Z)V                  ->  … aload p; iconst_1; dup2; pop;
//!                                                        invokestatic Sandbox.checkWrite(Object)V;
//!                                                        invokespecial <init>(String,Z)V
//! invokevirtual Socket.connect(SocketAddress)V       ->  ldc "connect a socket";
//!                                                        invokestatic Sandbox.deny(String)V; …
//! ```
//!
//! Wrappers keep the instruction's size (both invokes are three bytes), so they are patched in
//! place; checks and denials are inserted before the call with the code editor. Method handle
//! constants that name a wrapped method (`ProcessHandle::destroyForcibly` in a lambda) are
//! pointed at the wrapper. What is not intercepted here is still stopped by the OS
//! confinement of the worker (rivet-sandbox); this layer is what tells Rivet that a test
//! tried, so that such a test is never emitted.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use rivet_classfile::{
    ClassFile, CodeEditor, Constant, ConstantPool, FieldType, Instruction, Item, MethodDescriptor,
    Opcode, Operand, WriteError,
};

use crate::runtime::{runtime_classes, SANDBOX_CLASS};

/// What to do at one call site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guard {
    /// Call the static `Sandbox.<name>` instead (the receiver becomes the first parameter).
    Wrap(&'static str),
    /// First `Sandbox.checkWrite(Object)` on the value `depth` places below the stack top.
    CheckWrite { depth: usize },
    /// First `Sandbox.checkRandomAccess(Object, String)` on the two top values.
    CheckRandomAccess,
    /// First `Sandbox.checkUrl(URL)` on the value `depth` places below the top.
    CheckUrl { depth: usize },
    /// First `Sandbox.checkConnection(URLConnection)` on the top value.
    CheckConnection,
    /// Never allowed: `Sandbox.deny(what)` before the call.
    Deny(&'static str),
}

/// How many call sites of a class were guarded, and in how many methods the guards could
/// not be inserted (those are left to the OS confinement).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GuardOutcome {
    pub sites: usize,
    pub failed_methods: usize,
}

const FILES: &str = "java/nio/file/Files";
const FILE: &str = "java/io/File";

/// Names of `Files` methods that change the file system at their first parameter.
const FILES_WRITING_FIRST: &[&str] = &[
    "write",
    "writeString",
    "newOutputStream",
    "newBufferedWriter",
    "createFile",
    "createDirectory",
    "createDirectories",
    "createLink",
    "createSymbolicLink",
    "delete",
    "deleteIfExists",
    "setLastModifiedTime",
    "setPosixFilePermissions",
    "setOwner",
    "setAttribute",
];

/// Names of `File` methods that change the file system at the receiver.
const FILE_WRITING: &[&str] = &[
    "delete",
    "deleteOnExit",
    "mkdir",
    "mkdirs",
    "createNewFile",
    "renameTo",
    "setLastModified",
    "setReadOnly",
    "setWritable",
    "setReadable",
    "setExecutable",
];

/// The wrappers `Sandbox` has: (name, descriptor), read from the embedded runtime class.
fn wrappers() -> &'static BTreeSet<(String, String)> {
    static WRAPPERS: OnceLock<BTreeSet<(String, String)>> = OnceLock::new();
    WRAPPERS.get_or_init(|| {
        let mut set = BTreeSet::new();
        let bytes = runtime_classes()
            .iter()
            .find(|(name, _)| *name == SANDBOX_CLASS)
            .map(|(_, b)| *b);
        if let Some(cf) = bytes.and_then(|b| ClassFile::parse(b).ok()) {
            for m in &cf.methods {
                if let (Ok(n), Ok(d)) = (cf.member_name(m), cf.member_descriptor(m)) {
                    set.insert((n.to_string(), d.to_string()));
                }
            }
        }
        set
    })
}

/// `fileDelete` for (`file`, `delete`).
fn wrapper_name(prefix: &str, name: &str) -> String {
    let mut out = prefix.to_string();
    let mut chars = name.chars();
    if let Some(c) = chars.next() {
        out.extend(c.to_uppercase());
        out.push_str(chars.as_str());
    }
    out
}

/// The descriptor of a static wrapper of `owner.name(descriptor)` called with `opcode`.
fn wrapper_descriptor(opcode: Opcode, owner: &str, descriptor: &str) -> String {
    if opcode == Opcode::INVOKESTATIC {
        descriptor.to_string()
    } else {
        format!("(L{owner};{}", descriptor.trim_start_matches('('))
    }
}

/// A wrapper of that name and descriptor, as a static string from the wrapper set.
fn existing_wrapper(name: &str, descriptor: &str) -> Option<&'static str> {
    wrappers()
        .get(&(name.to_string(), descriptor.to_string()))
        .map(|(n, _)| n.as_str())
}

/// Values on the stack for the call, top last: receiver (unless static or a constructor's
/// uninitialized one, which is not a parameter) and parameters; None for a bad descriptor.
fn stack_values(opcode: Opcode, name: &str, descriptor: &str) -> Option<Vec<bool>> {
    let d = MethodDescriptor::parse(descriptor).ok()?;
    let mut wide = Vec::with_capacity(d.params.len() + 1);
    if opcode != Opcode::INVOKESTATIC && name != "<init>" {
        wide.push(false);
    }
    wide.extend(
        d.params
            .iter()
            .map(|p| matches!(p, FieldType::Long | FieldType::Double)),
    );
    Some(wide)
}

/// The depth (0 = top) of stack value `index`, when it and everything above it take one slot
/// and it is at most two below the top (what the copy sequences handle).
fn copyable_depth(values: &[bool], index: usize) -> Option<usize> {
    if index >= values.len() || values[index..].iter().any(|&w| w) {
        return None;
    }
    let depth = values.len() - 1 - index;
    (depth <= 2).then_some(depth)
}

/// The guard for a call of `owner.name(descriptor)` with `opcode`, if any.
pub(crate) fn guard(opcode: Opcode, owner: &str, name: &str, descriptor: &str) -> Option<Guard> {
    let values = stack_values(opcode, name, descriptor)?;
    let first_param = if opcode == Opcode::INVOKESTATIC || name == "<init>" {
        0
    } else {
        1
    };
    let check_first_or_deny = |what| match copyable_depth(&values, first_param) {
        Some(depth) => Guard::CheckWrite { depth },
        None => Guard::Deny(what),
    };
    let virtual_call = opcode == Opcode::INVOKEVIRTUAL || opcode == Opcode::INVOKEINTERFACE;
    let wrap = |prefix: &str| -> Option<Guard> {
        if opcode != Opcode::INVOKESTATIC && opcode != Opcode::INVOKEVIRTUAL {
            return None;
        }
        let w = wrapper_name(prefix, name);
        existing_wrapper(&w, &wrapper_descriptor(opcode, owner, descriptor)).map(Guard::Wrap)
    };
    let g = match (owner, name) {
        (FILES, n) if opcode == Opcode::INVOKESTATIC => {
            if let Some(g) = wrap("files") {
                g
            } else if FILES_WRITING_FIRST.contains(&n) {
                check_first_or_deny("change a file")
            } else if (n == "copy" || n == "move") && descriptor.contains(";Ljava/nio/file/Path;") {
                Guard::Deny("copy or move a file")
            } else {
                return None;
            }
        }
        (FILE, n) if FILE_WRITING.contains(&n) => match wrap("file") {
            Some(g) => g,
            // super.delete() in a subclass: check the receiver when it is reachable.
            None => match copyable_depth(&values, 0) {
                Some(depth) => Guard::CheckWrite { depth },
                None => return None,
            },
        },
        ("java/nio/channels/FileChannel", "open") if opcode == Opcode::INVOKESTATIC => {
            wrap("fileChannel")?
        }
        ("java/nio/file/spi/FileSystemProvider", _) if opcode == Opcode::INVOKEVIRTUAL => {
            wrap("provider")?
        }
        (FILE, "createTempFile") if descriptor.contains("Ljava/io/File;)") => {
            Guard::CheckWrite { depth: 0 }
        }
        (
            "java/io/FileOutputStream"
            | "java/io/FileWriter"
            | "java/io/PrintWriter"
            | "java/io/PrintStream",
            "<init>",
        ) if descriptor.starts_with("(Ljava/lang/String;")
            || descriptor.starts_with("(Ljava/io/File;") =>
        {
            check_first_or_deny("write a file")
        }
        ("java/io/RandomAccessFile", "<init>") if values.len() == 2 => Guard::CheckRandomAccess,
        ("java/net/Socket" | "javax/net/ssl/SSLSocket", "<init>") => {
            if descriptor == "()V" || descriptor == "(Ljava/net/Proxy;)V" {
                return None;
            }
            Guard::Deny("connect a socket")
        }
        ("java/net/ServerSocket" | "javax/net/ssl/SSLServerSocket", "<init>") => {
            if descriptor == "()V" {
                return None;
            }
            Guard::Deny("listen on a port")
        }
        ("java/net/DatagramSocket" | "java/net/MulticastSocket", "<init>") => {
            Guard::Deny("open a datagram socket")
        }
        ("java/net/Socket" | "javax/net/ssl/SSLSocket", "connect" | "bind") if virtual_call => {
            Guard::Deny("connect a socket")
        }
        ("java/net/ServerSocket" | "javax/net/ssl/SSLServerSocket", "bind") if virtual_call => {
            Guard::Deny("listen on a port")
        }
        (
            "java/net/DatagramSocket" | "java/net/MulticastSocket",
            "connect" | "send" | "bind" | "joinGroup",
        ) if virtual_call => Guard::Deny("use a datagram socket"),
        ("java/nio/channels/SocketChannel", "open")
            if descriptor != "()Ljava/nio/channels/SocketChannel;" =>
        {
            Guard::Deny("connect a socket")
        }
        (
            "java/nio/channels/SocketChannel"
            | "java/nio/channels/ServerSocketChannel"
            | "java/nio/channels/DatagramChannel"
            | "java/nio/channels/AsynchronousSocketChannel"
            | "java/nio/channels/AsynchronousServerSocketChannel",
            "connect" | "bind" | "send",
        ) if virtual_call => Guard::Deny("connect or bind a socket channel"),
        ("java/net/URL", "openConnection" | "openStream") if virtual_call => {
            match copyable_depth(&values, 0) {
                Some(depth) => Guard::CheckUrl { depth },
                None => Guard::Deny("open a URL"),
            }
        }
        (
            "java/net/URLConnection"
            | "java/net/HttpURLConnection"
            | "javax/net/ssl/HttpsURLConnection",
            "connect" | "getInputStream" | "getOutputStream" | "getContent" | "getResponseCode",
        ) if virtual_call && values.len() == 1 => Guard::CheckConnection,
        ("java/net/http/HttpClient", "send" | "sendAsync") => Guard::Deny("send an HTTP request"),
        ("java/lang/ProcessBuilder", "start") => {
            wrap("processBuilder").unwrap_or(Guard::Deny("start a process"))
        }
        ("java/lang/ProcessBuilder", "startPipeline") => Guard::Deny("start a process"),
        ("java/lang/Runtime", "exec") => Guard::Deny("start a process"),
        ("java/lang/ProcessHandle", "destroy" | "destroyForcibly") => {
            Guard::Deny("signal a process")
        }
        ("java/lang/Process", "destroy" | "destroyForcibly") => {
            wrap("process").unwrap_or(Guard::Deny("signal a process"))
        }
        ("sun/misc/Signal" | "jdk/internal/misc/Signal", "raise") => Guard::Deny("raise a signal"),
        _ => return None,
    };
    Some(g)
}

/// Guards every intercepted call site of `cf` and points method handle constants of
/// intercepted methods at their wrappers.
pub fn guard_calls(cf: &mut ClassFile) -> GuardOutcome {
    let mut outcome = GuardOutcome {
        sites: guard_method_handles(&mut cf.constant_pool),
        ..GuardOutcome::default()
    };
    for mi in 0..cf.methods.len() {
        let Some(code) = cf.methods[mi].code() else {
            continue;
        };
        let mut patches = Vec::new();
        let mut inserts = Vec::new();
        for (ii, x) in code.instructions.iter().enumerate() {
            let invoke = matches!(
                x.opcode,
                Opcode::INVOKESTATIC
                    | Opcode::INVOKEVIRTUAL
                    | Opcode::INVOKESPECIAL
                    | Opcode::INVOKEINTERFACE
            );
            let Operand::Constant(index) = x.operand else {
                continue;
            };
            if !invoke {
                continue;
            }
            let Ok(r) = cf.constant_pool.member_ref(index) else {
                continue;
            };
            match guard(x.opcode, r.owner, r.name, r.descriptor) {
                Some(Guard::Wrap(w)) => {
                    let d = wrapper_descriptor(x.opcode, r.owner, r.descriptor);
                    patches.push((ii, w, d));
                }
                Some(g) => inserts.push((x.offset, g)),
                None => {}
            }
        }
        for (ii, w, d) in patches {
            let target = cf
                .constant_pool
                .intern_method_ref(SANDBOX_CLASS, w, &d, false);
            if let Some(x) = cf.methods[mi]
                .code_mut()
                .and_then(|c| c.instructions.get_mut(ii))
            {
                x.opcode = Opcode::INVOKESTATIC;
                x.operand = Operand::Constant(target);
                outcome.sites += 1;
            }
        }
        if inserts.is_empty() {
            continue;
        }
        let n = inserts.len();
        let edited = cf.edit_code(mi, |ed, cp| {
            insert_checks(ed, cp, &inserts);
            Ok::<(), WriteError>(())
        });
        match edited {
            Ok(()) => outcome.sites += n,
            Err(e) => {
                tracing::debug!(error = %e, "sandbox checks not inserted");
                outcome.failed_methods += 1;
            }
        }
    }
    outcome
}

fn insert_checks(ed: &mut CodeEditor, cp: &mut ConstantPool, inserts: &[(u32, Guard)]) {
    let call = |cp: &mut ConstantPool, name: &str, descriptor: &str| {
        let m = cp.intern_method_ref(SANDBOX_CLASS, name, descriptor, false);
        insn(Opcode::INVOKESTATIC, Operand::Constant(m))
    };
    for &(offset, g) in inserts {
        let mut items = Vec::new();
        match g {
            Guard::CheckWrite { depth } => {
                items.extend(copy_from(depth));
                items.push(call(cp, "checkWrite", "(Ljava/lang/Object;)V"));
            }
            Guard::CheckRandomAccess => {
                items.push(insn(Opcode::DUP2, Operand::None));
                items.push(call(
                    cp,
                    "checkRandomAccess",
                    "(Ljava/lang/Object;Ljava/lang/String;)V",
                ));
            }
            Guard::CheckUrl { depth } => {
                items.extend(copy_from(depth));
                items.push(call(cp, "checkUrl", "(Ljava/net/URL;)V"));
            }
            Guard::CheckConnection => {
                items.push(insn(Opcode::DUP, Operand::None));
                items.push(call(cp, "checkConnection", "(Ljava/net/URLConnection;)V"));
            }
            Guard::Deny(what) => {
                let s = cp.intern_string(what);
                items.push(insn(Opcode::LDC, Operand::Constant(s)));
                items.push(call(cp, "deny", "(Ljava/lang/String;)V"));
            }
            Guard::Wrap(_) => continue,
        }
        ed.insert_before(offset, items);
    }
    ed.add_max_stack(3);
}

/// Instructions that push a copy of the one-slot value `depth` places below the top, when
/// it and the values above it all take one slot.
fn copy_from(depth: usize) -> Vec<Item> {
    let ops: &[Opcode] = match depth {
        0 => &[Opcode::DUP],
        1 => &[Opcode::DUP2, Opcode::POP],
        _ => &[Opcode::DUP2_X1, Opcode::POP2, Opcode::DUP_X2],
    };
    ops.iter().map(|&op| insn(op, Operand::None)).collect()
}

fn insn(opcode: Opcode, operand: Operand) -> Item {
    Item::Insn(Instruction::new(opcode, operand))
}

/// Points `CONSTANT_MethodHandle`s of wrapped methods (and of `ProcessHandle.destroy*`) at
/// static wrappers; returns how many.
fn guard_method_handles(cp: &mut ConstantPool) -> usize {
    const REF_INVOKE_VIRTUAL: u8 = 5;
    const REF_INVOKE_STATIC: u8 = 6;
    const REF_INVOKE_INTERFACE: u8 = 9;
    let mut changes = Vec::new();
    for (i, c) in cp.entries().iter().enumerate() {
        let Constant::MethodHandle { kind, reference } = *c else {
            continue;
        };
        let opcode = match kind {
            REF_INVOKE_VIRTUAL | REF_INVOKE_INTERFACE => Opcode::INVOKEVIRTUAL,
            REF_INVOKE_STATIC => Opcode::INVOKESTATIC,
            _ => continue,
        };
        let Ok(r) = cp.member_ref(reference) else {
            continue;
        };
        let target = match guard(opcode, r.owner, r.name, r.descriptor) {
            Some(Guard::Wrap(w)) => (w, wrapper_descriptor(opcode, r.owner, r.descriptor)),
            _ if r.owner == "java/lang/ProcessHandle" && r.name.starts_with("destroy") => {
                ("processHandleDestroy", "(Ljava/lang/Object;)Z".to_string())
            }
            _ => continue,
        };
        changes.push((i, target));
    }
    let n = changes.len();
    for (i, (w, d)) in changes {
        let reference = cp.intern_method_ref(SANDBOX_CLASS, w, &d, false);
        let index = rivet_classfile::CpIndex(i as u16);
        cp.replace(
            index,
            Constant::MethodHandle {
                kind: REF_INVOKE_STATIC,
                reference,
            },
        );
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_calls_have_wrappers_of_the_same_shape() {
        let cases = [
            (
                Opcode::INVOKESTATIC,
                FILES,
                "write",
                "(Ljava/nio/file/Path;[B[Ljava/nio/file/OpenOption;)Ljava/nio/file/Path;",
                Some(Guard::Wrap("filesWrite")),
            ),
            (Opcode::INVOKEVIRTUAL, FILE, "delete", "()Z", Some(Guard::Wrap("fileDelete"))),
            (
                Opcode::INVOKEVIRTUAL,
                "java/nio/file/spi/FileSystemProvider",
                "delete",
                "(Ljava/nio/file/Path;)V",
                Some(Guard::Wrap("providerDelete")),
            ),
            (
                Opcode::INVOKEVIRTUAL,
                "java/nio/file/spi/FileSystemProvider",
                "newByteChannel",
                "(Ljava/nio/file/Path;Ljava/util/Set;[Ljava/nio/file/attribute/FileAttribute;)Ljava/nio/channels/SeekableByteChannel;",
                Some(Guard::Wrap("providerNewByteChannel")),
            ),
            // Reading through the provider is not guarded.
            (
                Opcode::INVOKEVIRTUAL,
                "java/nio/file/spi/FileSystemProvider",
                "newInputStream",
                "(Ljava/nio/file/Path;[Ljava/nio/file/OpenOption;)Ljava/io/InputStream;",
                None,
            ),
            (
                Opcode::INVOKESTATIC,
                "java/nio/channels/FileChannel",
                "open",
                "(Ljava/nio/file/Path;[Ljava/nio/file/OpenOption;)Ljava/nio/channels/FileChannel;",
                Some(Guard::Wrap("fileChannelOpen")),
            ),
            (
                Opcode::INVOKEVIRTUAL,
                FILE,
                "renameTo",
                "(Ljava/io/File;)Z",
                Some(Guard::Wrap("fileRenameTo")),
            ),
            (Opcode::INVOKESPECIAL, FILE, "delete", "()Z", Some(Guard::CheckWrite { depth: 0 })),
            (
                Opcode::INVOKESTATIC,
                FILES,
                "writeString",
                "(Ljava/nio/file/Path;Ljava/lang/CharSequence;[Ljava/nio/file/OpenOption;)Ljava/nio/file/Path;",
                Some(Guard::CheckWrite { depth: 2 }),
            ),
            (
                Opcode::INVOKESPECIAL,
                "java/io/FileOutputStream",
                "<init>",
                "(Ljava/lang/String;Z)V",
                Some(Guard::CheckWrite { depth: 1 }),
            ),
            (
                Opcode::INVOKESPECIAL,
                "java/io/PrintStream",
                "<init>",
                "(Ljava/io/OutputStream;Z)V",
                None,
            ),
            (
                Opcode::INVOKEVIRTUAL,
                "java/net/Socket",
                "connect",
                "(Ljava/net/SocketAddress;I)V",
                Some(Guard::Deny("connect a socket")),
            ),
            (
                Opcode::INVOKEVIRTUAL,
                "java/lang/ProcessBuilder",
                "start",
                "()Ljava/lang/Process;",
                Some(Guard::Wrap("processBuilderStart")),
            ),
            (
                Opcode::INVOKEINTERFACE,
                "java/lang/ProcessHandle",
                "destroyForcibly",
                "()Z",
                Some(Guard::Deny("signal a process")),
            ),
            (
                Opcode::INVOKESTATIC,
                FILES,
                "readAllBytes",
                "(Ljava/nio/file/Path;)[B",
                None,
            ),
            (
                Opcode::INVOKEVIRTUAL,
                "java/net/URL",
                "openStream",
                "()Ljava/io/InputStream;",
                Some(Guard::CheckUrl { depth: 0 }),
            ),
        ];
        for (op, owner, name, d, expected) in cases {
            assert_eq!(guard(op, owner, name, d), expected, "{owner}.{name}{d}");
        }
    }

    #[test]
    fn copies_reach_only_one_slot_values_near_the_top() {
        assert_eq!(copyable_depth(&[false, false, false], 0), Some(2));
        assert_eq!(copyable_depth(&[false, true], 0), None);
        assert_eq!(copyable_depth(&[false; 4], 0), None);
        assert_eq!(copy_from(1).len(), 2);
    }
}

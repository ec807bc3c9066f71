//! The Java runtime that instrumented classes call (`rivet/runtime/{Probes,Exits,ExitRequested,Overrun,Sandbox,SandboxRefused,Seeds,Statics}`),
//! compiled by build.rs with `javac --release 8` and embedded, and the names instrumented code
//! refers to.

include!(concat!(env!("OUT_DIR"), "/runtime_classes.rs"));

/// Internal name of the class whose static methods the probes call.
pub const PROBES_CLASS: &str = "rivet/runtime/Probes";
/// Internal name of the class that replaces `System.exit`, `Runtime.exit` and `Runtime.halt`.
pub const EXITS_CLASS: &str = "rivet/runtime/Exits";
/// Internal name of the class that checks or refuses calls reaching outside the sandbox.
pub const SANDBOX_CLASS: &str = "rivet/runtime/Sandbox";
/// Internal name of the class that records the strings compared and parsed (dynamic seeding).
pub const SEEDS_CLASS: &str = "rivet/runtime/Seeds";
/// Internal name of the class that resets static state between tests.
pub const STATICS_CLASS: &str = "rivet/runtime/Statics";
/// Package prefix of the runtime (never instrumented).
pub const RUNTIME_PACKAGE: &str = "rivet/runtime/";
/// Resource holding the switch tables, read by `Probes` when it is initialised.
pub const SWITCHES_RESOURCE: &str = "rivet/runtime/switches.bin";

/// The embedded runtime class files: internal name (`rivet/runtime/Probes`) and bytes. Empty
/// when no javac was found while building this crate.
pub fn runtime_classes() -> &'static [(&'static str, &'static [u8])] {
    RUNTIME_CLASSES
}

/// A 64-bit FNV-1a hash over the runtime class files, so that caches of instrumented classes
/// are rebuilt when the runtime changes.
pub(crate) fn runtime_fingerprint() -> u64 {
    let mut h = crate::cache::Fnv::new();
    for (name, bytes) in RUNTIME_CLASSES {
        h.write(name.as_bytes());
        h.write(bytes);
    }
    h.finish()
}

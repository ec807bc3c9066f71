//! Branch-probe instrumentation of class files for Rivet's JVM workers.
//!
//! For every branch that `rivet-analysis` counts (as JaCoCo 0.8.6 does) the instrumented code
//! calls the Java runtime in `java/rivet/runtime` (embedded, see [`runtime_classes`]) with the
//! operands the branch compares, so that a worker learns which branches were taken and how
//! far the others were from being taken. Calls of `System.exit`, `Runtime.exit` and
//! `Runtime.halt` are sent to the runtime's `Exits`, which throws `ExitRequested` instead;
//! calls that would reach outside the sandbox (files outside the temp dir, sockets, processes,
//! signals) go through the runtime's `Sandbox`, which refuses them with `SandboxRefused`;
//! classes with static state become resettable (`Statics`), so each test starts fresh; classes
//! without probes get a call of `Probes.loop()` before every backward jump ([`watch_loops`]),
//! so a test looping in them also ends at its deadline.
//!
//! * [`plan_class`] analyses a class and lists its probe sites;
//! * [`ProbeMap::assign`] gives each planned class a global range of probe ids (by class name,
//!   so the numbering is deterministic) and [`ProbeMap`] translates ids back;
//! * [`instrument_class`] rewrites a class in place;
//! * [`instrument_classpath`] does all of this for a classpath of directories and jars into an
//!   output directory (with the runtime, `switches.bin` and `rivet-probes.tsv`);
//! * [`instrument_cached`] keeps such a directory per input state, for the worker pool, and
//!   the cache bounded: least recently used entries go, never one a run holds ([`evict`]).
//!
//! The JDK's classes are never instrumented (they are not on the user classpath, and classes
//! in `java/` are skipped).

mod cache;
mod cache_lru;
mod error;
mod guards;
mod instrument;
mod job;
mod loops;
mod par;
mod plan;
mod probes;
mod runtime;
mod seeds;
mod statics;

pub use cache::{cache_key, instrument_cached, InstrumentedClasspath};
pub use cache_lru::{evict, CacheLease, CacheLimit};
pub use error::InstrumentError;
pub use guards::{guard_calls, GuardOutcome};
pub use instrument::{
    encode_switch_tables, instrument_class, is_instrumented, redirect_exits, switch_tables,
    ClassOutcome, SwitchTable,
};
pub use job::{
    instrument_classpath, InstrumentConfig, InstrumentReport, ProbeScope, Skipped, PROBES_TSV,
};
pub use loops::watch_loops;
pub use plan::{plan_class, ClassPlan, MethodPlan, PointSwitch, Site, SiteKind};
pub use probes::{BranchInfo, ClassProbes, ProbeMap, ProbeRange, PROBES_TSV_HEADER};
/// Branch ids, as [`ClassProbes`] takes them.
pub use rivet_analysis::BranchId;
pub use runtime::{
    runtime_classes, EXITS_CLASS, PROBES_CLASS, RUNTIME_PACKAGE, SANDBOX_CLASS, STATICS_CLASS,
    SWITCHES_RESOURCE,
};
pub use statics::{make_resettable, mark_touches, RESET_METHOD};

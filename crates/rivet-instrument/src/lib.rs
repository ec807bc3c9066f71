//! Branch-probe instrumentation of class files (in progress; see crates/rivet-instrument/java for the runtime).

//! The JUnit emitter: a pure function from generated tests (statements, static types,
//! assertions) to the source of one JUnit 5 (default) or JUnit 4 test class
//! `<Simple>RivetTest` in the package of the class under test (for JUnit 4 before 4.13,
//! expected exceptions as `try`/`fail`/`catch`: [`ExpectedExceptions`]). It never receives Java text
//! from the generators: every literal, name, cast and import is decided here, and the same
//! input always yields the same text. [`emit`] also returns where each test and assertion
//! sits, so that the verifier can map javac and JUnit messages back to them.

mod array_assert;
mod contracts;
mod emit;
mod imports;
mod java;
mod naming;
mod scratch;
mod soft;
mod throws;

pub use emit::{
    emit, test_class_name, Emitted, JUnitVersion, TestClass, TestLines, TestSource, FIXED_ORDER_5,
};
pub use java::{char_literal, primitive_literal, source_name, string_literal};
pub use soft::{soft_copy, soft_key, SOFT_CLASS};
pub use throws::ExpectedExceptions;

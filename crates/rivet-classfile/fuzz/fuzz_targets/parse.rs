//! cargo-fuzz target: class-file bytes through parse, write, re-parse and the code editor
//! (the property is in ../tests/support/check.rs, shared with tests/fuzz_parse.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::check_class_bytes(data);
});

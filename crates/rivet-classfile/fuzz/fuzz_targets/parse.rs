//! cargo-fuzz target: class-file bytes through parse, write and re-parse (the property is
//! `check_parse_write` in ../tests/support/check.rs, shared with tests/fuzz_parse.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)] // the editor checks are for the `edit` target
#[path = "../../tests/support/check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    let _ = check::check_parse_write(data);
});

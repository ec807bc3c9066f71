//! cargo-fuzz target: like `parse`, then the code editor over every method that parsed (empty
//! edits give the code back; edits never panic). Slower per input than `parse`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/check.rs"]
mod check;

fuzz_target!(|data: &[u8]| {
    check::check_class_bytes(data);
});

//! Tidy: the executor's ground floor (`program`, `state`, `heap`, `value`, `lazy` and what
//! they build on: `context`, `invariant_use`, `invariants`, `config`, `error`) imports
//! nothing of the interpreter (`interp`) or the native models (`natives`, `strings`,
//! `strings_symbolic`): those sit above it and look the models up at the call.

use std::collections::BTreeSet;
use std::path::PathBuf;

/// The modules of the ground floor; each may use only modules of this list.
const GROUND_FLOOR: &[&str] = &[
    "program",
    "state",
    "heap",
    "value",
    "lazy",
    "context",
    "invariant_use",
    "invariants",
    "config",
    "error",
];

/// The five modules the issue names: not even a mention of the floors above.
const CORE: &[&str] = &["program", "state", "heap", "value", "lazy"];

fn source(module: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(format!("{module}.rs"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The crate modules `text` refers to (`crate::name`), in code and comments alike.
fn crate_modules(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

#[test]
fn the_module_scan_sees_an_upward_import() {
    let found =
        crate_modules("use crate::interp::{Ctx, Step};\nlet x = crate::natives::lookup(a);");
    assert_eq!(
        found,
        BTreeSet::from(["interp".to_string(), "natives".to_string()])
    );
}

#[test]
fn the_ground_floor_uses_only_the_ground_floor() {
    let mut upward = Vec::new();
    for module in GROUND_FLOOR {
        for used in crate_modules(&source(module)) {
            if !GROUND_FLOOR.contains(&used.as_str()) {
                upward.push(format!("{module} uses crate::{used}"));
            }
        }
    }
    assert!(upward.is_empty(), "upward imports: {upward:#?}");
}

#[test]
fn the_core_files_never_name_the_interpreter_or_the_natives() {
    for module in CORE {
        let text = source(module);
        for word in ["interp::", "natives::", "strings::", "strings_symbolic::"] {
            assert!(!text.contains(word), "src/{module}.rs mentions `{word}`");
        }
    }
}

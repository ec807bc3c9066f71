//! Tests of the invariants file: each kind parses, and what `to_text` writes parses back.

use super::*;
use proptest::prelude::*;

fn parse(text: &str) -> Invariants {
    Invariants::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn parses_the_hand_written_kinds() {
    let inv = parse(
        "# list\nnot-null java.util.LinkedList$Node.item\nalias-only a.N.prev ^.next\nexpand-only java.util.List java.util.ArrayList\n",
    );
    assert_eq!(
        inv.of_field("java/util/LinkedList$Node", "item")
            .map(|(_, i)| i.clone())
            .collect::<Vec<_>>(),
        vec![Invariant::NotNull {
            class: "java/util/LinkedList$Node".into(),
            field: "item".into(),
            scope: Scope::All,
        }]
    );
    assert_eq!(
        inv.of_field("a/N", "prev").map(|(_, i)| i.clone()).next(),
        Some(Invariant::AliasOnly {
            class: "a/N".into(),
            field: "prev".into(),
            path: vec![AliasStep::Up, AliasStep::Field("next".into())],
        })
    );
    assert_eq!(
        inv.expand_only("java/util/List").map(|(_, s)| s.to_vec()),
        Some(vec![ClassName::from_internal("java/util/ArrayList")])
    );
}

#[test]
fn parses_the_learned_kinds() {
    let inv = parse(
        "not-null a.L$Node.next within a.L.header # 40 observations\n\
         inverse a.L$Node.next prev within a.L.header\n\
         unshared a.T$Node.left\n\
         range a.T$Node.height 1..\n\
         count a.L.size header next* -1\n\
         count a.T.size root (left|right)* +0\n",
    );
    assert_eq!(inv.len(), 6);
    assert_eq!(
        inv.items()[1],
        Invariant::Inverse {
            class: "a/L$Node".into(),
            field: "next".into(),
            back: "prev".into(),
            scope: Scope::Within {
                root: "a/L".into(),
                field: "header".into()
            },
        }
    );
    assert_eq!(
        inv.items()[3],
        Invariant::Range {
            class: "a/T$Node".into(),
            field: "height".into(),
            min: Some(1),
            max: None,
        }
    );
    assert_eq!(
        inv.items()[5],
        Invariant::Count {
            class: "a/T".into(),
            field: "size".into(),
            start: "root".into(),
            steps: vec!["left".into(), "right".into()],
            offset: 0,
        }
    );
    assert!(inv.is_counted("a/L", "size"));
    assert!(!inv.is_counted("a/L", "header"));
    assert_eq!(inv.counts_of("a/T").count(), 1);
}

#[test]
fn rejects_unknown_lines_with_their_number() {
    for bad in [
        "\nnever x.y",
        "\nrange a.B.c ..",
        "\ncount a.B.c d e* 1x",
        "\nnot-null a.B.c within",
        "\ninverse a.B.c within a.B.d",
        "\ncount a.B.c d (e|)* +0",
    ] {
        let err = Invariants::parse(bad).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.contains("line 2")),
            "{bad:?}: {err:?}"
        );
    }
}

#[test]
fn repeats_are_kept_once() {
    let inv = parse("unshared a.B.c\nunshared a.B.c\n");
    assert_eq!(inv.len(), 1);
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9]{0,5}"
}

fn class() -> impl Strategy<Value = ClassName> {
    (
        "[a-z]{1,3}",
        "[A-Z][a-z]{0,4}",
        proptest::option::of("[A-Z][a-z]{0,4}"),
    )
        .prop_map(|(p, c, nested)| match nested {
            Some(n) => ClassName::from_internal(&format!("{p}/{c}${n}")),
            None => ClassName::from_internal(&format!("{p}/{c}")),
        })
}

fn scope_strategy() -> impl Strategy<Value = Scope> {
    prop_oneof![
        Just(Scope::All),
        (class(), name()).prop_map(|(root, field)| Scope::Within { root, field }),
    ]
}

fn invariant() -> impl Strategy<Value = Invariant> {
    prop_oneof![
        (class(), name(), scope_strategy()).prop_map(|(class, field, scope)| Invariant::NotNull {
            class,
            field,
            scope
        }),
        (class(), name(), name(), scope_strategy()).prop_map(|(class, field, back, scope)| {
            Invariant::Inverse {
                class,
                field,
                back,
                scope,
            }
        }),
        (class(), name(), scope_strategy()).prop_map(|(class, field, scope)| Invariant::Unshared {
            class,
            field,
            scope
        }),
        (class(), name(), any::<Option<i64>>(), any::<i64>()).prop_map(
            |(class, field, min, max)| Invariant::Range {
                class,
                field,
                min,
                max: Some(max),
            }
        ),
        (
            class(),
            name(),
            name(),
            proptest::collection::vec(name(), 1..4),
            any::<i64>()
        )
            .prop_map(|(class, field, start, steps, offset)| Invariant::Count {
                class,
                field,
                start,
                steps,
                offset,
            }),
        (class(), name(), proptest::collection::vec(name(), 1..3)).prop_map(
            |(class, field, names)| Invariant::AliasOnly {
                class,
                field,
                path: std::iter::once(AliasStep::Up)
                    .chain(names.into_iter().map(AliasStep::Field))
                    .collect(),
            }
        ),
        (class(), proptest::collection::vec(class(), 1..3))
            .prop_map(|(class, subclasses)| Invariant::ExpandOnly { class, subclasses }),
    ]
}

proptest! {
    #[test]
    fn written_invariants_parse_back(items in proptest::collection::vec(invariant(), 0..8)) {
        let inv = Invariants::from_items(items);
        let text = inv.to_text();
        let back = Invariants::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back.items(), inv.items());
    }
}

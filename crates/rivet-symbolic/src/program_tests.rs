//! The program over a hand-built class model (`test_classes`), no JVM: field layouts,
//! type tests and the concrete classes a reference may point to.

use crate::test_classes;

#[test]
fn a_layout_has_the_superclass_fields_first() {
    let (mut program, _classes) = test_classes::program("program-layout");
    let sub = program.require("t/SubNode").expect("SubNode");
    let fields: Vec<(&str, &str)> = sub.fields.iter().map(|f| (&*f.owner, &*f.name)).collect();
    assert_eq!(
        fields,
        [
            ("t/Node", "next"),
            ("t/Node", "value"),
            ("t/SubNode", "extra")
        ]
    );
    assert_eq!(sub.field_slot("t/Node", "value"), Some(1));
    assert_eq!(sub.field_slot("t/SubNode", "value"), None);
    assert_eq!(sub.field_by_name("extra"), Some(2));
    // Loading a class loads its superclasses: Node was loaded before SubNode.
    let node = program.load("t/Node").expect("load").expect("Node");
    assert!(node.id < sub.id);
    assert_eq!(sub.super_name.as_deref(), Some("t/Node"));
}

#[test]
fn a_missing_class_is_none_to_load_and_an_error_to_require() {
    let (mut program, _classes) = test_classes::program("program-missing");
    assert!(program.load("t/Missing").expect("load").is_none());
    assert!(matches!(
        program.require("t/Missing"),
        Err(crate::error::SymbolicError::ClassNotFound { .. })
    ));
}

#[test]
fn assignability_follows_the_hierarchy() {
    let (mut program, _classes) = test_classes::program("program-assignable");
    assert!(program.is_assignable("t/SubNode", "t/Node"));
    assert!(!program.is_assignable("t/Node", "t/SubNode"));
    assert!(!program.is_assignable("t/Other", "t/Node"));
    assert!(program.is_assignable("t/Other", "java/lang/Object"));
    assert!(program.is_assignable("[Lt/SubNode;", "[Lt/Node;"));
    assert!(!program.is_assignable("[Lt/Node;", "[Lt/SubNode;"));
    assert!(!program.is_assignable("[I", "[J"));
    // Unknown classes are assignable to nothing but themselves and Object.
    assert!(!program.is_assignable("t/Missing", "t/Node"));
}

#[test]
fn a_reference_expands_to_its_concrete_subtypes_the_type_first() {
    let (mut program, _classes) = test_classes::program("program-subtypes");
    let names = |program: &mut crate::program::Program, ty: &str| -> Vec<String> {
        program
            .concrete_subtypes(ty)
            .expect("subtypes")
            .iter()
            .map(|c| c.to_string())
            .collect()
    };
    assert_eq!(names(&mut program, "t/Node"), ["t/Node", "t/SubNode"]);
    assert_eq!(names(&mut program, "t/SubNode"), ["t/SubNode"]);
    // An abstract class is no choice; its concrete subclass is.
    assert_eq!(names(&mut program, "t/Shape"), ["t/Circle"]);
    // Object and arrays expand to themselves.
    assert_eq!(
        names(&mut program, "java/lang/Object"),
        ["java/lang/Object"]
    );
    assert_eq!(names(&mut program, "[Lt/Node;"), ["[Lt/Node;"]);
}

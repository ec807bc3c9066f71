//! A tiny class model for unit tests that need no JVM: class files built in memory and
//! written to a temporary directory (`java/lang/Object`; `t/Node` with fields `next` (a
//! `t/Node`) and `value` (an int); `t/SubNode` extending it with `extra`; `t/Other`; the
//! abstract `t/Shape` and its `t/Circle`), and a `Program` over them whose target is
//! `t/Node`.

use std::path::PathBuf;
use std::sync::Arc;

use rivet_classfile::{AccessFlags, ClassFile, ConstantPool, CpIndex, Member};
use rivet_classpath::{Classpath, Hierarchy};

use crate::program::Program;

/// The bytes of class `name` extending `super_name` with instance fields `fields`, public
/// and with the access flags `access` besides.
pub fn class_bytes(
    name: &str,
    super_name: Option<&str>,
    access: u16,
    fields: &[(&str, &str)],
) -> Vec<u8> {
    let mut cp = ConstantPool::new();
    let this_class = cp.intern_class(name);
    let super_class = super_name.map_or(CpIndex(0), |s| cp.intern_class(s));
    let fields = fields
        .iter()
        .map(|(field, descriptor)| Member {
            access_flags: AccessFlags(0),
            name: cp.intern_utf8(field),
            descriptor: cp.intern_utf8(descriptor),
            attributes: Vec::new(),
        })
        .collect();
    ClassFile {
        minor_version: 0,
        major_version: 52,
        constant_pool: cp,
        access_flags: AccessFlags(AccessFlags::PUBLIC | 0x0020 | access),
        this_class,
        super_class,
        interfaces: Vec::new(),
        fields,
        methods: Vec::new(),
        attributes: Vec::new(),
    }
    .to_bytes()
    .expect("class bytes")
}

/// One class of the model: name, superclass, access flags besides public, instance fields
/// (name, descriptor).
struct TestClass {
    name: &'static str,
    super_name: Option<&'static str>,
    access: u16,
    fields: &'static [(&'static str, &'static str)],
}

impl TestClass {
    fn new(
        name: &'static str,
        super_name: Option<&'static str>,
        fields: &'static [(&'static str, &'static str)],
    ) -> TestClass {
        TestClass {
            name,
            super_name,
            access: 0,
            fields,
        }
    }
}

/// The class model of these tests in a directory of its own (`tag` keeps parallel tests
/// apart).
pub fn class_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rivet-classes-{}-{tag}", std::process::id()));
    let object = Some("java/lang/Object");
    let classes = [
        TestClass::new("java/lang/Object", None, &[]),
        TestClass::new("t/Node", object, &[("next", "Lt/Node;"), ("value", "I")]),
        TestClass::new("t/SubNode", Some("t/Node"), &[("extra", "I")]),
        TestClass::new("t/Other", object, &[]),
        TestClass {
            access: AccessFlags::ABSTRACT,
            ..TestClass::new("t/Shape", object, &[])
        },
        TestClass::new("t/Circle", Some("t/Shape"), &[("radius", "D")]),
    ];
    for class in classes {
        let path = dir.join(format!("{}.class", class.name));
        std::fs::create_dir_all(path.parent().expect("parent")).expect("class dir");
        let bytes = class_bytes(class.name, class.super_name, class.access, class.fields);
        std::fs::write(&path, bytes).expect("class file");
    }
    dir
}

/// The directory of a class model, removed when dropped.
pub struct ClassDir(PathBuf);

impl Drop for ClassDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A program over the class model in a directory of its own (`tag`), and the directory
/// (keep it while the program is used).
pub fn program(tag: &str) -> (Program, ClassDir) {
    let dir = class_dir(tag);
    let classpath = Arc::new(Classpath::from_paths([&dir], None).expect("classpath"));
    let hierarchy = Arc::new(Hierarchy::new(classpath.clone()));
    (Program::new(classpath, hierarchy, "t/Node"), ClassDir(dir))
}

//! Compiler-generated code that JaCoCo 0.8.6 does not count: which classes and methods to skip,
//! and which instructions to ignore or merge, so that Rivet's branches are JaCoCo's
//! (docs/jacoco-branch-counting.md, §2–4). The javac filters are implemented; the ecj- and
//! Kotlin-only ones are not.

mod javac;
mod raw;

pub use raw::RawCode;

use rivet_classfile::{AccessFlags, AttributeBody, ClassFile, Code, Member};
use std::collections::{HashMap, HashSet};

/// What the filters decided for one method's instructions (indices into `Code::instructions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterOutput {
    /// Instructions whose branches are not counted.
    pub ignored: HashSet<usize>,
    /// Duplicate instruction → representative (the copy in a finally handler): the duplicate's
    /// outcomes count as the representative's branches.
    pub merged_into: HashMap<usize, usize>,
}

/// Union-find over instruction indices, as JaCoCo merges duplicated finally code.
#[derive(Debug, Default)]
pub(crate) struct Merges {
    parent: HashMap<usize, usize>,
}

impl Merges {
    fn find(&self, mut i: usize) -> usize {
        while let Some(&p) = self.parent.get(&i) {
            i = p;
        }
        i
    }

    /// Attaches b's root under a's root.
    pub(crate) fn merge(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(rb, ra);
        }
    }

    fn into_map(self) -> HashMap<usize, usize> {
        self.parent
            .keys()
            .map(|&k| (k, self.find(k)))
            .collect::<HashMap<_, _>>()
    }
}

/// Why a whole class is left out, if it is.
pub fn skipped_class(cf: &ClassFile) -> Option<&'static str> {
    if cf.access_flags.has(AccessFlags::MODULE) {
        return Some("module-info");
    }
    if cf.access_flags.is_synthetic() {
        return Some("synthetic class");
    }
    if has_generated_annotation(cf, &cf.attributes) {
        return Some("class annotated @*Generated*");
    }
    None
}

/// Why a whole method is left out of branch counting, if it is.
pub fn skipped_method(cf: &ClassFile, method: &Member, code: &Code) -> Option<&'static str> {
    let name = cf.member_name(method).unwrap_or("");
    let desc = cf.member_descriptor(method).unwrap_or("");
    let this = cf.name().unwrap_or("");
    let sup = cf.super_name().ok().flatten().unwrap_or("");
    let flags = method.access_flags;
    if sup == "java/lang/Enum"
        && ((name == "values" && desc == format!("()[L{this};"))
            || (name == "valueOf" && desc == format!("(Ljava/lang/String;)L{this};")))
    {
        return Some("enum values/valueOf");
    }
    if method.is_synthetic() && !name.starts_with("lambda$") {
        return Some("synthetic method");
    }
    if flags.has(AccessFlags::BRIDGE) {
        return Some("bridge method");
    }
    let raw = RawCode::new(cf, code);
    if flags.is_private() && name == "<init>" && desc == "()V" && raw.is_trivial_super_call(sup, 1)
    {
        return Some("private empty constructor");
    }
    if sup == "java/lang/Enum"
        && name == "<init>"
        && desc == "(Ljava/lang/String;I)V"
        && raw.is_trivial_super_call("java/lang/Enum", 3)
    {
        return Some("enum empty constructor");
    }
    if sup == "java/lang/Record" && raw.is_record_object_method(name, desc) {
        return Some("generated record method");
    }
    if has_generated_annotation(cf, &method.attributes) {
        return Some("method annotated @*Generated*");
    }
    None
}

/// Runs every instruction-level filter over a method body.
pub fn filter_method(cf: &ClassFile, code: &Code) -> FilterOutput {
    let raw = RawCode::new(cf, code);
    let mut ignored = HashSet::new();
    let mut merges = Merges::default();
    javac::try_with_resources_javac11(&raw, &mut ignored);
    javac::try_with_resources_javac7(&raw, &mut ignored);
    javac::finally(&raw, &mut ignored, &mut merges);
    javac::string_switch(&raw, &mut ignored);
    FilterOutput {
        ignored,
        merged_into: merges.into_map(),
    }
}

/// Does a (Runtime[In]VisibleAnnotations) attribute name an annotation whose simple name
/// contains `Generated`?
fn has_generated_annotation(cf: &ClassFile, attrs: &[rivet_classfile::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let name = cf.constant_pool.utf8(a.name).unwrap_or("");
        if name != "RuntimeVisibleAnnotations" && name != "RuntimeInvisibleAnnotations" {
            return false;
        }
        let AttributeBody::Raw(bytes) = &a.body else {
            return false;
        };
        annotation_types(bytes)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|t| cf.constant_pool.utf8(rivet_classfile::CpIndex(t)).ok())
            .any(|desc| {
                let simple = desc.rsplit(['/', '$']).next().unwrap_or(desc);
                simple.contains("Generated")
            })
    })
}

/// The type (descriptor) indices of the top-level annotations of an annotations attribute.
fn annotation_types(bytes: &[u8]) -> Result<Vec<u16>, rivet_classfile::ParseError> {
    let mut r = rivet_classfile::bytes::ByteReader::new(bytes);
    let n = r.u16("annotations")?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        out.push(skip_annotation(&mut r)?);
    }
    Ok(out)
}

fn skip_annotation(
    r: &mut rivet_classfile::bytes::ByteReader<'_>,
) -> Result<u16, rivet_classfile::ParseError> {
    let ty = r.u16("annotation type")?;
    let pairs = r.u16("annotation pairs")?;
    for _ in 0..pairs {
        r.u16("element name")?;
        skip_element_value(r)?;
    }
    Ok(ty)
}

fn skip_element_value(
    r: &mut rivet_classfile::bytes::ByteReader<'_>,
) -> Result<(), rivet_classfile::ParseError> {
    match r.u8("element tag")? {
        b'e' => r.skip(4, "enum value"),
        b'@' => skip_annotation(r).map(|_| ()),
        b'[' => {
            let n = r.u16("array values")?;
            for _ in 0..n {
                skip_element_value(r)?;
            }
            Ok(())
        }
        _ => r.skip(2, "element value"),
    }
}

//! The copy of a compiled JUnit 5 test class that runs in any order: the class file javac
//! wrote, without its `@TestMethodOrder` annotation (every other byte as it was, so lines and
//! tests map as in the original), beside the class's other files copied as they are. It
//! replaces a second javac run of an edited source, the dearest part of a round's checks.

use std::path::Path;

use rivet_classfile::bytes::ByteReader;
use rivet_classfile::{AttributeBody, ClassFile, ClassName, ParseError};

use crate::verify::VerifyError;

/// The descriptor of the annotation that fixes the order of a JUnit 5 class's tests.
const TEST_METHOD_ORDER: &str = "Lorg/junit/jupiter/api/TestMethodOrder;";

/// Copies the compiled classes of `classes` into `to` (made anew), the file of `test_class`
/// without its fixed method order.
pub(crate) fn copy_in_any_order(
    classes: &Path,
    to: &Path,
    test_class: &ClassName,
) -> Result<(), VerifyError> {
    let io = |what: &str| {
        let what = format!("{what} (the copy of {test_class} in any order)");
        move |source| VerifyError::Io { what, source }
    };
    let _ = std::fs::remove_dir_all(to);
    copy_tree(classes, to).map_err(io("copying the compiled tests"))?;
    let file = to.join(format!("{}.class", test_class.internal()));
    let bytes = std::fs::read(&file).map_err(io("reading the compiled test class"))?;
    let patched = without_fixed_order(&bytes).map_err(|reason| VerifyError::AnyOrder {
        class: test_class.clone(),
        reason,
    })?;
    std::fs::write(&file, patched).map_err(io("writing the test class"))
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// The class file without the `@TestMethodOrder` of its class (its other annotations kept);
/// unchanged when it has none.
pub(crate) fn without_fixed_order(class_file: &[u8]) -> Result<Vec<u8>, String> {
    let mut class = ClassFile::parse(class_file).map_err(|e| e.to_string())?;
    let cp = &class.constant_pool;
    let mut changed = false;
    let mut attributes = Vec::with_capacity(class.attributes.len());
    for mut a in std::mem::take(&mut class.attributes) {
        let visible = cp
            .utf8(a.name)
            .is_ok_and(|n| n == "RuntimeVisibleAnnotations");
        if let (true, AttributeBody::Raw(body)) = (visible, &a.body) {
            let kept =
                without_annotation(body, |d| cp.utf8(d).is_ok_and(|t| t == TEST_METHOD_ORDER))
                    .map_err(|e| format!("its annotations do not parse: {e}"))?;
            if let Some(kept) = kept {
                changed = true;
                if kept.count == 0 {
                    continue;
                }
                a.body = AttributeBody::Raw(kept.body);
            }
        }
        attributes.push(a);
    }
    class.attributes = attributes;
    if !changed {
        return Ok(class_file.to_vec());
    }
    class.to_bytes().map_err(|e| e.to_string())
}

/// A `RuntimeVisibleAnnotations` body rewritten, and how many annotations it holds.
#[derive(Debug, PartialEq)]
struct Annotations {
    count: u16,
    body: Vec<u8>,
}

/// The body without the annotations whose type `drop` picks (by its constant-pool index);
/// None when there is none to drop.
fn without_annotation(
    body: &[u8],
    drop: impl Fn(rivet_classfile::CpIndex) -> bool,
) -> Result<Option<Annotations>, ParseError> {
    let mut r = ByteReader::new(body);
    let n = r.u16("annotation count")?;
    let mut kept = Annotations {
        count: 0,
        body: vec![0, 0],
    };
    for _ in 0..n {
        let start = r.position();
        let type_index = rivet_classfile::CpIndex(r.u16("annotation type")?);
        skip_pairs(&mut r)?;
        if !drop(type_index) {
            kept.count += 1;
            kept.body.extend_from_slice(&body[start..r.position()]);
        }
    }
    if kept.count == n {
        return Ok(None);
    }
    kept.body[..2].copy_from_slice(&kept.count.to_be_bytes());
    Ok(Some(kept))
}

/// Skips an annotation's element-value pairs (JVMS 4.7.16).
fn skip_pairs(r: &mut ByteReader<'_>) -> Result<(), ParseError> {
    let pairs = r.u16("element-value pair count")?;
    for _ in 0..pairs {
        r.u16("element name")?;
        skip_element_value(r)?;
    }
    Ok(())
}

/// Skips one element value (JVMS 4.7.16.1).
fn skip_element_value(r: &mut ByteReader<'_>) -> Result<(), ParseError> {
    match r.u8("element value tag")? {
        b'e' => r.skip(4, "enum constant"),
        b'@' => {
            r.u16("nested annotation type")?;
            skip_pairs(r)
        }
        b'[' => {
            let n = r.u16("array length")?;
            for _ in 0..n {
                skip_element_value(r)?;
            }
            Ok(())
        }
        // B C D F I J S Z s c: one constant-pool index (an unknown tag as well, so that a
        // newer class file's value is not misread as a longer one: the count check catches it).
        _ => r.skip(2, "constant index"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_classfile::CpIndex;

    /// `@A(x = 1) @Order(value = C.class) @B(y = {@N(k = E.V), 2})`, type indexes 1, 7, 2.
    fn three_annotations() -> Vec<u8> {
        let mut b = vec![0, 3];
        // @A(x = 1): type 1, one pair (name 10, 'I' index 11).
        b.extend([0, 1, 0, 1, 0, 10, b'I', 0, 11]);
        // @Order(value = C.class): type 7, one pair (name 12, 'c' index 13).
        b.extend([0, 7, 0, 1, 0, 12, b'c', 0, 13]);
        // @B(y = {@N(k = E.V), 2}): type 2, one pair (name 14, an array of two).
        b.extend([0, 2, 0, 1, 0, 14, b'[', 0, 2]);
        b.extend([b'@', 0, 15, 0, 1, 0, 16, b'e', 0, 17, 0, 18]);
        b.extend([b'I', 0, 19]);
        b
    }

    #[test]
    fn the_picked_annotation_goes_and_the_others_stay_byte_for_byte() {
        let body = three_annotations();
        let kept = without_annotation(&body, |i| i == CpIndex(7))
            .unwrap()
            .unwrap();
        assert_eq!(kept.count, 2);
        let mut expected = vec![0, 2];
        expected.extend_from_slice(&body[2..11]);
        expected.extend_from_slice(&body[20..]);
        assert_eq!(kept.body, expected);
    }

    #[test]
    fn a_body_without_the_annotation_is_left_alone() {
        let body = three_annotations();
        assert_eq!(
            without_annotation(&body, |i| i == CpIndex(9)).unwrap(),
            None
        );
        let all_gone = without_annotation(&body, |_| true).unwrap().unwrap();
        assert_eq!(
            all_gone,
            Annotations {
                count: 0,
                body: vec![0, 0]
            }
        );
    }

    #[test]
    fn a_truncated_body_is_an_error_not_a_panic() {
        let body = three_annotations();
        for cut in 1..body.len() {
            assert!(
                without_annotation(&body[..cut], |_| false).is_err(),
                "{cut}"
            );
        }
    }
}

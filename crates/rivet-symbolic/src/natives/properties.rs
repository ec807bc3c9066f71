//! System properties in the symbolic world, where the JVM's own start-up (`System.initPhase1`,
//! which fills `System.props`) never ran: every property is unset except those the JDK's own
//! initializers require (`jdk.internal.util.StaticProperty` fails without them) and the
//! separators, which have the values of a Linux JVM. `System.getProperty`, `GetPropertyAction`'s privileged
//! lookups and `Properties.getProperty` answer from that table (an unset property is the
//! caller's default, or null); `System.getProperties()` is a `Properties` object of its own
//! (whose lookups the same table answers); `System.lineSeparator()` is `"\n"`.

use std::sync::Arc;

use super::{finish, object_arg};
use crate::context::{Ctx, Step};
use crate::error::SymbolicError;
use crate::heap::StrValue;
use crate::interp;
use crate::state::SymbolicState;
use crate::value::{Reference, Value};

/// What a property lookup gives: the key's fixed value, else the default argument (None:
/// null).
fn property(key: Option<&str>) -> Option<&'static str> {
    match key? {
        "line.separator" => Some("\n"),
        "file.separator" => Some("/"),
        "path.separator" => Some(":"),
        "java.home" => Some("/usr/lib/jvm/default-java"),
        "user.home" | "user.dir" => Some("/home/user"),
        "user.name" => Some("user"),
        "java.io.tmpdir" => Some("/tmp"),
        "java.library.path" | "sun.boot.library.path" => Some(""),
        "native.encoding" | "file.encoding" | "sun.jnu.encoding" => Some("UTF-8"),
        "os.name" => Some("Linux"),
        _ => None,
    }
}

/// A new string object holding `text`.
fn string(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<Value, SymbolicError> {
    let id = interp::alloc_string(state, ctx, StrValue::Concrete(Arc::from(text)))?;
    Ok(Value::Ref(Reference::Object(id)))
}

/// A lookup of `args[key]` with an optional default at `args[key + 1]`.
pub(super) fn get_property(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    args: &[Value],
    key: usize,
) -> Result<Step, SymbolicError> {
    let text = object_arg(state, args.get(key)).and_then(|id| match state.string_of(id)? {
        StrValue::Concrete(s) => Some(s.to_string()),
        StrValue::Opaque | StrValue::Term(_) => None,
    });
    let result = match property(text.as_deref()) {
        Some(v) => string(state, ctx, v)?,
        None => args
            .get(key + 1)
            .cloned()
            .unwrap_or(Value::Ref(Reference::Null)),
    };
    finish(state, Some(result))
}

/// `System.getProperties()` and its privileged twin: a `Properties` object of its own, its
/// constructor not run (its lookups are modelled).
pub(super) fn get_properties(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
) -> Result<Step, SymbolicError> {
    let id = interp::alloc_instance(state, ctx, "java/util/Properties")?;
    finish(state, Some(Value::Ref(Reference::Object(id))))
}

/// `System.lineSeparator()`.
pub(super) fn line_separator(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
) -> Result<Step, SymbolicError> {
    let v = string(state, ctx, "\n")?;
    finish(state, Some(v))
}

#[cfg(test)]
mod tests {
    use super::property;

    #[test]
    fn only_the_separators_and_what_the_jdk_requires_are_set() {
        assert_eq!(property(Some("line.separator")), Some("\n"));
        assert_eq!(property(Some("path.separator")), Some(":"));
        assert_eq!(property(Some("user.home")), Some("/home/user"));
        assert_eq!(property(Some("java.locale.useOldISOCodes")), None);
        assert_eq!(property(None), None);
    }
}

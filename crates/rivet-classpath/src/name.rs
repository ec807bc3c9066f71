//! Helpers for JVM internal class names (`java/util/Map$Entry`) and package names.

/// True if `name` can be the internal name of a class: non-empty `/`-separated segments
/// with none of `.`, `;`, `[`, `\` or NUL (so it is also safe to join onto a directory).
pub fn is_class_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('/').all(|segment| {
            !segment.is_empty()
                && !segment
                    .bytes()
                    .any(|b| matches!(b, b'.' | b';' | b'[' | b'\\' | 0))
        })
}

/// The package of an internal class name in internal form (`java/util` for
/// `java/util/Map$Entry`), empty for the unnamed package.
pub fn package_of(internal_name: &str) -> &str {
    match internal_name.rfind('/') {
        Some(i) => &internal_name[..i],
        None => "",
    }
}

/// A package name given as `com.example` or `com/example` in internal form `com/example`.
pub fn normalize_package(package: &str) -> String {
    package
        .trim_matches(|c| c == '/' || c == '.')
        .replace('.', "/")
}

/// True for class names that a listing of a classpath entry reports: it leaves out
/// `module-info` and `package-info` (not types) and files in directories that cannot be
/// packages, such as `META-INF/versions/11/...` of multi-release jars.
pub fn is_listable(internal_name: &str) -> bool {
    if !is_class_name(internal_name) {
        return false;
    }
    let simple = internal_name.rsplit('/').next().unwrap_or(internal_name);
    if simple == "module-info" || simple == "package-info" {
        return false;
    }
    !package_of(internal_name).contains('-')
}

/// The internal class name of an archive or directory path `pkg/Name.class`, if it is one.
pub fn class_name_of_path(path: &str) -> Option<&str> {
    path.strip_suffix(".class").filter(|n| is_class_name(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names() {
        assert!(is_class_name("java/util/Map$Entry"));
        assert!(is_class_name("Top"));
        assert!(!is_class_name(""));
        assert!(!is_class_name("a//b"));
        assert!(!is_class_name("../etc/passwd"));
        assert!(!is_class_name("[I"));
        assert!(!is_class_name("java.lang.String"));
    }

    #[test]
    fn packages() {
        assert_eq!(package_of("java/util/Map$Entry"), "java/util");
        assert_eq!(package_of("Top"), "");
        assert_eq!(normalize_package("com.example."), "com/example");
        assert_eq!(normalize_package("com/example"), "com/example");
    }

    #[test]
    fn listable() {
        assert!(is_listable("a/b/Outer$Inner"));
        assert!(!is_listable("module-info"));
        assert!(!is_listable("a/package-info"));
        assert!(!is_listable("META-INF/versions/11/a/B"));
    }
}

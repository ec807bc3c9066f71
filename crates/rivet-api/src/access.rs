//! What a generated test may use: tests live in the package of the class under test, so by
//! default they use what a test in that package may use without reflection (public,
//! protected and package-private members of that package's classes, public members of
//! others), never private members; `--access public` restricts them to the public API.

use rivet_classfile::{AccessFlags, ClassName};

/// Which members a generated test may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AccessMode {
    /// What a test in the class's own package may use (the default).
    #[default]
    SamePackage,
    /// Only the public API.
    Public,
}

/// The access of a test in `package` (internal form, `a/b`), under `mode`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    pub package: String,
    pub mode: AccessMode,
}

impl Access {
    /// The access of a test placed beside `class`.
    pub fn beside(class: &ClassName, mode: AccessMode) -> Access {
        Access {
            package: class.package().to_string(),
            mode,
        }
    }

    /// Public access only, from no particular package.
    pub fn public() -> Access {
        Access {
            package: String::new(),
            mode: AccessMode::Public,
        }
    }

    /// May the test use a member (or class) with `flags` declared in class `owner` (internal
    /// name)? Public: yes; private: never; protected and package-private: in the test's own
    /// package, unless only the public API is allowed.
    pub fn allows(&self, owner: &str, flags: AccessFlags) -> bool {
        if flags.is_public() {
            return true;
        }
        if flags.has(AccessFlags::PRIVATE) {
            return false;
        }
        self.mode == AccessMode::SamePackage
            && ClassName::from_internal(owner).package() == self.package
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_package_sees_package_private_and_protected_but_never_private() {
        let a = Access::beside(&ClassName::from_binary("p.q.C"), AccessMode::SamePackage);
        let package_private = AccessFlags(0);
        let protected = AccessFlags(AccessFlags::PROTECTED);
        let private = AccessFlags(AccessFlags::PRIVATE);
        let public = AccessFlags(AccessFlags::PUBLIC);
        assert!(a.allows("p/q/D", package_private));
        assert!(a.allows("p/q/D$E", protected));
        assert!(!a.allows("p/q/D", private));
        assert!(!a.allows("p/D", package_private), "another package");
        assert!(
            !a.allows("p/q/r/D", protected),
            "a sub-package is another package"
        );
        assert!(a.allows("x/Y", public));
        let public_only = Access::beside(&ClassName::from_binary("p.q.C"), AccessMode::Public);
        assert!(!public_only.allows("p/q/D", package_private));
        assert!(public_only.allows("p/q/D", public));
        assert!(!Access::public().allows("D", package_private));
    }
}

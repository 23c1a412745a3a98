//! A class's member and the member it implements of an interface of the tree (`class R
//! implements Runner { run() {} }`): TypeScript holds the class to the interface, so a rename
//! of one alone breaks the build. The resolver gives each hierarchy's root declaration as the
//! symbol (an override is its base's member); `implements` joins two roots.

use super::project::EcmaProject;
use crate::rename::model::SymbolId;

impl EcmaProject<'_> {
    /// Whether one member symbol implements the other: a class of one names the other's
    /// interface (or one extending it) in its `implements`, and both are members `name`.
    pub(super) fn implements(&self, a: &SymbolId, b: &SymbolId) -> bool {
        let (Some((file_a, start_a, name_a)), Some((file_b, start_b, name_b))) =
            (a.ecma_member(), b.ecma_member())
        else {
            return false;
        };
        name_a == name_b
            && (self.reaches(file_a, start_a, (file_b, start_b))
                || self.reaches(file_b, start_b, (file_a, start_a)))
    }

    /// Whether the class or interface at `start` of `file` has `target` up what it extends
    /// and implements, as written.
    fn reaches(&self, file: &str, start: u32, target: (&str, u32)) -> bool {
        let above = self.ancestors(file, start);
        above
            .iter()
            .skip(1)
            .any(|(f, s)| (f.as_str(), *s) == target)
    }
}

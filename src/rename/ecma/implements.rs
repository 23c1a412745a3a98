//! A class's member and the member it implements of an interface of the tree (`class R
//! implements Runner { run() {} }`): TypeScript holds the class to the interface, so a rename
//! of one alone breaks the build. The resolver gives each hierarchy's root declaration as the
//! symbol (an override is its base's member); `implements` joins two roots.

use super::project::{EcmaProject, MAX_DEPTH};
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
            && (self.reaches(file_a, start_a, (file_b, start_b), 0)
                || self.reaches(file_b, start_b, (file_a, start_a), 0))
    }

    /// Whether the class or interface at `start` of `file` has `target` up what it extends
    /// and implements, as written.
    fn reaches(&self, file: &str, start: u32, target: (&str, u32), depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let Some(facts) = self.facts(file) else {
            return false;
        };
        let Some(bases) = facts.written_bases.get(&start) else {
            return false;
        };
        bases.iter().any(|(base, _)| {
            self.place_of(file, base, depth + 1)
                .is_ok_and(|(base_file, base_start)| {
                    (base_file.as_str(), base_start) == target
                        || self.reaches(&base_file, base_start, target, depth + 1)
                })
        })
    }
}

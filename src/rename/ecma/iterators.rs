//! Members JavaScript itself calls by name on an iterator: `for … of`, a spread and a
//! destructuring call `next` (and `return`, `throw`) on what `[Symbol.iterator]()` returns, no
//! text naming the call. A class is such an iterator when that method of it returns `this`
//! (a generator's returns its own iterator), or when one, of any class or object literal,
//! makes a `new` of it (see [`super::reached::iterator_classes`]). Renaming its `next` left
//! `for … of` calling nothing, with exit 0.

use super::project::{EcmaProject, Place};
use std::collections::BTreeSet;

/// The members an iteration calls by name.
const ITERATOR_MEMBERS: &[&str] = &["next", "return", "throw"];

impl EcmaProject<'_> {
    /// The class of `hierarchy` (a member's, up and down) that is an iterator, by its name,
    /// when member `name` is one an iteration calls by name.
    pub(super) fn iterator_in_hierarchy(&self, hierarchy: &[Place], name: &str) -> Option<String> {
        if !ITERATOR_MEMBERS.contains(&name) {
            return None;
        }
        let iterator = hierarchy.iter().find(|p| self.is_iterator(p))?;
        self.facts(&iterator.0)?
            .holder_names
            .get(&iterator.1)
            .cloned()
    }

    /// Whether the class at `place` is one whose instances an iteration's method returns:
    /// read in the files that spell its name (its own among them).
    fn is_iterator(&self, place: &Place) -> bool {
        let Some(name) = self
            .facts(&place.0)
            .and_then(|f| f.holder_names.get(&place.1).cloned())
        else {
            return false;
        };
        let names = BTreeSet::from([name]);
        let spelling = self.words().spelling_any(&names);
        std::iter::once(place.0.as_str())
            .chain(spelling)
            .any(|path| {
                self.facts(path).is_some_and(|f| {
                    f.iterators
                        .iter()
                        .any(|raw| self.place_of(path, raw, 1).is_ok_and(|p| p == *place))
                })
            })
    }
}

//! Single-file components (`.vue`, `.svelte`, `.astro`) hold JavaScript or TypeScript lancet
//! does not read: a script block, and a template whose bindings are expressions
//! (`{{ store.greet() }}`). A JavaScript/TypeScript rename whose old name stands in one would
//! leave that use naming nothing, so it is refused unless the person leaves those sites.

use super::model::{Chosen, RenameOptions};
use super::words::whole_word_offsets;
use crate::report::RenameRefusal;
use lancet_core::{MAX_LISTED, Root};

/// The extensions of the component formats whose files embed JavaScript or TypeScript.
const COMPONENT_EXTENSIONS: [&str; 3] = [".vue", ".svelte", ".astro"];

/// The refusal of a JavaScript/TypeScript rename whose OLD stands in a single-file component,
/// if it does: unless the person leaves undecided sites or only locals are renamed.
pub(super) fn component_files_refusal(
    root: &Root,
    files: &[String],
    opts: &RenameOptions,
    chosen: &Chosen,
    renames_ecma: bool,
) -> Option<RenameRefusal> {
    if opts.leave_unresolved || chosen.only_locals() || !renames_ecma {
        return None;
    }
    let mut places = Vec::new();
    for path in files {
        if !COMPONENT_EXTENSIONS.iter().any(|e| path.ends_with(e)) {
            continue;
        }
        let Ok(bytes) = root.dir().read(path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if !whole_word_offsets(line.as_bytes(), &opts.old).is_empty() {
                places.push((path.clone(), n + 1));
            }
        }
    }
    places.truncate(MAX_LISTED);
    (!places.is_empty()).then(|| RenameRefusal::ComponentFiles {
        old: opts.old.clone(),
        places,
    })
}

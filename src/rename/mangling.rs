//! Python's private names, as a rename must respect them: inside a class body `__x` is read as
//! `_C__x` (C the innermost class, its leading underscores dropped), so what a private name
//! reaches depends on where it stands. A rename to or from one is refused where the sites it
//! changes stand in different classes, or some inside a class and some outside (renamed, they
//! would reach different things, or one thing where they reached two), and where OLD is used
//! spelled mangled (`obj._C__x`), which the rename would leave reaching nothing.

use super::model::{FileScan, RenameOptions};
use crate::report::RenameRefusal;
use lancet_core::MAX_LISTED;

/// Whether Python mangles `name` in a class body: two leading underscores, not two trailing.
fn mangled(name: &str) -> bool {
    name.starts_with("__") && !name.ends_with("__") && name.len() > 2
}

/// The refusal of a rename whose private OLD or NEW would change what a site reaches, if it
/// would. `touched` are the files with sites to rename, `scanned` every file that holds OLD.
pub(super) fn mangling_refusal(
    opts: &RenameOptions,
    touched: &[&FileScan],
    scanned: &[FileScan],
) -> Option<RenameRefusal> {
    let (old_private, new_private) = (mangled(&opts.old), mangled(&opts.new));
    if !old_private && !new_private {
        return None;
    }
    let (which, name) = if old_private {
        ("OLD", &opts.old)
    } else {
        ("NEW", &opts.new)
    };
    let spelled: Vec<(String, usize, String)> = if old_private {
        scanned
            .iter()
            .filter(|s| s.language == "python")
            .flat_map(|s| spelled_mangled(s, &opts.old))
            .take(MAX_LISTED)
            .collect()
    } else {
        Vec::new()
    };
    // Both private: each site keeps its class, so only a mangled spelling is left behind.
    let sites: Vec<(String, usize, Option<String>)> = if old_private != new_private {
        let all: Vec<(String, usize, Option<String>)> = touched
            .iter()
            .filter(|s| s.language == "python")
            .flat_map(|s| s.spans.iter().map(move |span| (s, span)))
            .map(|(s, span)| (s.path.clone(), span.line, enclosing_class(s, span.start)))
            .collect();
        let first = all.first().map(|site| &site.2);
        if all.iter().all(|site| Some(&site.2) == first) {
            Vec::new()
        } else {
            all.into_iter().take(MAX_LISTED).collect()
        }
    } else {
        Vec::new()
    };
    (!sites.is_empty() || !spelled.is_empty()).then(|| RenameRefusal::Mangled {
        which,
        name: name.clone(),
        sites,
        spelled,
    })
}

/// The innermost class whose body holds the site at `at`, by name (`None`: no class does, or
/// the site is in a doctest, which runs outside its class).
fn enclosing_class(scan: &FileScan, at: usize) -> Option<String> {
    if scan.occurrences.iter().any(|o| o.at == at && o.doctest) {
        return None;
    }
    let tree = &scan.parsed.tree;
    let mut node = tree.root_node().descendant_for_byte_range(at, at)?;
    while let Some(parent) = node.parent() {
        if parent.kind() == "class_definition" {
            let name = parent.child_by_field_name("name")?;
            return scan.parsed.text.get(name.byte_range()).map(str::to_string);
        }
        node = parent;
    }
    None
}

/// Each identifier that is `old` spelled mangled (`_C__old`): its line and spelling.
fn spelled_mangled(scan: &FileScan, old: &str) -> Vec<(String, usize, String)> {
    let text = scan.parsed.text.as_str();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    memchr::memmem::find_iter(text.as_bytes(), old.as_bytes())
        .filter_map(|at| {
            let end = at + old.len();
            if text.as_bytes().get(end).is_some_and(|&b| word(b)) {
                return None;
            }
            let start = text[..at].bytes().rev().take_while(|&b| word(b)).count();
            let spelling = &text[at - start..end];
            // `_` then a class name (not only underscores), then OLD.
            let class = spelling[..start].trim_start_matches('_');
            (start > 0 && spelling.starts_with('_') && !class.is_empty()).then(|| {
                (
                    scan.path.clone(),
                    lancet_core::line_of(&scan.starts, at),
                    spelling.to_string(),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::mangled;

    #[test]
    fn only_two_leading_underscores_without_two_trailing_are_mangled() {
        assert!(mangled("__secret"));
        assert!(mangled("__x_"));
        assert!(!mangled("__eq__"));
        assert!(!mangled("_private"));
        assert!(!mangled("__"));
        assert!(!mangled("plain"));
    }
}

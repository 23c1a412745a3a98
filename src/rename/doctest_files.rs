//! Text files pytest runs as doctests: `test*.txt` (its default `--doctest-glob`) and the
//! patterns a pytest configuration at the root gives it (`--doctest-glob="*.md"` in `pytest.ini`,
//! `pyproject.toml`, `setup.cfg` or `tox.ini`). lancet renames no such file, so a Python rename
//! whose old name stands in one of their examples (`>>> ` and `... ` lines) would pass the type
//! checker and fail the tests: it is refused unless the person leaves those sites.

use super::model::{Chosen, RenameOptions};
use super::words::whole_word_offsets;
use crate::report::RenameRefusal;
use globset::{Glob, GlobSet, GlobSetBuilder};
use lancet_core::{MAX_LISTED, Root};

/// pytest's own `--doctest-glob`.
const DEFAULT_GLOB: &str = "test*.txt";

/// The configuration files pytest reads its options from, at the root, in its order, each with
/// the section that makes it pytest's (`pytest.ini` is, whatever it holds).
const CONFIGS: [(&str, Option<&str>); 4] = [
    ("pytest.ini", None),
    ("pyproject.toml", Some("[tool.pytest.ini_options]")),
    ("tox.ini", Some("[pytest]")),
    ("setup.cfg", Some("[tool:pytest]")),
];

/// The refusal of a Python rename whose OLD stands in an example of a text file pytest runs as
/// doctests, if it does: unless the person leaves undecided sites or only locals are renamed.
pub(super) fn doctest_files_refusal(
    root: &Root,
    files: &[String],
    opts: &RenameOptions,
    chosen: &Chosen,
    renames_python: bool,
) -> Option<RenameRefusal> {
    if opts.leave_unresolved || chosen.only_locals() || !renames_python {
        return None;
    }
    let globs = doctest_globs(root);
    let mut places = Vec::new();
    for path in files {
        let name = path.rsplit('/').next().unwrap_or(path);
        if path.ends_with(".py") || !(globs.is_match(name) || globs.is_match(path)) {
            continue;
        }
        let Ok(bytes) = root.dir().read(path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        // An example's lines, and the expected output after them (up to a blank line), which
        // doctest compares as text.
        let mut in_example = false;
        for (n, line) in text.lines().enumerate() {
            let rest = line.trim();
            let prompt = rest.starts_with(">>>") || (in_example && rest.starts_with("..."));
            in_example = prompt || (in_example && !rest.is_empty());
            if in_example && !whole_word_offsets(rest.as_bytes(), &opts.old).is_empty() {
                places.push((path.clone(), n + 1));
            }
        }
    }
    places.truncate(MAX_LISTED);
    (!places.is_empty()).then(|| RenameRefusal::DoctestFiles {
        old: opts.old.clone(),
        places,
    })
}

/// The file-name patterns pytest collects doctests from: its default, and each
/// `--doctest-glob` of the configuration pytest reads at the root (the first of `pytest.ini`,
/// then the others holding its section).
fn doctest_globs(root: &Root) -> GlobSet {
    let mut patterns = vec![DEFAULT_GLOB.to_string()];
    let read = |name: &str| {
        let bytes = root.dir().read(name).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    let config = CONFIGS.iter().find_map(|(name, section)| {
        read(name).filter(|text| section.is_none_or(|s| text.contains(s)))
    });
    if let Some(text) = config {
        patterns.extend(glob_options(&text));
    }
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        if let Ok(glob) = Glob::new(&pattern) {
            set.add(glob);
        }
    }
    set.build().unwrap_or_else(|_| GlobSet::empty())
}

/// Each pattern given to `--doctest-glob` in a configuration's text (`--doctest-glob="*.md"`,
/// `--doctest-glob *.rst`).
fn glob_options(text: &str) -> Vec<String> {
    text.match_indices("--doctest-glob")
        .filter_map(|(at, option)| {
            // `=`, a space, or the next element of a list (`"--doctest-glob", "*.md"`).
            let rest =
                text[at + option.len()..].trim_start_matches(['=', ' ', '"', '\'', ',', '\\']);
            let end = rest
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ']' | '\\'))
                .unwrap_or(rest.len());
            (end > 0).then(|| rest[..end].to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::glob_options;

    #[test]
    fn doctest_globs_are_read_from_a_configuration() {
        let text = "[pytest]\naddopts = --doctest-glob=\"*.md\" --doctest-glob *.rst -q\n\
[tool.pytest.ini_options]\naddopts = [\"--doctest-glob=docs/*.txt\", \"--doctest-glob\", \"*.markdown\"]\n";
        assert_eq!(
            glob_options(text),
            ["*.md", "*.rst", "docs/*.txt", "*.markdown"]
        );
    }
}

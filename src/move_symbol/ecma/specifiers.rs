//! Module specifiers as a file spells them: the new module named from an importer in the style
//! its import of the old one used (extensionless, `.js` for a `.ts` source, the real
//! extension, a directory for its `index`), and a relative specifier carried from one
//! directory to another.

/// Whether a specifier is relative (`./a`, `../b`).
pub(super) fn is_relative(specifier: &str) -> bool {
    specifier.starts_with("./")
        || specifier.starts_with("../")
        || specifier == "."
        || specifier == ".."
}

/// The directory of a path (`""` at the root).
fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// `dir/rel` with `.` and `..` resolved (`None` when it leaves the root).
fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// `to` relative to directory `from_dir`, starting `./` or `../`.
fn relative_to(from_dir: &str, to: &str) -> String {
    let from: Vec<&str> = from_dir.split('/').filter(|p| !p.is_empty()).collect();
    let target: Vec<&str> = to.split('/').collect();
    // The target's last part is its file: never one of the directories shared.
    let common = from
        .iter()
        .zip(&target[..target.len() - 1])
        .take_while(|(a, b)| a == b)
        .count();
    let ups = from.len() - common;
    let rest = target[common..].join("/");
    if ups == 0 {
        format!("./{rest}")
    } else {
        format!("{}{rest}", "../".repeat(ups))
    }
}

/// A path without its source extension, and the extension.
fn split_extension(path: &str) -> (&str, &str) {
    for ext in [
        ".d.ts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs",
    ] {
        if let Some(stem) = path.strip_suffix(ext) {
            return (stem, ext);
        }
    }
    (path, "")
}

/// The extension a `.js`-style specifier gives a source file.
fn emitted(ext: &str) -> &str {
    match ext {
        ".mts" | ".mjs" => ".mjs",
        ".cts" | ".cjs" => ".cjs",
        _ => ".js",
    }
}

/// How an importer spelled a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// `./a`.
    Bare,
    /// `./a.js` for `a.ts`.
    Emitted,
    /// `./a.ts`.
    Source,
    /// `./dir` for `dir/index.ts`.
    Directory,
}

/// How `specifier`, written in `importer`, names `target`.
fn style_of(importer: &str, specifier: &str, target: &str) -> Style {
    let (stem, _) = split_extension(target);
    let named = join(dir_of(importer), specifier).unwrap_or_default();
    if named == target {
        Style::Source
    } else if named == stem {
        Style::Bare
    } else if stem.strip_suffix("/index") == Some(named.as_str()) {
        Style::Directory
    } else if split_extension(&named).0 == stem {
        Style::Emitted
    } else {
        Style::Bare
    }
}

/// `target` as a specifier from `importer` in a style.
fn spell(importer: &str, target: &str, style: Style) -> String {
    let (stem, ext) = split_extension(target);
    let path = match style {
        Style::Source => target.to_string(),
        Style::Emitted => format!("{stem}{}", emitted(ext)),
        Style::Bare | Style::Directory => stem
            .strip_suffix("/index")
            .filter(|_| style == Style::Directory)
            .unwrap_or(stem)
            .to_string(),
    };
    relative_to(dir_of(importer), &path)
}

/// The specifier for `new` in `importer`, in the style its `old_specifier` names `old` with
/// (a bare or package specifier: the plain relative style).
pub(super) fn respell(importer: &str, old_specifier: &str, old: &str, new: &str) -> String {
    let style = if is_relative(old_specifier) {
        style_of(importer, old_specifier, old)
    } else {
        Style::Bare
    };
    // A directory's index is reached by its directory only when the new module is an index too.
    let style = if style == Style::Directory && !split_extension(new).0.ends_with("/index") {
        Style::Bare
    } else {
        style
    };
    spell(importer, new, style)
}

/// The specifier for `target` in `importer`, in the style `example` (a relative specifier
/// of `example_file`'s, naming `example_target`) shows, or extensionless.
pub(super) fn spell_like(
    importer: &str,
    target: &str,
    example: Option<(&str, &str, &str)>,
) -> String {
    match example {
        Some((file, specifier, named)) => {
            let style = match style_of(file, specifier, named) {
                Style::Directory => Style::Bare,
                other => other,
            };
            spell(importer, target, style)
        }
        None => spell(importer, target, Style::Bare),
    }
}

/// A relative specifier written in `from_file`, as `to_file` (elsewhere) writes it to reach
/// the same path; any other specifier is kept.
pub(super) fn carry(specifier: &str, from_file: &str, to_file: &str) -> String {
    if !is_relative(specifier) || dir_of(from_file) == dir_of(to_file) {
        return specifier.to_string();
    }
    match join(dir_of(from_file), specifier) {
        Some(path) => relative_to(dir_of(to_file), &path),
        None => specifier.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{carry, respell};

    #[test]
    fn the_new_module_is_spelled_as_the_importer_spelled_the_old_one() {
        assert_eq!(respell("src/x.ts", "./a", "src/a.ts", "src/b.ts"), "./b");
        assert_eq!(
            respell("src/x.ts", "./a.js", "src/a.ts", "src/lib/b.ts"),
            "./lib/b.js"
        );
        assert_eq!(
            respell("src/x/y.ts", "../a.ts", "src/a.ts", "src/b.tsx"),
            "../b.tsx"
        );
        assert_eq!(
            respell("src/x.ts", "./util", "src/util/index.ts", "src/b/index.ts"),
            "./b"
        );
        assert_eq!(
            respell("src/x.ts", "./util", "src/util/index.ts", "src/util/b.ts"),
            "./util/b"
        );
        assert_eq!(carry("./a", "src/m.ts", "src/n.ts"), "./a");
        assert_eq!(carry("./a", "src/m.ts", "src/lib/n.ts"), "../a");
        assert_eq!(carry("../t", "src/lib/m.ts", "src/n.ts"), "./t");
        assert_eq!(carry("react", "src/lib/m.ts", "src/n.ts"), "react");
        // A file beside a directory of its name (table-core's `utils.ts` and `utils/`).
        assert_eq!(
            respell(
                "src/utils/rows.ts",
                "../types",
                "src/types.ts",
                "src/utils.ts"
            ),
            "../utils"
        );
    }
}

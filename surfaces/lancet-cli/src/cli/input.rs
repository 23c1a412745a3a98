//! The edit text a command reads: the `--format` choice, and the inputs (files, directories of
//! edits, stdin, JSON lines) parsed into one batch.

use clap::ValueEnum;
use clap::builder::PossibleValue;
use lancet::{Batch, Format};
use lancet::{ErrorKind, Report, Status};
use lancet::{FormatChoice, ParseError, ParseOptions};
use std::io::Read;
use std::path::PathBuf;

/// `--format`: detect, or one format by the name lancet-core gives it ([`Format::name`]), with
/// what `--help` says of it.
#[derive(Debug, Clone, Copy)]
pub(super) struct FormatArg {
    choice: FormatChoice,
    help: &'static str,
}

impl FormatArg {
    /// Detect the format (the default).
    pub(super) const AUTO: FormatArg = FormatArg {
        choice: FormatChoice::Auto,
        help: "Detect the format",
    };

    /// The formats `--help` offers, in its order.
    const OFFERED: [FormatArg; 9] = [
        FormatArg::AUTO,
        FormatArg::only(Format::Patch, "The Codex `*** Begin Patch` format"),
        FormatArg::only(
            Format::Anchors,
            "Line-anchored edits on the `LINE:HASH` anchors of `lancet read --anchors`: \
             `*** Edit Lines: PATH [sha256 HEX]`, then `@@ replace 12:a3k..15:k9z` + new lines, \
             `@@ insert after 20:b7q`, `@@ insert before …`, `@@ delete …`",
        ),
        FormatArg::only(
            Format::OpenaiPatch,
            "OpenAI's `apply_patch` operations as JSON: `{\"type\": \"update_file\", \"path\", \
             \"diff\"}` (also `create_file`, `delete_file`, `move_to`, a list or \
             `{\"operations\": [...]}`)",
        ),
        FormatArg::only(
            Format::SearchReplace,
            "`<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks",
        ),
        FormatArg::only(Format::Unified, "Unified or git diffs"),
        FormatArg::only(
            Format::Json,
            "Tool-call JSON (`old_string`/`new_string`, text-editor commands)",
        ),
        FormatArg::only(
            Format::Whole,
            "A filename line and a fenced block with the whole file",
        ),
        FormatArg::only(
            Format::Sketch,
            "The whole new text of the file `--path` names, unchanged parts elided by markers \
             (`// ... existing code ...`): a lazy sketch, placed deterministically or refused",
        ),
    ];

    const fn only(format: Format, help: &'static str) -> FormatArg {
        FormatArg {
            choice: FormatChoice::Only(format),
            help,
        }
    }

    pub(super) fn choice(self) -> FormatChoice {
        self.choice
    }
}

impl ValueEnum for FormatArg {
    fn value_variants<'a>() -> &'a [Self] {
        &FormatArg::OFFERED
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let name = match self.choice {
            FormatChoice::Auto => "auto",
            FormatChoice::Only(format) => format.name(),
        };
        Some(PossibleValue::new(name).help(self.help))
    }
}

/// Expands directories into the edit files directly inside them, in name order (hidden files
/// skipped), so a directory of generated edits is one batch in a predictable order.
fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, Box<Report>> {
    let mut files = Vec::new();
    for input in inputs {
        if input.as_os_str() != "-" && input.is_dir() {
            let listing = std::fs::read_dir(input)
                .map_err(|e| Box::new(usage(format!("cannot list {}: {e}", input.display()))))?;
            let mut inside: Vec<PathBuf> = listing
                .filter_map(|e| e.ok())
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.path())
                .collect();
            inside.sort();
            files.extend(inside);
        } else {
            files.push(input.clone());
        }
    }
    if files.is_empty() {
        files.push(PathBuf::from("-"));
    }
    Ok(files)
}

fn usage(detail: String) -> Report {
    Report::batch_error(
        Status::Malformed,
        ErrorKind::Usage,
        detail,
        "Pass readable edit files or directories, or the edit on stdin.",
    )
}

/// Reads and parses every input into one batch (operations in input order). With `jsonl`, each
/// line of each input is one edit: a tool-call object, an OpenAI `apply_patch` operation, or a
/// JSON string of edit text.
pub(super) fn read_batch(
    inputs: &[PathBuf],
    format: FormatChoice,
    opts: &ParseOptions,
    jsonl: bool,
) -> Result<Batch, Box<Report>> {
    let mut batch: Option<Batch> = None;
    let mut add = |parsed: Result<Batch, ParseError>, name: &str| match parsed {
        Err(e) => Err(Box::new(Report::malformed(&e, Some(name)))),
        Ok(b) => {
            match &mut batch {
                None => batch = Some(b),
                Some(acc) => {
                    acc.ops.extend(b.ops);
                    acc.notes.extend(b.notes);
                }
            }
            Ok(())
        }
    };
    for input in expand_inputs(inputs)? {
        let is_stdin = input.as_os_str() == "-";
        let mut bytes = Vec::new();
        let read = if is_stdin {
            std::io::stdin().read_to_end(&mut bytes).map(|_| ())
        } else {
            std::fs::File::open(&input).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
        };
        let name = if is_stdin {
            "stdin".to_string()
        } else {
            input.display().to_string()
        };
        if let Err(e) = read {
            return Err(Box::new(usage(format!("cannot read {name}: {e}"))));
        }
        if !jsonl {
            let parsed = lancet::parse(&bytes, format, opts);
            add(parsed, &name)?;
            continue;
        }
        let entries = match lancet::surfaces::parse_json_lines(&bytes, format, opts) {
            Ok(entries) => entries,
            Err(e) => return Err(Box::new(Report::malformed(&e, Some(&name)))),
        };
        for (line, parsed) in entries {
            add(parsed, &format!("{name} entry {line}"))?;
        }
    }
    batch.ok_or_else(|| Box::new(usage("the inputs hold no edit".into())))
}

#[cfg(test)]
mod tests {
    use super::FormatArg;
    use clap::ValueEnum;
    use lancet::{Format, FormatChoice};

    /// `--format` offers every text format auto-detection knows and the sketch, each by the
    /// name lancet-core gives it, and nothing else besides `auto`.
    #[test]
    fn format_offers_every_format_by_its_core_name() {
        let offered: Vec<(FormatChoice, String)> = FormatArg::value_variants()
            .iter()
            .map(|v| {
                (
                    v.choice(),
                    v.to_possible_value().unwrap().get_name().to_string(),
                )
            })
            .collect();
        let mut wanted: Vec<Format> = Format::STRICTEST_FIRST.to_vec();
        wanted.push(Format::Sketch);
        for format in &wanted {
            assert!(
                offered.contains(&(FormatChoice::Only(*format), format.name().to_string())),
                "{format:?} offered as {:?}",
                format.name()
            );
        }
        assert_eq!(offered.len(), wanted.len() + 1);
        assert!(offered.contains(&(FormatChoice::Auto, "auto".to_string())));
    }
}

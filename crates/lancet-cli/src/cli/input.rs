//! The edit text a command reads: the `--format` choice, and the inputs (files, directories of
//! edits, stdin, JSON lines) parsed into one batch.

use clap::ValueEnum;
use lancet::{Batch, Format};
use lancet::{ErrorKind, Report, Status};
use lancet::{FormatChoice, ParseError, ParseOptions};
use std::io::Read;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum FormatArg {
    /// Detect the format.
    Auto,
    /// The Codex `*** Begin Patch` format.
    Patch,
    /// Line-anchored edits on the `LINE:HASH` anchors of `lancet read --anchors`:
    /// `*** Edit Lines: PATH [sha256 HEX]`, then `@@ replace 12:a3k..15:k9z` + new lines,
    /// `@@ insert after 20:b7q`, `@@ insert before …`, `@@ delete …`.
    Anchors,
    /// OpenAI's `apply_patch` operations as JSON: `{"type": "update_file", "path", "diff"}`
    /// (also `create_file`, `delete_file`, `move_to`, a list or `{"operations": [...]}`).
    OpenaiPatch,
    /// `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks.
    SearchReplace,
    /// Unified or git diffs.
    Unified,
    /// Tool-call JSON (`old_string`/`new_string`, text-editor commands).
    Json,
    /// A filename line and a fenced block with the whole file.
    Whole,
    /// The whole new text of the file `--path` names, unchanged parts elided by markers
    /// (`// ... existing code ...`): a lazy sketch, placed deterministically or refused.
    Sketch,
}

impl FormatArg {
    pub(super) fn choice(self) -> FormatChoice {
        match self {
            FormatArg::Auto => FormatChoice::Auto,
            FormatArg::Patch => FormatChoice::Only(Format::Patch),
            FormatArg::OpenaiPatch => FormatChoice::Only(Format::OpenaiPatch),
            FormatArg::Anchors => FormatChoice::Only(Format::Anchors),
            FormatArg::SearchReplace => FormatChoice::Only(Format::SearchReplace),
            FormatArg::Unified => FormatChoice::Only(Format::Unified),
            FormatArg::Json => FormatChoice::Only(Format::Json),
            FormatArg::Whole => FormatChoice::Only(Format::Whole),
            FormatArg::Sketch => FormatChoice::Only(Format::Sketch),
        }
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
        let entries = match lancet::parse_json_lines(&bytes, format, opts) {
            Ok(entries) => entries,
            Err(e) => return Err(Box::new(Report::malformed(&e, Some(&name)))),
        };
        for (line, parsed) in entries {
            add(parsed, &format!("{name} entry {line}"))?;
        }
    }
    batch.ok_or_else(|| Box::new(usage("the inputs hold no edit".into())))
}

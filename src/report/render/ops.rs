//! Operation failures in words: what an operation could not do to which file and why, and what
//! to send next in the surface's vocabulary; and a batch that could not be staged at all.

use super::sketch::sketch_refusal;
use super::{Words, join_all_lines};
use crate::report::Surface;
use lancet_core::failure::{Doing, OpFailure, StageError};
use lancet_core::locate::anchored::{AnchorProblem, AnchoredLine, MOVE_WINDOW};
use lancet_core::notes::FileNote;
use lancet_core::rebase::ConflictRegion;
use std::fmt;

/// How an edit of `format` (its name) creates, changes and deletes a file: the advice names
/// what the model's own format writes (a JSON edit has no `Add File`).
struct Verbs {
    create: &'static str,
    update: &'static str,
    delete: &'static str,
}

fn verbs(format: &str) -> Verbs {
    match format {
        "patch" => Verbs {
            create: "create it with Add File",
            update: "use Update File to change it",
            delete: "Delete File still works",
        },
        "openai-patch" => Verbs {
            create: "create it with a create_file operation",
            update: "use an update_file operation to change it",
            delete: "a delete_file operation still works",
        },
        "json" => Verbs {
            create: "create it with an empty old_string and the whole file as new_string",
            update: "change it with old_string/new_string copied from it",
            delete: "deleting it still works",
        },
        "search-replace" => Verbs {
            create: "create it with a block whose SEARCH section is empty",
            update: "change it with SEARCH text copied from it",
            delete: "deleting it still works",
        },
        "unified" => Verbs {
            create: "create it with a diff from /dev/null",
            update: "change it with a diff of its current lines",
            delete: "a diff to /dev/null still works",
        },
        _ => Verbs {
            create: "create it as a new file",
            update: "change it with an edit of its current lines",
            delete: "deleting it still works",
        },
    }
}

/// A file an operation needs that does not exist: the nearest paths that do, and for an
/// update, how the edit's format creates one.
fn missing(path: &str, doing: Doing, nearest: &[String], verbs: &Verbs) -> String {
    let meant = match nearest {
        [] => String::new(),
        [one] => format!("did you mean {one}? "),
        [first @ .., last] => format!("did you mean {} or {last}? ", first.join(", ")),
    };
    match doing {
        Doing::Update if meant.is_empty() => format!(
            "cannot update {path}: it does not exist ({}, or check the path)",
            verbs.create
        ),
        Doing::Update => format!(
            "cannot update {path}: it does not exist ({meant}If it is a new file, {})",
            verbs.create
        ),
        _ if meant.is_empty() => format!("cannot {} {path}: it does not exist", verb(doing)),
        _ => format!(
            "cannot {} {path}: it does not exist ({})",
            verb(doing),
            meant.trim_end()
        ),
    }
}

/// An operation's failure in words, in the vocabulary of the edit's `format`.
pub(crate) fn op_failure(failure: &OpFailure, surface: Surface, format: &str) -> String {
    let verbs = verbs(format);
    match failure {
        OpFailure::Stage(e) => Words(e).to_string(),
        OpFailure::IsDirectory { path, doing } => {
            format!("cannot {} {path}: it is a directory", verb(*doing))
        }
        OpFailure::NotRegular { path, doing } => {
            format!("cannot {} {path}: it is not a regular file", verb(*doing))
        }
        OpFailure::Missing {
            path,
            doing,
            nearest,
        } => missing(path, *doing, nearest, &verbs),
        OpFailure::Gone { path } => format!("cannot update {path}: it no longer exists"),
        OpFailure::ChangedSinceRead { path } => {
            format!("{path} changed after it was read; run the command again")
        }
        OpFailure::SpanOutside { path, index } => {
            format!("{path}: replacement {index} overlaps another or leaves the file")
        }
        OpFailure::Exists { path } => format!(
            "cannot add {path}: it already exists with different content; {} (read it first: {})",
            verbs.update,
            surface.read(path)
        ),
        OpFailure::MoveOntoExisting { path, to } => format!(
            "cannot move {path} to {to}: {to} already exists with different content; delete it first or update it instead"
        ),
        OpFailure::MoveOntoSpecial { path, to } => {
            format!("cannot move {path} to {to}: {to} is a directory or special file")
        }
        OpFailure::NotText { path, doing, why } => format!(
            "cannot {} {path}: the file is {why}; lancet edits only UTF-8 text{}",
            verb(*doing),
            if *doing == Doing::Update {
                format!(" ({})", verbs.delete)
            } else {
                String::new()
            }
        ),
        OpFailure::Undecodable { path, why } => format!(
            "cannot update {path}: the file is {why}, so lancet cannot edit it without risking its bytes ({})",
            verbs.delete
        ),
        OpFailure::Unencodable { path, doing, why } => match doing {
            Doing::Update => format!(
                "cannot update {path}: {why}; nothing was changed. Send text the file's encoding can hold (an escape such as \\u2603 in a string literal)"
            ),
            _ => format!("cannot {} {path}: {why}; nothing was changed", verb(*doing)),
        },
        OpFailure::Placeholder { path, line } => format!(
            "the new content of {path} contains the omission placeholder {line:?}; writing it would replace real code with it. Next: send the complete content, or edit only the part that changes."
        ),
        OpFailure::SketchUnplaced {
            path,
            spelling,
            why,
        } => format!(
            "the new content of {path} is a sketch (markers like `{spelling}`), and lancet could not place it: {}. Nothing was written.",
            sketch_refusal(why)
        ),
        OpFailure::StaleAnchors { path, why } => format!("{path}: {}", anchor_problem(why)),
        OpFailure::AnchorsUnread { path, fitting } => anchors_unread(path, *fitting, surface),
        OpFailure::DeleteChanged { path } => format!(
            "{path} changed since you read it; deleting it now would drop those changes unseen. Nothing was written. Next: read it again ({}) and decide.",
            surface.read(path)
        ),
        OpFailure::RebaseConflict { path, regions } => format!(
            "{path} changed since you read it, and in {} those changes touch lines your edit changes (a 3-way merge of what you read, the file now and your edit; changes with no unchanged line between them conflict). Nothing was written.\n{}Next: read it again ({}) and resend the edit against the current text.",
            if regions.len() == 1 {
                "one region".to_string()
            } else {
                format!("{} regions", regions.len())
            },
            conflict_regions(regions),
            surface.read(path)
        ),
    }
}

/// Line anchors that name no read no kept read decides: why lancet cannot place them safely,
/// and how to name the read.
fn anchors_unread(path: &str, fitting: usize, surface: Surface) -> String {
    let unnamed = match surface {
        Surface::Cli => "no sha256 names the read the anchors came from",
        Surface::Mcp => "you have not read it in this session",
    };
    let kept = match fitting {
        0 => "no read of it that lancet kept fits them".to_string(),
        n => format!(
            "{n} reads of it that lancet kept fit them but differ in the lines the edits change"
        ),
    };
    format!(
        "{path}: {unnamed}, {kept}, and a 3-character line hash alone cannot tell the line read from one changed since. Nothing was written. Next: {}.",
        surface.name_the_read(path)
    )
}

/// What an operation was doing, as the verb of "cannot … PATH".
fn verb(doing: Doing) -> &'static str {
    match doing {
        Doing::Add => "add",
        Doing::Write => "write",
        Doing::Update => "update",
        Doing::Append => "append to",
        Doing::Delete => "delete",
        Doing::EditLines => "edit lines of",
    }
}

/// The conflict regions as the refusal shows them: each region's line, then the three versions
/// indented under their names.
pub(crate) fn conflict_regions(regions: &[ConflictRegion]) -> String {
    let block = |text: &str| {
        if text.is_empty() {
            "      (no lines)\n".to_string()
        } else {
            text.lines().map(|l| format!("      {l}\n")).collect()
        }
    };
    let mut out = String::new();
    for (i, r) in regions.iter().enumerate() {
        out.push_str(&format!(
            "  region {} at line {} of the file now:\n    as you read it:\n{}    as it is now:\n{}    with your edit:\n{}",
            i + 1,
            r.line,
            block(&r.read),
            block(&r.now),
            block(&r.edited)
        ));
    }
    out
}

impl fmt::Display for Words<'_, StageError> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            StageError::Path(e) => e.fmt(f),
            StageError::Stale {
                path,
                expected,
                actual,
            } => write!(
                f,
                "{path} changed since it was read: expected sha256 {expected}, the file now has {actual}"
            ),
            StageError::FileDirectoryConflict { file, inside } => write!(
                f,
                "{inside} would be inside {file}, which the batch writes as a file: no write order can do both"
            ),
            StageError::ExpectedMissing { path, expected } => write!(
                f,
                "{path} does not exist (a sha256 was expected for it: {expected})"
            ),
            StageError::NoSnapshot { path, sha256 } => write!(
                f,
                "{path} changed since it was read (sha256 {sha256}), and lancet keeps no snapshot of that content to rebase the edit from"
            ),
            StageError::Io { path, source } => write!(f, "cannot read {path}: {source}"),
        }
    }
}

/// Why line anchors do not hold, and what to send instead.
fn anchor_problem(problem: &AnchorProblem) -> String {
    let now = |line: &AnchoredLine| match line {
        AnchoredLine::Beyond(lines) => format!("the file has {lines} lines"),
        AnchoredLine::Reads { line, text, hash } => {
            format!("line {line} reads {text:?} (hash {hash})")
        }
    };
    match problem {
        AnchorProblem::Backwards { first, last, lines } => format!(
            "the range {first}..{last} ends before it starts (lines {} and {} of the file)",
            lines.0, lines.1
        ),
        AnchorProblem::NotAsRead { anchor, now: line } => format!(
            "anchor {anchor} does not match what was read: {}; copy anchors from the read's LINE:HASH prefixes",
            now(line)
        ),
        AnchorProblem::Stale { anchor, now: line } => format!(
            "anchor {anchor} is stale: {}, and no line within {MOVE_WINDOW} lines has hash {}; read the file again (lancet read --anchors) or send the read's sha256 so the edit can be rebased",
            now(line),
            anchor.hash
        ),
        AnchorProblem::Ambiguous { anchor, lines } => format!(
            "anchor {anchor} moved and its hash stands on {} nearby lines ({}); read the file again for fresh anchors",
            lines.len(),
            join_all_lines(lines)
        ),
    }
}

/// New text read as a lazy sketch, an operation's or a hunk's.
pub(crate) fn read_as_sketch(markers: usize, kept: usize) -> String {
    format!("read as a lazy sketch: {}", markers_kept(markers, kept))
}

/// What a sketch's markers stood for.
fn markers_kept(markers: usize, kept: usize) -> String {
    format!("its {markers} marker(s) kept {kept} old line(s) in place")
}

/// What a model must know of how an operation was carried out, in words.
pub(crate) fn file_note(note: &FileNote) -> String {
    match note {
        FileNote::AnchorMoved { anchor, now } => {
            format!("anchor {anchor} moved: its line is now line {now}")
        }
        FileNote::RebasedAlreadyThere => {
            "it changed since you read it, and it already holds your change: nothing to write"
                .to_string()
        }
        FileNote::Rebased(changed) => format!(
            "it changed since you read it: your edit was applied to what you read, then rebased over {changed} changed line(s) of the file now (a 3-way merge, no conflict); the diff and line numbers are the file's now"
        ),
        FileNote::Sketch { markers, kept } => read_as_sketch(*markers, *kept),
        FileNote::SketchOfLines {
            first,
            last,
            markers,
            kept,
        } => {
            let kept = match markers {
                0 => String::new(),
                _ => format!("; {}", markers_kept(*markers, *kept)),
            };
            format!("read as a sketch of old lines {first}-{last}, the rest of the file kept{kept}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{anchor_problem, conflict_regions};
    use lancet_core::LineAnchor;
    use lancet_core::locate::anchored::{AnchorProblem, AnchoredLine};
    use lancet_core::rebase::ConflictRegion;

    #[test]
    fn a_stale_anchor_says_what_its_line_reads_now_and_how_to_go_on() {
        let anchor = LineAnchor {
            line: 2,
            hash: "abc".into(),
        };
        assert_eq!(
            anchor_problem(&AnchorProblem::Stale {
                anchor: anchor.clone(),
                now: AnchoredLine::Reads {
                    line: 2,
                    text: "B".into(),
                    hash: "f00".into()
                }
            }),
            "anchor 2:abc is stale: line 2 reads \"B\" (hash f00), and no line within 20 lines has hash abc; read the file again (lancet read --anchors) or send the read's sha256 so the edit can be rebased"
        );
        assert_eq!(
            anchor_problem(&AnchorProblem::Ambiguous {
                anchor,
                lines: vec![1, 3]
            }),
            "anchor 2:abc moved and its hash stands on 2 nearby lines (1, 3); read the file again for fresh anchors"
        );
    }

    #[test]
    fn the_rendering_shows_all_three_versions() {
        let regions = vec![ConflictRegion {
            line: 3,
            read: "c\n".into(),
            now: String::new(),
            edited: "C\n".into(),
        }];
        assert_eq!(
            conflict_regions(&regions),
            "  region 1 at line 3 of the file now:\n    as you read it:\n      c\n    as it is now:\n      (no lines)\n    with your edit:\n      C\n"
        );
    }
}

//! The bodies of the single-file writing tools (`edit_lines`, `edit`, `write_file`): each call
//! made a batch, with the bases and expectations of what the model read.

use crate::LancetServer;
use crate::args::{EditArgs, EditLinesArgs, WriteFileArgs};
use crate::call::Call;
use crate::result::{bad_argument, report_result, written_diffs};
use lancet::apply_batch;
use lancet::sha256_hex;
use lancet::{Base, Expectation};
use lancet::{Batch, FileOp, Format, Hunk, Occurrences, OpKind};
use lancet::{ErrorKind, Report, UnreadChange};
use rmcp::model::{CallToolResult, ContentBlock};

impl LancetServer {
    pub(crate) fn edit_lines_blocking(&self, args: &EditLinesArgs, call: &Call) -> CallToolResult {
        use lancet::LineAnchor;
        use lancet::{LineAction, LineEdit};
        let root = match self.root() {
            Ok(r) => r,
            Err(refused) => return refused,
        };
        let rel = match root.rel(&args.path) {
            Ok(r) => r,
            Err(e) => return report_result(&Report::unsafe_path(&e)),
        };
        let mut edits = Vec::new();
        for (i, e) in args.edits.iter().enumerate() {
            let n = i + 1;
            let action = match e.op.as_str() {
                "replace" => LineAction::Replace,
                "insert_after" => LineAction::InsertAfter,
                "insert_before" => LineAction::InsertBefore,
                "delete" => LineAction::Delete,
                other => {
                    return bad_argument(format!(
                        "edits[{n}].op is {other:?}: use replace, insert_after, insert_before or delete"
                    ));
                }
            };
            let anchor = |field: &str, text: &str| {
                LineAnchor::parse(text).ok_or_else(|| {
                    format!(
                        "edits[{n}].{field} is {text:?}: an anchor is LINE:HASH as read_file (anchors: true) shows it, e.g. \"12:a3k\""
                    )
                })
            };
            let first = match anchor("start", &e.start) {
                Ok(a) => a,
                Err(m) => return bad_argument(m),
            };
            let last = match e.end.as_deref() {
                None => first.clone(),
                Some(_) if matches!(action, LineAction::InsertAfter | LineAction::InsertBefore) => {
                    return bad_argument(format!("edits[{n}].end: an insert takes start only"));
                }
                Some(end) => match anchor("end", end) {
                    Ok(a) => a,
                    Err(m) => return bad_argument(m),
                },
            };
            match action {
                LineAction::Delete if !e.lines.is_empty() => {
                    return bad_argument(format!("edits[{n}].lines: a delete takes no lines"));
                }
                LineAction::InsertAfter | LineAction::InsertBefore if e.lines.is_empty() => {
                    return bad_argument(format!("edits[{n}].lines: an insert needs lines"));
                }
                _ => {}
            }
            edits.push(LineEdit {
                action,
                first,
                last,
                lines: e.lines.clone(),
                line: n,
            });
        }
        if edits.is_empty() {
            return bad_argument("edits is empty: send at least one edit".to_string());
        }
        let batch = Batch {
            format: Format::Anchors,
            ops: vec![FileOp {
                path: rel.to_string(),
                kind: OpKind::Lines {
                    base_sha256: None,
                    edits,
                },
                line: 1,
            }],
            notes: Vec::new(),
        };
        let mut opts = match self.options_testing(args.test, call) {
            Ok(o) => o,
            Err(refusal) => return refusal,
        };
        // The anchors are the read's: a file changed since is edited as read, then rebased.
        opts.base = self.bases(&batch);
        self.answer(apply_batch(&batch, &opts), call)
    }

    pub(crate) fn edit_blocking(&self, args: &EditArgs, call: &Call) -> CallToolResult {
        let root = match self.root() {
            Ok(r) => r,
            Err(refused) => return refused,
        };
        let rel = match root.rel(&args.path) {
            Ok(r) => r,
            Err(e) => return report_result(&Report::unsafe_path(&e)),
        };
        let occurrences = match (args.replace_all, args.expected_replacements) {
            (Some(true), _) => Occurrences::All,
            (_, Some(n)) if n != 1 => Occurrences::Exactly(n),
            _ => Occurrences::One,
        };
        let kind = if args.old_string.is_empty() {
            OpKind::Create {
                content: args.new_string.clone(),
                executable: false,
            }
        } else {
            OpKind::Update {
                hunks: vec![Hunk {
                    occurrences,
                    ..Hunk::substring(args.old_string.clone(), args.new_string.clone(), 1)
                }],
                move_to: None,
            }
        };
        let batch = Batch {
            format: Format::Json,
            ops: vec![FileOp {
                path: rel.to_string(),
                kind,
                line: 1,
            }],
            notes: Vec::new(),
        };
        let mut opts = match self.options(call) {
            Ok(o) => o,
            Err(refusal) => return refusal,
        };
        if let Some(sha) = &args.expected_sha256 {
            opts.expect.push(Expectation {
                path: rel.to_string(),
                sha256: sha.clone(),
            });
        }
        // Read-before-edit: the edit of a file that changed since the model's read is applied
        // to what it read and rebased over the change (refused, shown three ways, where the
        // two touch); an edit that does not fit even what it read gets what changed.
        let base = self.base_of(rel.as_str());
        opts.base.extend(base.clone());
        let applied = apply_batch(&batch, &opts);
        let conflict = applied
            .report
            .files
            .iter()
            .any(|f| f.kind == Some(ErrorKind::RebaseConflict));
        let now = root.read_regular(&rel);
        if let Some(Base {
            snapshot: Some(seen),
            ..
        }) = &base
            && now.as_deref() != Some(seen.as_slice())
            && !conflict
            && applied.report.exit_code() != 0
        {
            let diff = similar::TextDiff::from_lines(
                String::from_utf8_lossy(seen).into_owned(),
                String::from_utf8_lossy(now.as_deref().unwrap_or_default()).into_owned(),
            )
            .unified_diff()
            .context_radius(2)
            .header("as you read it", "as it is now")
            .to_string();
            // The refusal's report (its kind: no_match, ...), told as what changed.
            let mut refused = self.answer(applied, call);
            refused.content = vec![ContentBlock::text(Report::changed_since_read_text(
                rel.as_str(),
                &diff,
            ))];
            return refused;
        }
        self.answer(applied, call)
    }

    pub(crate) fn write_blocking(&self, args: &WriteFileArgs, call: &Call) -> CallToolResult {
        let root = match self.root() {
            Ok(r) => r,
            Err(refused) => return refused,
        };
        let rel = match root.rel(&args.path) {
            Ok(r) => r,
            Err(e) => return report_result(&Report::unsafe_path(&e)),
        };
        let mut opts = match self.options(call) {
            Ok(o) => o,
            Err(refusal) => return refusal,
        };
        // What the write is judged against, compared under the lock: the sha256 the model
        // passed, else what it read in this session (the write then lands on exactly those
        // bytes, or is rebased over what changed since, or refused — never lost).
        let mut create = false;
        match (&args.expected_sha256, self.base_of(rel.as_str())) {
            (Some(sha), _) => opts.expect.push(Expectation {
                path: rel.to_string(),
                sha256: sha.clone(),
            }),
            (None, Some(base)) => opts.base.push(base),
            (None, None) => {
                if let Some(bytes) = root.read_regular(&rel) {
                    return report_result(&Report::unread(
                        rel.as_str(),
                        &sha256_hex(&bytes),
                        UnreadChange::WrittenWhole,
                    ));
                }
                // A new file: created only where nothing stands when the batch takes the lock.
                create = true;
            }
        }
        let batch = Batch {
            format: Format::Whole,
            ops: vec![FileOp {
                path: rel.to_string(),
                kind: if create {
                    OpKind::Create {
                        content: args.content.clone(),
                        executable: false,
                    }
                } else {
                    OpKind::Write {
                        content: args.content.clone(),
                    }
                },
                line: 1,
            }],
            notes: Vec::new(),
        };
        let applied = apply_batch(&batch, &opts);
        let diffs = written_diffs(&applied.report);
        let mut result = self.answer(applied, call);
        // The text a model reads shows what the write changed (a sketch resolved, a rebase):
        // the diff, not only "applied".
        if !diffs.is_empty() {
            result.content.push(ContentBlock::text(diffs));
        }
        result
    }
}

//! Planning and applying one Update's hunks against a file's text (decoded from its own
//! encoding), with each hunk's report: where it landed, or why it did not.

use super::present::attach_snippets;
use super::sketches::resolve_hunk_sketch;
use crate::batch::{Format, Hunk};
use crate::encoding::Transcoding;
use crate::explain;
use crate::failure::{Doing, HunkFailure, LocateFailure, OpFailure};
use crate::locate::{Hints, Match, Placement};
use crate::notes::HunkNote;
use crate::path::RelPath;
use crate::plan::{HunkPlan, plan_file};
use crate::report::{ErrorKind, FileReport, HunkReport, Outcome};
use crate::text::{Splice, TextFile, apply_splices};

/// How one file's hunks are located and reported: the batch's settings an Update needs.
#[derive(Debug, Clone, Copy)]
pub(super) struct EditContext {
    /// Keep the hunks that located when others failed.
    pub(super) partial: bool,
    /// The edit's format (its matching contract).
    pub(super) format: Format,
}

/// Locates and splices every hunk of one Update against `before`. Fills the hunk reports;
/// returns the new bytes, or `None` when nothing changes (every hunk already applied, or a hunk
/// failed and the batch is not partial).
pub(super) fn edit_bytes(
    rel: &RelPath,
    before: &[u8],
    hunks: &[Hunk],
    ctx: EditContext,
    report: &mut FileReport,
) -> Result<Option<Vec<u8>>, OpFailure> {
    crate::work::tick(before.len());
    match Transcoding::of(before) {
        Ok(None) => edit_text(rel, before, hunks, ctx, report),
        Ok(Some(t)) => {
            let text = t.decode(before);
            let after = edit_text(rel, text.as_bytes(), hunks, ctx, report)?;
            if let Some(h) = report.hunks.first_mut() {
                h.noted.push(HunkNote::Transcoded {
                    path: rel.to_string(),
                    read_as: t.describe(),
                });
            }
            after
                .map(|a| t.encode(&String::from_utf8_lossy(&a)))
                .transpose()
                .map_err(|why| OpFailure::Unencodable {
                    path: rel.to_string(),
                    doing: Doing::Update,
                    why: why.to_string(),
                })
        }
        Err(why) => Err(OpFailure::Undecodable {
            path: rel.to_string(),
            why: why.to_string(),
        }),
    }
}

/// [`edit_bytes`] for UTF-8 text with LF or CRLF line endings.
fn edit_text(
    rel: &RelPath,
    before: &[u8],
    hunks: &[Hunk],
    ctx: EditContext,
    report: &mut FileReport,
) -> Result<Option<Vec<u8>>, OpFailure> {
    let file = TextFile::decode(before).map_err(|e| OpFailure::NotText {
        path: rel.to_string(),
        doing: Doing::Update,
        why: e.to_string(),
    })?;
    let EditContext { partial, format } = ctx;
    let hints = Hints {
        fragments: matches!(format, Format::SearchReplace | Format::Json),
        explicit_removals: matches!(format, Format::Patch | Format::Unified),
        ..Hints::default()
    };
    let sketches: Vec<Result<Option<(Hunk, HunkNote)>, crate::sketch::Refusal>> = hunks
        .iter()
        .map(|h| resolve_hunk_sketch(h, hints.explicit_removals))
        .collect();
    let resolved: Vec<Hunk> = hunks
        .iter()
        .zip(&sketches)
        .map(|(h, s)| match s {
            Ok(Some((resolved, _))) => resolved.clone(),
            _ => h.clone(),
        })
        .collect();
    let hunks = resolved.as_slice();
    let plan = plan_file(&file, hunks, hints);
    let splices = plan.splices();
    // Failures are put into words against the file's lines, built only when one needs them.
    let lines = std::cell::OnceCell::new();
    report.hunks = plan
        .hunks
        .into_iter()
        .zip(hunks)
        .enumerate()
        .map(|(i, (planned, hunk))| {
            let mut h = HunkReport::new(i + 1, hunk.line);
            match planned {
                HunkPlan::Replace { placements, .. } => note_placements(&mut h, &placements),
                HunkPlan::Overlaps { placements, other } => {
                    note_placements(&mut h, &placements);
                    h.status = Outcome::Failed;
                    h.kind = Some(ErrorKind::Overlap);
                    h.failure = Some(Box::new(HunkFailure::Overlaps {
                        path: rel.to_string(),
                        index: i + 1,
                        start_line: h.start_line.unwrap_or(0),
                        end_line: h.end_line.unwrap_or(0),
                        other: other + 1,
                    }));
                }
                HunkPlan::AlreadyApplied { at } => {
                    set_range(&mut h, at);
                    h.status = Outcome::AlreadyApplied;
                }
                HunkPlan::NotLocated(e) => {
                    let lines = lines.get_or_init(|| file.line_strs());
                    explain::describe_failure(rel.as_str(), lines, hunk, format, e, &mut h);
                }
            }
            match &sketches[i] {
                Ok(Some((_, note))) => h.noted.push(note.clone()),
                Err(why) if h.kind == Some(ErrorKind::Placeholder) => {
                    if let Some(HunkFailure::NotLocated(LocateFailure { as_sketch, .. })) =
                        h.failure.as_deref_mut()
                    {
                        *as_sketch = Some(Box::new(why.clone()));
                    }
                }
                _ => {}
            }
            h
        })
        .collect();
    let failed = report
        .hunks
        .iter()
        .any(|h| matches!(h.status, Outcome::Failed | Outcome::Ambiguous));
    if failed {
        report.status = if report.hunks.iter().any(|h| h.status == Outcome::Ambiguous) {
            Outcome::Ambiguous
        } else {
            Outcome::Failed
        };
        if !partial {
            return Ok(None);
        }
    }
    if splices.is_empty() {
        if !failed {
            report.status = Outcome::AlreadyApplied;
        }
        return Ok(None);
    }
    let only: Vec<Splice> = splices.iter().map(|(_, s)| s.clone()).collect();
    let after = apply_splices(before, &only);
    attach_snippets(&file, &after, &splices, &mut report.hunks);
    Ok(Some(after))
}

/// A located hunk's report: where it landed, every tier note, and each place when it replaced
/// several.
fn note_placements(h: &mut HunkReport, placements: &[Placement]) {
    set_range(h, placements[0].at);
    for p in placements {
        for note in &p.notes {
            if !h.noted.contains(note) {
                h.noted.push(note.clone());
            }
        }
    }
    if placements.len() > 1 {
        h.matches = placements.iter().map(|p| line_range(p.at)).collect();
    }
}

fn line_range(at: Match) -> [usize; 2] {
    if at.start == at.end {
        [at.start, at.start]
    } else {
        [at.start + 1, at.end]
    }
}

fn set_range(h: &mut HunkReport, at: Match) {
    h.tier = Some(at.tier);
    h.insertion = at.start == at.end;
    let [s, e] = line_range(at);
    h.start_line = Some(s);
    h.end_line = Some(e);
}

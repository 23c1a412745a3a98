//! A batch's notes in words: what a parser took in stride, as `lancet parse` and every report
//! of the batch say it ("ignored 2 line(s) of prose around the diff").

use super::join_all_lines;
use lancet_core::notes::BatchNote;

/// One note, as the report and `lancet parse` print it.
#[allow(
    clippy::too_many_lines,
    reason = "a table of sentences: one arm per note"
)]
pub(crate) fn batch_note(note: &BatchNote) -> String {
    match note {
        BatchNote::BeforePatch(n) => format!(
            "ignored {n} line(s) before '*** Begin Patch' (prose, a code fence or a heredoc wrapper)"
        ),
        BatchNote::AfterPatch(n) => format!(
            "ignored {n} line(s) after '*** End Patch' (prose, a code fence or a heredoc terminator)"
        ),
        BatchNote::BetweenPatches(n) => {
            format!("ignored {n} line(s) between two patch envelopes")
        }
        BatchNote::UnprefixedContext { line, text } => format!(
            "line {line} has no ' ', '+' or '-' prefix; read as a context line: {text:?}"
        ),
        BatchNote::ProseAroundFiles(n) => {
            format!("ignored {n} line(s) of prose around the blocks")
        }
        BatchNote::BlockIsPathFile(path) => {
            format!("the block names no file: it is the --path file '{path}'")
        }
        BatchNote::UnnamedBlocks(n) => {
            format!("ignored {n} fenced block(s) that name no file (examples, commands)")
        }
        BatchNote::NameFromProse { path, line } => format!(
            "took the file name '{path}' from the prose line before the block at line {line}"
        ),
        BatchNote::NameFromInfo { path, line } => {
            format!("took the file name '{path}' from the fence's info string at line {line}")
        }
        BatchNote::RivalBlocks(n) => format!(
            "ignored {n} earlier or weaker block(s) for a file that another block also gives"
        ),
        BatchNote::JsonInFences { blocks, prose } => format!(
            "read the JSON from {blocks} fenced block(s); ignored {prose} line(s) of prose"
        ),
        BatchNote::JsonPathFile => "edits naming no file apply to the --path file".into(),
        BatchNote::OutsideLineEdits(n) => {
            format!("ignored {n} line(s) outside the edits (prose, fences)")
        }
        BatchNote::AroundDiff { prose: 0, fences } => {
            format!("ignored {fences} fence line(s) around the diff")
        }
        BatchNote::AroundDiff { prose, fences: 0 } => {
            format!("ignored {prose} line(s) of prose around the diff")
        }
        BatchNote::AroundDiff { prose, fences } => format!(
            "ignored {prose} line(s) of prose and {fences} fence line(s) around the diff"
        ),
        BatchNote::HunksArePathFile => "hunks before any file header edit the --path file".into(),
        BatchNote::HeaderInherited(path) => format!(
            "a block of hunks with no '---'/'+++' header edits '{path}', the file before it"
        ),
        BatchNote::ImplicitHunks(n) => {
            format!("{n} hunk(s) had no '@@' line after their file header")
        }
        BatchNote::BlankSeparators(n) => format!(
            "dropped {n} blank line(s) at the end of hunks (separators, not context)"
        ),
        BatchNote::DevNullUpdate(path) => format!(
            "'--- /dev/null' with context or removed lines: read as an update of '{path}'"
        ),
        BatchNote::BlankAdded(n) => {
            format!("{n} unprefixed blank line(s) in a new file read as empty lines")
        }
        BatchNote::ContextOnlyHunks(n) => {
            format!("dropped {n} hunk(s) with only context lines (they change nothing)")
        }
        BatchNote::DuplicateHunks(n) => {
            format!("dropped {n} hunk(s) repeating an earlier hunk of the same file")
        }
        BatchNote::ModeIgnored(n) => format!("ignored the file mode change of {n} file(s)"),
        BatchNote::NoNewlineIgnored => "'\\ No newline at end of file' is not applied to updates: the file keeps its final-newline state".into(),
        BatchNote::NoBlocks => "no SEARCH/REPLACE block found: nothing to apply".into(),
        BatchNote::OutsideBlocks(n) => format!(
            "ignored {n} line(s) outside the SEARCH/REPLACE blocks (prose, code fences)"
        ),
        BatchNote::ShellBlocks(n) => format!(
            "ignored {n} shell command block(s): lancet applies edits and runs no commands"
        ),
        BatchNote::ReusedFile(n) => {
            format!("{n} block(s) named no file and used the file of the block before them")
        }
        BatchNote::PathOverridesNames { path, names } => {
            let names: Vec<String> = names
                .iter()
                .map(|(name, line)| format!("`{name}` (line {line})"))
                .collect();
            format!(
                "--path {path} applies to every block; ignored the file name(s) in the text: {}",
                names.join(", ")
            )
        }
        BatchNote::UnescapedMarkers(n) => format!(
            "read {n} backslash-escaped marker line(s) as literal text (`\\=======` is `=======`)"
        ),
        BatchNote::ClosedByDivider(lines) => format!(
            "read a second `=======` as the end of the block(s) at line(s) {} (`>>>>>>> REPLACE` was missing or came right after it)",
            join_all_lines(lines)
        ),
        BatchNote::UnwrappedFences(n) => format!(
            "removed the ``` fence lines wrapping both the SEARCH and REPLACE text of {n} block(s)"
        ),
        BatchNote::ServerUnconfined(why) => server_unconfined(why),
    }
}

/// A language server that ran outside lancet's sandbox, and why: a batch's note, and what a
/// rename's report says of the server that decided its sites.
pub(crate) fn server_unconfined(why: &str) -> String {
    format!("the language server ran unconfined ({why})")
}

/// A server's decisions' `unconfined` reason, said in full in the JSON.
pub(crate) fn unconfined_in_json<S: serde::Serializer>(
    why: &Option<String>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match why {
        Some(why) => serializer.serialize_some(&server_unconfined(why)),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ServerDecisions;

    #[test]
    fn a_servers_reason_to_run_unconfined_is_said_in_full_in_the_json() {
        let decisions = ServerDecisions {
            server: "basedpyright-langserver".into(),
            version: None,
            sites: Vec::new(),
            undecided: 0,
            unconfined: Some("the kernel has no Landlock".into()),
        };
        let json = serde_json::to_value(&decisions).unwrap();
        assert_eq!(
            json["unconfined"],
            "the language server ran unconfined (the kernel has no Landlock)"
        );
        let confined = ServerDecisions {
            unconfined: None,
            ..decisions
        };
        assert!(
            serde_json::to_value(&confined)
                .unwrap()
                .get("unconfined")
                .is_none()
        );
    }

    #[test]
    fn the_text_around_a_diff_is_worded_by_what_it_held() {
        let around = |prose, fences| batch_note(&BatchNote::AroundDiff { prose, fences });
        assert_eq!(around(0, 2), "ignored 2 fence line(s) around the diff");
        assert_eq!(around(3, 0), "ignored 3 line(s) of prose around the diff");
        assert_eq!(
            around(3, 2),
            "ignored 3 line(s) of prose and 2 fence line(s) around the diff"
        );
    }

    #[test]
    fn listed_facts_are_joined_in_their_order() {
        let names = BatchNote::PathOverridesNames {
            path: "a.py".into(),
            names: vec![("b.py".into(), 1), ("c.py".into(), 7)],
        };
        assert_eq!(
            batch_note(&names),
            "--path a.py applies to every block; ignored the file name(s) in the text: `b.py` (line 1), `c.py` (line 7)"
        );
        assert_eq!(
            batch_note(&BatchNote::ClosedByDivider(vec![2, 10])),
            "read a second `=======` as the end of the block(s) at line(s) 2, 10 (`>>>>>>> REPLACE` was missing or came right after it)"
        );
    }
}

//! Content in a file's style: a new file takes what the project's `.editorconfig` asks (line
//! ending, final newline, BOM); an existing file keeps its own line ending and BOM.

use crate::text::{Eol, TextFile, with_eol};

/// Content for a file the batch creates, in the style the project's `.editorconfig` asks of a
/// file at that path: its line ending (`end_of_line` lf or crlf, applied when the content's own
/// endings are uniform), its final newline (`insert_final_newline`) and its BOM (`charset`
/// utf-8-bom or utf-8). Models write LF without a BOM; a new file in a CRLF project must not be
/// the odd one out. Without an `.editorconfig` (or for properties it leaves unset) the content
/// is kept as sent. Existing files keep their own style instead (see [`keep_text_style`]).
pub(super) fn new_file_style(real: &std::path::Path, content: &str) -> String {
    use ec4rs::property::{Charset, EndOfLine, FinalNewline};
    let Ok(props) = ec4rs::properties_of(real) else {
        return content.to_string();
    };
    let (bom, body) = match content.strip_prefix('\u{feff}') {
        Some(rest) => (true, rest),
        None => (false, content),
    };
    let lines = body.matches('\n').count();
    let crlf = body.matches("\r\n").count();
    let own_eol = if lines > 0 && crlf == lines {
        Eol::Crlf
    } else {
        Eol::Lf
    };
    let eol = match props.get::<EndOfLine>() {
        Ok(EndOfLine::CrLf) => Eol::Crlf,
        Ok(EndOfLine::Lf) => Eol::Lf,
        _ => own_eol,
    };
    let mut out = if eol != own_eol && (crlf == 0 || crlf == lines) {
        with_eol(body, eol)
    } else {
        body.to_string()
    };
    match props.get::<FinalNewline>() {
        Ok(FinalNewline::Value(true)) if !out.is_empty() && !out.ends_with('\n') => {
            out.push_str(eol.as_str())
        }
        Ok(FinalNewline::Value(false)) => {
            if let Some(stripped) = out.strip_suffix(eol.as_str()) {
                out.truncate(stripped.len());
            }
        }
        _ => {}
    }
    let bom = match props.get::<Charset>() {
        Ok(Charset::Utf8Bom) => true,
        Ok(Charset::Utf8) => false,
        _ => bom,
    };
    if bom {
        out.insert(0, '\u{feff}');
    }
    out
}

/// Whole new content for an existing file, in that file's style: its line ending when the file
/// is CRLF, and its BOM. (The final-newline state is the content's own: a whole file says it.)
pub(super) fn keep_text_style(old: &TextFile, content: &str) -> String {
    let style = old.style();
    let mut out = if style.eol == Eol::Crlf {
        with_eol(content, Eol::Crlf)
    } else {
        content.to_string()
    };
    if style.bom && !out.starts_with('\u{feff}') {
        out.insert(0, '\u{feff}');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{Batch, FileOp, Format, OpKind};
    use crate::path::Root;
    use crate::report::Outcome;
    use crate::stage::stage;

    fn project(editorconfig: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".editorconfig"), editorconfig).unwrap();
        dir
    }

    #[test]
    fn new_files_take_the_editorconfig_line_ending_final_newline_and_bom() {
        let crlf = project("root = true\n[*]\nend_of_line = crlf\ninsert_final_newline = true\n");
        let file = crlf.path().join("a.txt");
        assert_eq!(new_file_style(&file, "x\ny"), "x\r\ny\r\n");
        assert_eq!(new_file_style(&file, "x\r\ny\r\n"), "x\r\ny\r\n");
        // Mixed endings are the content's own business: only the final newline is added.
        assert_eq!(new_file_style(&file, "x\r\ny\nz"), "x\r\ny\nz\r\n");
        assert_eq!(new_file_style(&file, ""), "");

        let lf = project(
            "root = true\n[*]\nend_of_line = lf\ninsert_final_newline = false\n[*.md]\ncharset = utf-8-bom\n",
        );
        assert_eq!(
            new_file_style(&lf.path().join("a.txt"), "x\r\ny\r\n"),
            "x\ny"
        );
        assert_eq!(new_file_style(&lf.path().join("a.md"), "x\n"), "\u{feff}x");
        assert_eq!(
            new_file_style(&lf.path().join("a.md"), "\u{feff}x"),
            "\u{feff}x"
        );

        let none = project("root = true\n[*.py]\nend_of_line = crlf\n");
        assert_eq!(new_file_style(&none.path().join("a.txt"), "x\ny"), "x\ny");
    }

    #[test]
    fn re_adding_a_file_written_in_the_editorconfig_style_is_already_applied() {
        let dir = project("root = true\n[*]\nend_of_line = crlf\n");
        std::fs::write(dir.path().join("a.txt"), "one\r\ntwo\r\n").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let batch = Batch {
            format: Format::Patch,
            ops: vec![FileOp {
                path: "a.txt".into(),
                kind: OpKind::Create {
                    content: "one\ntwo\n".into(),
                    executable: false,
                },
                line: 1,
            }],
            notes: Vec::new(),
        };
        let staged = stage(&root, &batch, &crate::stage::StageOptions::default()).unwrap();
        assert_eq!(staged.reports[0].status, Outcome::AlreadyApplied);
        assert!(staged.files.is_empty());
    }
}

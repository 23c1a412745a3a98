//! Property tests: for random files and random exact edits, applying the edit gives exactly the
//! expected bytes (line endings and final-newline state kept), an ambiguous edit is refused,
//! and a refused edit never changes a byte.

use lancet::{ApplyOptions, apply};
use proptest::prelude::*;

/// A small alphabet of lines, so duplicates (and so ambiguity) happen often.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("}".to_string()),
        Just("    return x".to_string()),
        "[a-c ]{0,6}",
        "[a-z_]{1,8}\\(\\)",
        "    [a-z]{1,5} = [0-9]{1,3}",
        "\t[a-z]{1,4}: \u{201c}[a-z]{0,3}\u{201d}",
    ]
}

#[derive(Debug, Clone)]
struct Case {
    lines: Vec<String>,
    crlf: bool,
    final_newline: bool,
    bom: bool,
    start: usize,
    len: usize,
    replacement: Vec<String>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(line(), 1..30),
        any::<bool>(),
        any::<bool>(),
        prop::bool::weighted(0.1),
        any::<prop::sample::Index>(),
        1usize..4,
        prop::collection::vec(line(), 0..4),
    )
        .prop_map(
            |(mut lines, crlf, final_newline, bom, at, len, replacement)| {
                // An empty last line without a line ending is no line at all: keep files canonical.
                if !final_newline && lines.last().is_some_and(String::is_empty) {
                    *lines.last_mut().unwrap() = "end".into();
                }
                // A file without any line ending has no line-ending style to keep: it reads as LF.
                let crlf = crlf && (lines.len() > 1 || final_newline);
                let start = at.index(lines.len());
                let len = len.min(lines.len() - start);
                Case {
                    lines,
                    crlf,
                    final_newline,
                    bom,
                    start,
                    len,
                    replacement,
                }
            },
        )
}

fn render(lines: &[String], c: &Case) -> Vec<u8> {
    let eol = if c.crlf { "\r\n" } else { "\n" };
    let mut s = String::new();
    if c.bom {
        s.push('\u{feff}');
    }
    for (i, l) in lines.iter().enumerate() {
        s.push_str(l);
        if i + 1 < lines.len() || c.final_newline {
            s.push_str(eol);
        }
    }
    s.into_bytes()
}

fn patch(c: &Case) -> String {
    let mut p = String::from("*** Begin Patch\n*** Update File: f.txt\n@@\n");
    for l in &c.lines[c.start..c.start + c.len] {
        p.push_str(&format!("-{l}\n"));
    }
    for l in &c.replacement {
        p.push_str(&format!("+{l}\n"));
    }
    p.push_str("*** End Patch\n");
    p
}

/// Where the needle occurs at the deciding tier, as the ladder sees it: byte-exact lines first
/// (a CRLF line's `\r` is part of it), then with CRLF read as LF.
fn occurrences(c: &Case) -> Vec<usize> {
    let needle = &c.lines[c.start..c.start + c.len];
    let n = c.lines.len();
    let raw: Vec<String> = c
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if c.crlf && (i + 1 < n || c.final_newline) {
                format!("{l}\r")
            } else {
                l.clone()
            }
        })
        .collect();
    let find = |lines: &[String]| -> Vec<usize> {
        (0..=n - c.len)
            .filter(|&p| lines[p..p + c.len] == *needle)
            .collect()
    };
    let exact = find(&raw);
    if exact.is_empty() {
        find(&c.lines)
    } else {
        exact
    }
}

/// Whether the case's replacement is its old lines with lines added around them, some of which
/// already stand there in the file (what a re-sent edit looks like).
fn looks_resent(c: &Case, at: usize) -> bool {
    let old = &c.lines[at..at + c.len];
    let new = &c.replacement;
    if old.is_empty() || new.len() <= old.len() {
        return false;
    }
    // Lines stand there alike up to trailing whitespace (a whitespace-only line is a blank).
    let alike = |a: &[String], b: &[String]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.trim_end() == y.trim_end())
    };
    (0..=new.len() - old.len()).any(|i| {
        let rest = &new[i + old.len()..];
        let end = at + old.len();
        let before = i > 0 && at >= i && alike(&c.lines[at - i..at], &new[..i]);
        let after = !rest.is_empty()
            && end + rest.len() <= c.lines.len()
            && alike(&c.lines[end..end + rest.len()], rest);
        new[i..i + old.len()] == *old && (before || after)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn exact_edits_give_exactly_the_expected_bytes(c in case()) {
        let dir = tempfile::tempdir().unwrap();
        let before = render(&c.lines, &c);
        std::fs::write(dir.path().join("f.txt"), &before).unwrap();
        let report = apply(patch(&c).as_bytes(), &ApplyOptions {
            fsync: false,
            ..ApplyOptions::new(dir.path().to_path_buf())
        })
        .report;
        let after = std::fs::read(dir.path().join("f.txt")).unwrap();
        if let [at] = occurrences(&c)[..] {
            let mut lines = c.lines.clone();
            lines.splice(at..at + c.len, c.replacement.clone());
            let mut expected_case = c.clone();
            if lines.is_empty() {
                // Deleting every line leaves an empty file, with nothing to terminate.
                expected_case.final_newline = false;
            }
            let expected = render(&lines, &expected_case);
            if looks_resent(&c, at) && after == before {
                // What the edit adds stands beside its old text already: a re-send (exit 0,
                // already applied) or, when that proves nothing, refused with both readings.
                prop_assert!(
                    report.status == lancet::Status::AlreadyApplied || report.exit_code() == 1,
                    "{}", report.message
                );
            } else {
                prop_assert_eq!(report.exit_code(), 0, "{}", report.message);
                prop_assert_eq!(String::from_utf8_lossy(&after), String::from_utf8_lossy(&expected));
            }
        } else {
            prop_assert_eq!(report.exit_code(), 1, "{}", report.message);
            prop_assert_eq!(after, before);
        }
    }

    #[test]
    fn refused_edits_never_change_a_byte(c in case(), garbage in prop::collection::vec("[x-z#]{3,12}", 1..4)) {
        let dir = tempfile::tempdir().unwrap();
        let before = render(&c.lines, &c);
        std::fs::write(dir.path().join("f.txt"), &before).unwrap();
        let mut p = String::from("*** Begin Patch\n*** Update File: f.txt\n@@\n");
        for g in &garbage {
            p.push_str(&format!("-{g}\n"));
        }
        p.push_str("+new\n*** End Patch\n");
        let report = apply(p.as_bytes(), &ApplyOptions::new(dir.path().to_path_buf())).report;
        let after = std::fs::read(dir.path().join("f.txt")).unwrap();
        if report.exit_code() != 0 {
            prop_assert_eq!(after, before);
        }
    }
}

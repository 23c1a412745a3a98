//! Byte-faithful text handling: line indexing, line-ending style, BOM and final-newline state.
//!
//! Lancet never re-encodes a file. A file is decoded only to find line boundaries; every edit is a
//! splice of byte ranges into the original bytes, so every byte outside a replaced span survives
//! unchanged — mixed line endings, lone `\r`, trailing spaces and a BOM included.

use serde::Serialize;

/// The UTF-8 byte-order mark; kept in place when present, never added.
const BOM: &str = "\u{feff}";

/// A line ending style, used for the lines an edit inserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Eol {
    /// `\n`
    Lf,
    /// `\r\n`
    Crlf,
}

impl Eol {
    /// The bytes of this line ending.
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::Crlf => "\r\n",
        }
    }
}

/// What a file looks like on disk, recorded so an edit can reproduce it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TextStyle {
    /// The dominant line ending (CRLF only when CRLF lines outnumber LF lines).
    pub eol: Eol,
    /// Whether the file starts with a UTF-8 BOM.
    pub bom: bool,
    /// Whether the last line ends with a line ending (an empty file counts as yes).
    pub final_newline: bool,
}

/// A file rejected because it is not UTF-8; the offset tells the user where to look.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not valid UTF-8 at byte {offset}")]
pub struct NotUtf8 {
    /// 0-based byte offset of the first invalid byte.
    pub offset: usize,
}

/// One line of a [`TextFile`], as byte offsets into the whole file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// Offset of the first byte of the line.
    pub start: usize,
    /// Offset just past the line's content: the `\n`, or the end of the file. A `\r` before the
    /// `\n` belongs to the content, so the strict matcher can tell CRLF from LF.
    pub end: usize,
    /// Offset of the next line (past the `\n`), equal to `end` on a last line without newline.
    pub next: usize,
}

/// A decoded view of a file's bytes with its line index.
#[derive(Debug)]
pub struct TextFile<'a> {
    text: &'a str,
    lines: Vec<Line>,
    style: TextStyle,
}

impl<'a> TextFile<'a> {
    /// Decodes `bytes` as UTF-8 and indexes its lines; refuses invalid UTF-8 with its offset.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, NotUtf8> {
        let text = std::str::from_utf8(bytes).map_err(|e| NotUtf8 {
            offset: e.valid_up_to(),
        })?;
        Ok(Self::new(text))
    }

    /// Indexes the lines of `text` (which may start with a BOM).
    pub fn new(text: &'a str) -> Self {
        let bom = text.starts_with(BOM);
        let body_start = if bom { BOM.len() } else { 0 };
        let mut lines = Vec::new();
        let (mut crlf, mut lf) = (0usize, 0usize);
        let mut start = body_start;
        let bytes = text.as_bytes();
        while start < bytes.len() {
            match memchr::memchr(b'\n', &bytes[start..]) {
                Some(rel) => {
                    let end = start + rel;
                    if end > start && bytes[end - 1] == b'\r' {
                        crlf += 1;
                    } else {
                        lf += 1;
                    }
                    lines.push(Line {
                        start,
                        end,
                        next: end + 1,
                    });
                    start = end + 1;
                }
                None => {
                    lines.push(Line {
                        start,
                        end: bytes.len(),
                        next: bytes.len(),
                    });
                    start = bytes.len();
                }
            }
        }
        let final_newline = lines.last().is_none_or(|l| l.next > l.end);
        let eol = if crlf > lf { Eol::Crlf } else { Eol::Lf };
        TextFile {
            text,
            lines,
            style: TextStyle {
                eol,
                bom,
                final_newline,
            },
        }
    }

    /// The whole text, BOM included.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The line index.
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether the file has no lines at all.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The content of line `i` (0-based), without its `\n` but with a CRLF's `\r`.
    pub fn line(&self, i: usize) -> &'a str {
        let l = self.lines[i];
        &self.text[l.start..l.end]
    }

    /// All line contents, as matchers want them.
    pub fn line_strs(&self) -> Vec<&'a str> {
        (0..self.lines.len()).map(|i| self.line(i)).collect()
    }

    /// The file's style.
    pub fn style(&self) -> TextStyle {
        self.style
    }

    /// Offset where the body starts (after a BOM).
    pub fn body_start(&self) -> usize {
        if self.style.bom { BOM.len() } else { 0 }
    }
}

/// A replacement of the byte range `start..end` of a file by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced (`start == end` inserts).
    pub end: usize,
    /// The bytes written in place of the range.
    pub text: String,
}

/// Applies non-overlapping splices (in any order) to `bytes`. Splices at the same offset are
/// applied in the order given, so two insertions at one point keep their batch order.
pub fn apply_splices(bytes: &[u8], splices: &[Splice]) -> Vec<u8> {
    let mut order: Vec<&Splice> = splices.iter().collect();
    order.sort_by_key(|s| (s.start, s.end));
    replace_ranges(
        bytes,
        order.into_iter().map(|s| (s.start, s.end, s.text.as_str())),
    )
}

/// The byte offset each line of `text` starts at (the first is 0): with [`line_of`], the
/// line of any byte without scanning the text again.
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect()
}

/// The 1-based line holding byte `at`, from the offsets [`line_starts`] gives.
pub fn line_of(starts: &[usize], at: usize) -> usize {
    starts.partition_point(|&s| s <= at)
}

/// `bytes` with each `(start, end, text)` replacement made; the ranges come in file order and
/// do not overlap.
pub fn replace_ranges<'t>(
    bytes: &[u8],
    ranges: impl IntoIterator<Item = (usize, usize, &'t str)>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut pos = 0;
    for (start, end, text) in ranges {
        debug_assert!(start >= pos, "overlapping replacements");
        out.extend_from_slice(&bytes[pos..start]);
        out.extend_from_slice(text.as_bytes());
        pos = end;
    }
    out.extend_from_slice(&bytes[pos..]);
    out
}

/// `text` with every line ending, LF or CRLF, written as `eol`.
pub fn with_eol(text: &str, eol: Eol) -> String {
    let lf = text.replace("\r\n", "\n");
    match eol {
        Eol::Lf => lf,
        Eol::Crlf => lf.replace('\n', "\r\n"),
    }
}

/// The byte lengths of the longest prefix `a` and `b` share, and of the longest suffix they
/// share in what follows it (so the two never overlap in either text); both on char
/// boundaries. What an edit's old and new text have in common around their change.
pub fn shared_ends(a: &str, b: &str) -> (usize, usize) {
    let prefix: usize = a
        .chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum();
    let suffix: usize = a[prefix..]
        .chars()
        .rev()
        .zip(b[prefix..].chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum();
    (prefix, suffix)
}

/// The leading whitespace of a line.
pub fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The longest indentation prefix shared by every non-blank line.
pub fn common_indent<'a>(lines: impl Iterator<Item = &'a str>) -> &'a str {
    let mut common: Option<&str> = None;
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let ind = indent_of(line);
        common = Some(match common {
            None => ind,
            Some(c) => {
                let len = c
                    .bytes()
                    .zip(ind.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &c[..len]
            }
        });
    }
    common.unwrap_or("")
}

/// One level of indentation, as a file or a model writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndentUnit {
    /// A tab.
    Tab,
    /// This many spaces.
    Spaces(usize),
}

impl IndentUnit {
    /// The unit a set of lines uses: tabs if any line indents with a tab, otherwise the most
    /// common step by which one line is indented deeper than the line before it (`None` when no
    /// line steps deeper). The most common step, not the greatest common divisor: continuation
    /// lines aligned to a parenthesis step by odd amounts and would make one space a "unit".
    pub fn of<'a>(lines: impl Iterator<Item = &'a str>) -> Option<IndentUnit> {
        let mut steps = [0usize; 9];
        let mut previous: Option<usize> = None;
        for line in lines.filter(|l| !l.trim().is_empty()) {
            let ind = indent_of(line);
            if ind.contains('\t') {
                return Some(IndentUnit::Tab);
            }
            if let Some(p) = previous
                && ind.len() > p
                && ind.len() - p < steps.len()
            {
                steps[ind.len() - p] += 1;
            }
            previous = Some(ind.len());
        }
        (1..steps.len())
            .filter(|&u| steps[u] > 0)
            .max_by_key(|&u| (steps[u], std::cmp::Reverse(u)))
            .map(IndentUnit::Spaces)
    }

    /// Columns of one level (a tab counts as four).
    fn columns(self) -> usize {
        match self {
            IndentUnit::Tab => 4,
            IndentUnit::Spaces(n) => n,
        }
    }

    /// Depth of an indentation in this unit, and the alignment spaces left over.
    fn levels(self, indent: &str) -> (usize, usize) {
        match self {
            IndentUnit::Tab => {
                let tabs = indent.chars().filter(|&c| c == '\t').count();
                (tabs, indent.len() - tabs)
            }
            IndentUnit::Spaces(n) => {
                let columns: usize = indent.chars().map(|c| if c == '\t' { n } else { 1 }).sum();
                (columns / n, columns % n)
            }
        }
    }

    fn render(self, levels: usize) -> String {
        match self {
            IndentUnit::Tab => "\t".repeat(levels),
            IndentUnit::Spaces(n) => " ".repeat(n * levels),
        }
    }
}

/// How a placement's inserted lines get the file's indentation, decided once from the matched
/// lines: the edit's own lines say how its indentation relates to the file's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndentMap {
    /// Every matched file line is indented by this prefix more than the edit's line: inserted
    /// lines get exactly this prefix added.
    Deeper(String),
    /// Every matched edit line is indented by this prefix more than the file's line: inserted
    /// lines lose exactly this prefix.
    Shallower(String),
    /// No single offset fits (tabs against spaces, two-space against four-space levels): depths
    /// are mapped level for level from the edit's unit to the file's, relative to an anchor.
    Levels(IndentUnit, IndentUnit),
}

impl IndentMap {
    /// Decides the mapping from `(edit line, file line)` pairs that matched each other.
    /// `file_unit` is the file's own unit (from the whole file) for when levels must be mapped.
    pub fn plan(
        pairs: &[(&str, &str)],
        edit_unit: Option<IndentUnit>,
        file_unit: Option<IndentUnit>,
    ) -> IndentMap {
        let pairs: Vec<(&str, &str)> = pairs
            .iter()
            .filter(|(e, _)| !e.trim().is_empty())
            .map(|(e, f)| (indent_of(e), indent_of(f)))
            .collect();
        let deeper = pairs.first().and_then(|(e, f)| f.strip_suffix(e));
        if let Some(d) = deeper
            && pairs.iter().all(|(e, f)| f.strip_suffix(e) == Some(d))
        {
            return IndentMap::Deeper(d.to_string());
        }
        let shallower = pairs.first().and_then(|(e, f)| e.strip_suffix(f));
        if let Some(d) = shallower
            && pairs.iter().all(|(e, f)| e.strip_suffix(f) == Some(d))
        {
            return IndentMap::Shallower(d.to_string());
        }
        let file_unit = file_unit.or(edit_unit).unwrap_or(IndentUnit::Spaces(4));
        let edit_unit = edit_unit.unwrap_or(file_unit);
        // Map levels between units only when that mapping reproduces every matched line (a
        // genuine unit or tab/space mismatch); otherwise keep the edit's relative columns.
        let edit_base = common_indent(pairs.iter().map(|(e, _)| *e));
        let file_base = common_indent(pairs.iter().map(|(_, f)| *f));
        let fits = pairs.iter().all(|(e, f)| {
            reindent(
                &format!("{e}x"),
                (edit_base, edit_unit),
                (file_base, file_unit),
            ) == format!("{f}x")
        });
        if fits || edit_unit == IndentUnit::Tab || file_unit == IndentUnit::Tab {
            IndentMap::Levels(edit_unit, file_unit)
        } else {
            IndentMap::Levels(file_unit, file_unit)
        }
    }

    /// Re-indents one inserted edit line; `anchor` is (the anchor line's indentation in the
    /// edit, in the file), used when levels are mapped.
    pub fn apply(&self, line: &str, anchor: (&str, &str)) -> String {
        if line.trim().is_empty() {
            return line.to_string();
        }
        match self {
            IndentMap::Deeper(d) => format!("{d}{line}"),
            IndentMap::Shallower(d) => match line.strip_prefix(d.as_str()) {
                Some(rest) => rest.to_string(),
                None => line.trim_start().to_string(),
            },
            IndentMap::Levels(from, to) => reindent(line, (anchor.0, *from), (anchor.1, *to)),
        }
    }
}

/// Re-indents a line of an edit so it sits at the same depth relative to an anchor line as in
/// the edit: `from` is the anchor's indentation in the edit and the edit's unit, `to` the
/// anchor's indentation in the file and the file's unit. Tabs stay tabs, spaces stay spaces;
/// a line at the anchor's own depth gets exactly the anchor's file indentation.
pub fn reindent(line: &str, from: (&str, IndentUnit), to: (&str, IndentUnit)) -> String {
    if line.trim().is_empty() {
        return line.to_string();
    }
    let indent = indent_of(line);
    let body = &line[indent.len()..];
    let unit = from.1.columns() as isize;
    let columns =
        |ind: &str| -> isize { ind.chars().map(|c| if c == '\t' { unit } else { 1 }).sum() };
    let delta = columns(indent) - columns(from.0);
    if delta >= 0 {
        let (levels, spare) = ((delta / unit) as usize, (delta % unit) as usize);
        return format!("{}{}{}{body}", to.0, to.1.render(levels), " ".repeat(spare));
    }
    // Shallower than the anchor: step out whole levels from the anchor's depth.
    let (anchor_levels, _) = to.1.levels(to.0);
    let back = ((-delta + unit - 1) / unit) as usize;
    format!("{}{body}", to.1.render(anchor_levels.saturating_sub(back)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_lf_crlf_and_missing_final_newline() {
        let f = TextFile::new("a\r\nb\nc");
        assert_eq!(f.line_strs(), vec!["a\r", "b", "c"]);
        assert!(!f.style().final_newline);
        assert_eq!(f.style().eol, Eol::Lf);
        let f = TextFile::new("a\r\nb\r\n");
        assert_eq!(f.style().eol, Eol::Crlf);
        assert!(f.style().final_newline);
    }

    #[test]
    fn bom_is_not_part_of_the_first_line() {
        let f = TextFile::new("\u{feff}x\ny\n");
        assert!(f.style().bom);
        assert_eq!(f.line(0), "x");
        assert_eq!(f.body_start(), 3);
    }

    #[test]
    fn empty_file_has_no_lines_and_counts_as_newline_terminated() {
        let f = TextFile::new("");
        assert!(f.is_empty());
        assert!(f.style().final_newline);
    }

    #[test]
    fn invalid_utf8_reports_offset() {
        assert_eq!(
            TextFile::decode(b"ok\n\xff").unwrap_err(),
            NotUtf8 { offset: 3 }
        );
    }

    #[test]
    fn indent_map_shifts_by_the_matched_offset() {
        let four = Some(IndentUnit::Spaces(4));
        // File indentation = the edit's + 4 spaces on every matched line: exactly +4, whatever
        // unit a parenthesis-aligned continuation line would suggest.
        let map = IndentMap::plan(
            &[("def f(a,", "    def f(a,"), ("      b):", "          b):")],
            Some(IndentUnit::Spaces(1)),
            Some(IndentUnit::Spaces(1)),
        );
        assert_eq!(map, IndentMap::Deeper("    ".into()));
        assert_eq!(map.apply("    return b", ("", "")), "        return b");
        // The reverse: the edit is 8 deeper than the file.
        let map = IndentMap::plan(&[("        x = 1", "x = 1")], four, four);
        assert_eq!(map, IndentMap::Shallower("        ".into()));
        assert_eq!(map.apply("            y()", ("", "")), "    y()");
        // Tabs in the file, spaces in the edit: levels are mapped.
        let map = IndentMap::plan(
            &[("if x:", "\tif x:"), ("    y()", "\t\ty()")],
            four,
            Some(IndentUnit::Tab),
        );
        assert_eq!(
            map,
            IndentMap::Levels(IndentUnit::Spaces(4), IndentUnit::Tab)
        );
        assert_eq!(map.apply("        z()", ("    ", "\t\t")), "\t\t\tz()");
        // A genuine two-space edit against a four-space file: levels mapped, verified.
        let map = IndentMap::plan(
            &[("if x:", "if x:"), ("  y()", "    y()")],
            Some(IndentUnit::Spaces(2)),
            four,
        );
        assert_eq!(
            map,
            IndentMap::Levels(IndentUnit::Spaces(2), IndentUnit::Spaces(4))
        );
        assert_eq!(map.apply("    z()", ("  ", "    ")), "        z()");
        // Units that do not reproduce the matched lines are not trusted: columns are kept.
        let map = IndentMap::plan(
            &[("if x:", "if x:"), ("   y()", "    y()")],
            Some(IndentUnit::Spaces(1)),
            Some(IndentUnit::Spaces(8)),
        );
        assert_eq!(
            map,
            IndentMap::Levels(IndentUnit::Spaces(8), IndentUnit::Spaces(8))
        );
    }

    #[test]
    fn shared_ends_never_overlap_and_stay_on_char_boundaries() {
        assert_eq!(shared_ends("TIMEOUT = 10", "TIMEOUT = 30"), (10, 1));
        assert_eq!(shared_ends("aa", "aaa"), (2, 0));
        assert_eq!(
            shared_ends("x = \u{e9}t\u{e9}", "x = \u{e8}t\u{e9}"),
            (4, 3)
        );
        assert_eq!(shared_ends("", "abc"), (0, 0));
    }

    #[test]
    fn indent_unit_is_the_most_common_step_not_the_gcd() {
        let lines = [
            "def log_it(name,",
            "           level):",
            "    setup(name)",
            "    if level:",
            "        print(level)",
            "    return level",
        ];
        assert_eq!(
            IndentUnit::of(lines.into_iter()),
            Some(IndentUnit::Spaces(4))
        );
    }

    #[test]
    fn reindent_maps_units_and_keeps_relative_depth() {
        let four = IndentUnit::Spaces(4);
        assert_eq!(
            IndentUnit::of(["  a", "    b", "      c"].into_iter()),
            Some(IndentUnit::Spaces(2))
        );
        assert_eq!(
            IndentUnit::of(["\ta", "x"].into_iter()),
            Some(IndentUnit::Tab)
        );
        assert_eq!(IndentUnit::of(["a", "b"].into_iter()), None);
        assert_eq!(IndentUnit::of(["    a", "    b"].into_iter()), None);
        assert_eq!(
            IndentUnit::of([" a", "     b"].into_iter()),
            Some(IndentUnit::Spaces(4))
        );
        assert_eq!(
            reindent("x", ("        ", four), ("\t\t", IndentUnit::Tab)),
            "x"
        );
        assert_eq!(
            reindent("  x", ("    ", four), ("  ", IndentUnit::Spaces(2))),
            "x"
        );
        assert_eq!(reindent("     x", (" ", four), ("    ", four)), "        x");
        assert_eq!(
            reindent("        x", ("    ", four), ("\t", IndentUnit::Tab)),
            "\t\tx"
        );
        assert_eq!(
            reindent("    x", ("    ", four), ("\t", IndentUnit::Tab)),
            "\tx"
        );
        assert_eq!(
            reindent("      x", ("    ", four), ("", IndentUnit::Spaces(2))),
            "  x"
        );
        assert_eq!(
            reindent("            x", ("    ", four), ("", IndentUnit::Spaces(2))),
            "    x"
        );
        assert_eq!(reindent("x", ("    ", four), ("\t", IndentUnit::Tab)), "x");
        assert_eq!(reindent("    x", ("    ", four), ("    ", four)), "    x");
    }

    #[test]
    fn splices_keep_untouched_bytes() {
        let out = apply_splices(
            b"0123456789",
            &[
                Splice {
                    start: 5,
                    end: 6,
                    text: "X".into(),
                },
                Splice {
                    start: 1,
                    end: 1,
                    text: "ab".into(),
                },
            ],
        );
        assert_eq!(out, b"0ab1234X6789");
    }
}

//! Code in comments and docstrings that a language's test runner compiles: Rust's doc-comment
//! code blocks (`cargo test` compiles every ```` ``` ```` block of a `///`, `//!`, `/** */` or
//! `/*! */` comment that is untagged or Rust, `ignore` excepted) and Python's doctests (the
//! `>>> ` and `... ` lines of a module's, class's or function's docstring, which `pytest
//! --doctest-modules` runs). To a rename they are code: an old name left there passes the
//! compiler or type checker and fails the tests.
//!
//! Each file's doctests become one *shadow*: a text of the same length in which every byte
//! outside a doctest's code is a space (newlines kept), the comment markers and rustdoc's hidden
//! line marker (`# `) blanked, and each Rust block wrapped in a function (as rustdoc wraps it;
//! Python's examples stand at the module's level, where doctest runs them). Its offsets are
//! the file's, so the shadow's syntax tree and a resolver's answers on it are answers about the
//! file's own bytes.

use tree_sitter::{Node, Tree};

/// What a Rust doc block's info string may hold and still be Rust that rustdoc compiles.
const RUSTDOC_ATTRIBUTES: &[&str] = &[
    "rust",
    "should_panic",
    "no_run",
    "compile_fail",
    "test_harness",
    "standalone_crate",
    "allow_fail",
];

/// The opening of the function each block is wrapped in (rustdoc wraps a doctest in `fn main`).
const WRAPPER: &[u8] = b"fn m(){";

/// A file's doctests as a shadow text (see the module's doc), and where each wrapper's name
/// stands (not a name of the file: its resolver leaves it out).
pub(super) struct Shadow {
    pub(super) text: String,
    pub(super) wrappers: Vec<usize>,
}

/// The doctests of a Rust file, when it has any.
pub(super) fn rust(text: &str, tree: &Tree) -> Option<Shadow> {
    let mut comments = Vec::new();
    collect_doc_comments(tree.root_node(), text, &mut comments);
    let mut lines: Vec<DocLine> = Vec::new();
    for (node, block) in comments {
        if block {
            lines.extend(block_lines(node, text));
        } else {
            lines.push(line_of_line_comment(node, text));
        }
    }
    let mut shadow = Builder::new(text);
    let mut open: Option<Fence> = None;
    let mut previous_end = None;
    for line in &lines {
        // A gap (code, a plain comment) between two doc lines ends a document and its block.
        let adjacent =
            previous_end.is_some_and(|end: usize| text[end..line.start].trim().is_empty());
        if !adjacent && let Some(fence) = open.take() {
            shadow.close(fence, previous_end.unwrap_or(line.start));
        }
        previous_end = Some(line.end);
        let content = &text[line.content..line.end];
        match &open {
            Some(fence) if fence.closes(content) => {
                let fence = open.take().expect("an open fence");
                shadow.close(fence, line.start);
            }
            Some(fence) if fence.compiled => shadow.code(line.content, line.end),
            Some(_) => {}
            None => open = Fence::opens(content, line.start),
        }
        if let Some(fence) = &open
            && fence.start == line.start
            && fence.compiled
        {
            shadow.open(line.start, line.end);
        }
    }
    if let Some(fence) = open {
        shadow.close(fence, previous_end.unwrap_or(text.len()));
    }
    shadow.finish()
}

/// The doctests of a Python file, when it has any: each docstring's examples (`>>> ` and its
/// `... ` continuation lines), their prompts blanked.
pub(super) fn python(text: &str, tree: &Tree) -> Option<Shadow> {
    let mut shadow = Builder::new(text);
    for content in docstrings(text, tree) {
        for (line, kind) in doctest_lines(content, text) {
            if let DoctestLine::Example { code } = kind {
                let to = if text[..line.end].ends_with('\r') {
                    line.end - 1
                } else {
                    line.end
                };
                shadow.take_span(code, to.max(code));
            }
        }
    }
    shadow.finish()
}

/// The byte ranges of the expected output of the doctests in `docstrings` (their contents, as
/// [`docstrings`] finds them): the lines after an example, up to a blank line or the next
/// prompt, which doctest compares as text.
pub(super) fn python_outputs(
    text: &str,
    docstrings: &[std::ops::Range<usize>],
) -> Vec<std::ops::Range<usize>> {
    docstrings
        .iter()
        .flat_map(|content| doctest_lines(content.clone(), text))
        .filter(|(_, kind)| *kind == DoctestLine::Output)
        .map(|(line, _)| line)
        .collect()
}

/// The content (between the quotes) of each docstring of a Python file: a module's, class's or
/// function's first statement when it is a string, each part of one written as several
/// (`"a" """b"""`, which Python joins), and the strings of a module's `__test__` dictionary.
pub(super) fn docstrings(text: &str, tree: &Tree) -> Vec<std::ops::Range<usize>> {
    let mut contents = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let body = match n.kind() {
            "module" => Some(n),
            "function_definition" | "class_definition" => n.child_by_field_name("body"),
            _ => None,
        };
        // The first statement (comments above a docstring are no statements: `__doc__` is it).
        if let Some(doc) = body
            .and_then(|b| {
                let mut cursor = b.walk();
                b.named_children(&mut cursor)
                    .find(|s| s.kind() != "comment")
            })
            .filter(|s| s.kind() == "expression_statement")
            .and_then(|s| s.named_child(0))
        {
            contents.extend(string_contents(doc));
        }
        if n.kind() == "module" {
            contents.extend(module_tests(text, n));
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor).filter(|c| {
            matches!(
                c.kind(),
                "function_definition"
                    | "class_definition"
                    | "decorated_definition"
                    | "block"
                    | "if_statement"
            )
        }));
    }
    contents
}

/// The content of each string value of a module's `__test__` dictionary, whose strings
/// doctest runs as docstrings.
fn module_tests(text: &str, module: Node) -> Vec<std::ops::Range<usize>> {
    let mut cursor = module.walk();
    let dictionaries: Vec<Node> = module
        .named_children(&mut cursor)
        .filter(|s| s.kind() == "expression_statement")
        .filter_map(|s| s.named_child(0))
        .filter(|a| a.kind() == "assignment")
        .filter(|a| {
            a.child_by_field_name("left")
                .is_some_and(|l| &text[l.byte_range()] == "__test__")
        })
        .filter_map(|a| a.child_by_field_name("right"))
        .filter(|r| r.kind() == "dictionary")
        .collect();
    let mut contents = Vec::new();
    for dictionary in dictionaries {
        let mut cursor = dictionary.walk();
        for pair in dictionary.named_children(&mut cursor) {
            if let Some(value) = pair.child_by_field_name("value") {
                contents.extend(string_contents(value));
            }
        }
    }
    contents
}

/// The content (between the quotes) of each part of a string expression: a string, or each
/// string of one written as several (`"a" """b"""`, which Python joins).
fn string_contents(node: Node) -> Vec<std::ops::Range<usize>> {
    let parts: Vec<Node> = match node.kind() {
        "string" => vec![node],
        "concatenated_string" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor)
                .filter(|p| p.kind() == "string")
                .collect()
        }
        _ => Vec::new(),
    };
    parts
        .into_iter()
        .map(|part| {
            let start = part.child(0).map_or(part.start_byte(), |q| q.end_byte());
            let end = part
                .child(part.child_count().saturating_sub(1))
                .filter(|q| q.kind() == "string_end")
                .map_or(part.end_byte(), |q| q.start_byte());
            start..end.max(start)
        })
        .collect()
}

/// What a line of a docstring's doctests is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum DoctestLine {
    /// An example's (`>>> `, or `... ` right after an example line): where its code starts,
    /// after the prompt.
    Example { code: usize },
    /// The expected output after an example, up to a blank line or the next prompt.
    Output,
}

/// The doctest lines of one docstring (its content's byte range), each with its range (without
/// its newline) and what it is; prose is left out.
fn doctest_lines(
    range: std::ops::Range<usize>,
    text: &str,
) -> Vec<(std::ops::Range<usize>, DoctestLine)> {
    let mut lines = Vec::new();
    let mut previous: Option<DoctestLine> = None;
    let mut at = range.start;
    while at < range.end {
        let end = text[at..range.end].find('\n').map_or(range.end, |n| at + n);
        let line = &text[at..end];
        let lead = line.len() - line.trim_start().len();
        let rest = &line[lead..];
        let prompt = |p: &str| rest == p || rest.starts_with(&format!("{p} "));
        let after_example = matches!(previous, Some(DoctestLine::Example { .. }));
        previous = if prompt(">>>") || (after_example && prompt("...")) {
            Some(DoctestLine::Example {
                code: (at + lead + 4).min(end),
            })
        } else if previous.is_some() && !rest.trim().is_empty() {
            Some(DoctestLine::Output)
        } else {
            None
        };
        if let Some(kind) = previous {
            lines.push((at..end, kind));
        }
        at = end + 1;
    }
    lines
}

/// One line of a doc comment: where it starts (its marker), where its content starts (after
/// the marker) and where it ends (before its newline).
struct DocLine {
    start: usize,
    content: usize,
    end: usize,
}

/// An open code fence: its character and length, whether rustdoc compiles its block, and the
/// line it opened on.
pub(super) struct Fence {
    mark: u8,
    len: usize,
    pub(super) compiled: bool,
    /// Tagged `compile_fail`: the block passes when it fails to compile.
    pub(super) compile_fail: bool,
    start: usize,
}

impl Fence {
    /// The fence a doc line's content opens, if it is one.
    pub(super) fn opens(content: &str, start: usize) -> Option<Fence> {
        let trimmed = content.trim_start();
        let mark = *trimmed.as_bytes().first()?;
        if mark != b'`' && mark != b'~' {
            return None;
        }
        let len = trimmed.bytes().take_while(|&b| b == mark).count();
        if len < 3 {
            return None;
        }
        let info = trimmed[len..].trim();
        if mark == b'`' && info.contains('`') {
            return None;
        }
        Some(Fence {
            mark,
            len,
            compiled: compiled(info),
            compile_fail: info
                .split(|c: char| c == ',' || c.is_whitespace())
                .any(|w| w == "compile_fail"),
            start,
        })
    }

    /// Whether a doc line's content closes this fence.
    pub(super) fn closes(&self, content: &str) -> bool {
        let trimmed = content.trim();
        trimmed.len() >= self.len && trimmed.bytes().all(|b| b == self.mark)
    }
}

/// Whether rustdoc compiles a block with this info string: untagged, or only Rust and
/// rustdoc's own attributes (`ignore` is not compiled; any other word is another language).
fn compiled(info: &str) -> bool {
    info.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .all(|word| {
            RUSTDOC_ATTRIBUTES.contains(&word)
                || word.starts_with("edition")
                || word.starts_with('{')
                || word.starts_with('.')
        })
}

/// Every doc comment of the tree, and whether it is a block comment.
fn collect_doc_comments<'t>(node: Node<'t>, text: &str, out: &mut Vec<(Node<'t>, bool)>) {
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "line_comment" => {
                let t = &text[n.byte_range()];
                if (t.starts_with("///") && !t.starts_with("////")) || t.starts_with("//!") {
                    out.push((n, false));
                }
            }
            "block_comment" => {
                let t = &text[n.byte_range()];
                if (t.starts_with("/**") && !t.starts_with("/***") && t != "/**/")
                    || t.starts_with("/*!")
                {
                    out.push((n, true));
                }
            }
            _ => {
                stack.extend(
                    n.children(&mut cursor)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev(),
                );
            }
        }
    }
    out.sort_by_key(|(n, _)| n.start_byte());
}

/// A `///` or `//!` comment as a doc line.
fn line_of_line_comment(node: Node, text: &str) -> DocLine {
    let start = node.start_byte();
    let end = text[start..]
        .find('\n')
        .map_or(text.len(), |n| start + n)
        .min(node.end_byte().max(start + 3));
    let end = if text[..end].ends_with('\r') {
        end - 1
    } else {
        end
    };
    DocLine {
        start,
        content: start + 3,
        end,
    }
}

/// A `/** */` or `/*! */` comment's lines as doc lines, each line's leading `*` left out.
fn block_lines(node: Node, text: &str) -> Vec<DocLine> {
    let (from, to) = (node.start_byte() + 3, node.end_byte().saturating_sub(2));
    let mut out = Vec::new();
    let mut at = from;
    while at < to {
        let end = text[at..to].find('\n').map_or(to, |n| at + n);
        let line = &text[at..end];
        let lead = line.len() - line.trim_start().len();
        let content = if line.trim_start().starts_with('*') {
            at + lead + 1
        } else {
            at
        };
        let line_end = if text[..end].ends_with('\r') {
            end - 1
        } else {
            end
        };
        out.push(DocLine {
            start: if out.is_empty() {
                node.start_byte()
            } else {
                at
            },
            content: content.min(line_end),
            end: line_end,
        });
        at = end + 1;
    }
    out
}

/// The shadow text being written.
struct Builder<'t> {
    text: &'t str,
    bytes: Vec<u8>,
    wrappers: Vec<usize>,
    /// Some code was written.
    any: bool,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str) -> Self {
        let bytes = text
            .bytes()
            .map(|b| if b == b'\n' { b'\n' } else { b' ' })
            .collect();
        Builder {
            text,
            bytes,
            wrappers: Vec::new(),
            any: false,
        }
    }

    /// A block opens on the line `start..end`: the wrapper's opening over it and its newline.
    fn open(&mut self, start: usize, end: usize) {
        let room = (end + 1).min(self.bytes.len()) - start;
        if room < WRAPPER.len() {
            return;
        }
        self.bytes[start..start + WRAPPER.len()].copy_from_slice(WRAPPER);
        self.wrappers.push(start + 3);
        self.any = true;
    }

    /// One code line: its bytes, rustdoc's hidden-line marker (`# `) blanked.
    fn code(&mut self, from: usize, to: usize) {
        let line = &self.text[from..to];
        let lead = line.len() - line.trim_start().len();
        let rest = &line[lead..];
        // `# ` hides a line; `##` stands for a literal `#`: either way one byte goes.
        let skip = if rest == "#"
            || rest.starts_with("# ")
            || rest.starts_with("#\t")
            || rest.starts_with("##")
        {
            lead + 1
        } else {
            0
        };
        self.bytes[from + skip..to].copy_from_slice(&self.text.as_bytes()[from + skip..to]);
    }

    /// Bytes of the file copied as code, as they are.
    fn take_span(&mut self, from: usize, to: usize) {
        self.bytes[from..to].copy_from_slice(&self.text.as_bytes()[from..to]);
        self.any = true;
    }

    /// A block closes: `}` on the first blank byte at or after `at` (the closing fence's line,
    /// or, for a block the document left open, the next line).
    fn close(&mut self, fence: Fence, at: usize) {
        if !fence.compiled {
            return;
        }
        let mut i = at;
        while i < self.bytes.len() && self.bytes[i] != b' ' {
            i += 1;
        }
        if i < self.bytes.len() {
            self.bytes[i] = b'}';
        }
    }

    fn finish(self) -> Option<Shadow> {
        if !self.any {
            return None;
        }
        Some(Shadow {
            text: String::from_utf8(self.bytes).ok()?,
            wrappers: self.wrappers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::rust;
    use tree_sitter::Parser;

    /// The non-blank lines of a file's doctest shadow, as `find` sees it (`path` picks the
    /// grammar).
    fn shadow_lines(
        path: &str,
        text: &str,
        find: fn(&str, &tree_sitter::Tree) -> Option<super::Shadow>,
    ) -> Option<String> {
        let mut parser = Parser::new();
        let entry = lancet_syntax::languages::language_for(path, b"").unwrap();
        parser
            .set_language(&lancet_syntax::languages::grammar(entry).unwrap())
            .unwrap();
        let tree = parser.parse(text, None).unwrap();
        find(text, &tree).map(|s| {
            assert_eq!(s.text.len(), text.len());
            s.text
                .lines()
                .map(str::trim_end)
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    fn shadow(text: &str) -> Option<String> {
        shadow_lines("a.rs", text, rust)
    }

    #[test]
    fn compiled_blocks_are_code_at_their_own_offsets() {
        let text = "/// Doubles.\n///\n/// ```\n/// # use demo::double;\n/// assert_eq!(double(2), 4);\n/// ```\npub fn double(x: i32) -> i32 { x * 2 }\n";
        assert_eq!(
            shadow(text).unwrap(),
            "fn m(){\n      use demo::double;\n    assert_eq!(double(2), 4);\n}"
        );
    }

    #[test]
    fn other_languages_ignored_blocks_and_plain_comments_are_not() {
        let text = "//! ```text\n//! double(2)\n//! ```\n//! ```ignore\n//! double(2)\n//! ```\n// ```\n// double(2)\n// ```\nfn f() {}\n";
        assert_eq!(shadow(text), None);
    }

    fn python_shadow(text: &str) -> Option<String> {
        shadow_lines("a.py", text, super::python)
    }

    #[test]
    fn python_docstring_examples_are_code_and_their_output_is_not() {
        let text = "def double(x):\n    \"\"\"Doubles.\n\n    >>> y = double(2)\n    >>> if y:\n    ...     print(y)\n    4\n    \"\"\"\n    s = \">>> double(1)\"\n    return x * 2\n";
        assert_eq!(
            python_shadow(text).unwrap(),
            "        y = double(2)\n        if y:\n            print(y)"
        );
        let one_line = "def f():\n    \"\"\">>> f()\"\"\"\n";
        assert_eq!(python_shadow(one_line).unwrap(), "           f()");
    }

    #[test]
    fn python_docstring_below_comments_is_the_docstring() {
        let text = "#  a banner\n# (c) someone\n\n\"\"\"A package.\n\n   >>> import pkg\n   >>> pkg.post(1)\n\"\"\"\n";
        assert_eq!(
            python_shadow(text).unwrap(),
            "       import pkg\n       pkg.post(1)"
        );
    }

    #[test]
    fn tagged_rust_blocks_and_block_comments_are_code() {
        let text = "/**\n * ```rust,no_run\n * let x = double(2);\n * ```\n */\nfn f() {}\n";
        assert_eq!(shadow(text).unwrap(), "fn m(){\n   let x = double(2);\n}");
    }
}

//! A second reading of valid text a grammar misreads, where the mending is safe only once the
//! plain reading failed: the gate parses the mended text only when tree-sitter flags the file,
//! and takes it only when it parses clean (so a mending that misjudges its text leaves the
//! errors standing: the gate never passes what either reading flags). Positions need not be
//! kept: a clean reading reports none.
//!
//! - Ruby: tree-sitter-ruby reads no symbol of a punctuation global (`:$,`, `:$;`, `:$"`:
//!   typeprof's `type.rb`); each is read as `:$_`. Done anywhere, that would break a string
//!   such as `':$'`: hence a second reading only. A NUL byte ends tree-sitter's input where
//!   Ruby reads on (RubyGems' stub comments in `specifications/default/*.gemspec` hold them):
//!   each is read as a space. In Go or Python a NUL is an error, so this is Ruby's only.
//! - YAML: tree-sitter-yaml takes a quoted scalar's continuation lines only when they are
//!   indented deeper than its key, where PyYAML, libyaml and so Ansible take them at the key's
//!   own column (ansible-core's `setup_paramiko/install-fail.yml`); its line breaks are read as
//!   spaces, the scalar on one line.

/// `text` (as the grammar was handed it) mended for a second reading in `language` (lancet's
/// name for it), or `None` when the language has no mending or the text holds nothing to mend.
pub(crate) fn mended(language: &str, text: &[u8]) -> Option<Vec<u8>> {
    match language {
        "ruby" => {
            let symbols = ruby_global_symbols_plain(text);
            let nuls = nul_bytes_spaced(symbols.as_deref().unwrap_or(text));
            nuls.or(symbols)
        }
        "yaml" => yaml_quoted_scalars_on_one_line(text),
        _ => None,
    }
}

/// Every `:$` followed by a punctuation character the grammar reads no symbol of, with that
/// character turned to `_` (`:$,` to `:$_`, also a global's symbol).
fn ruby_global_symbols_plain(text: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    for i in 0..text.len().saturating_sub(2) {
        if text[i] == b':'
            && text[i + 1] == b'$'
            && matches!(
                text[i + 2],
                b'\\' | b',' | b';' | b'.' | b'$' | b'?' | b'@' | b':' | b'"' | b'\'' | b'='
            )
        {
            out.get_or_insert_with(|| text.to_vec())[i + 2] = b'_';
        }
    }
    out
}

/// Every NUL byte turned to a space.
fn nul_bytes_spaced(text: &[u8]) -> Option<Vec<u8>> {
    text.contains(&0).then(|| {
        text.iter()
            .map(|&b| if b == 0 { b' ' } else { b })
            .collect()
    })
}

/// Every line break inside a single- or double-quoted scalar turned to a space. Comments and
/// block scalars (`|`, `>`: the lines below deeper than the line that opens one) are passed
/// over; a quote opens a scalar only where a node starts (first on its line, after `- `, `: `,
/// `? `, an anchor or a tag, or in a flow collection after `[`, `{` or `,`), not inside a plain
/// scalar (`it's`). `None` when nothing spans lines, or a quote is never closed.
fn yaml_quoted_scalars_on_one_line(text: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    // The indentation of the line that opened a block scalar, while in one.
    let mut block_under: Option<usize> = None;
    let (mut indent, mut node_start, mut flow_depth) = (0, true, 0usize);
    let line_end = |from: usize| {
        text[from..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |n| from + n)
    };
    let mut i = 0;
    let mut line_start = true;
    while i < text.len() {
        if line_start {
            line_start = false;
            let end = line_end(i);
            let spaces = text[i..end].iter().take_while(|&&b| b == b' ').count();
            let blank = text[i..end].iter().all(u8::is_ascii_whitespace);
            if let Some(under) = block_under {
                if blank || spaces > under {
                    i = end;
                    continue;
                }
                block_under = None;
            }
            indent = spaces;
            node_start = true;
            i += spaces;
            continue;
        }
        let b = text[i];
        let spaced = |at: usize| matches!(text.get(at), Some(b' ' | b'\t' | b'\r' | b'\n') | None);
        match b {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b'#' if i == 0 || matches!(text[i - 1], b' ' | b'\t' | b'\n') => {
                i = line_end(i);
                continue;
            }
            b'"' | b'\'' if node_start => {
                let close = quoted_end(text, i)?;
                for k in i + 1..close {
                    if text[k] == b'\n' {
                        let out = out.get_or_insert_with(|| text.to_vec());
                        out[k] = b' ';
                        if out[k - 1] == b'\r' {
                            out[k - 1] = b' ';
                        }
                    }
                }
                i = close + 1;
                node_start = false;
                continue;
            }
            b'|' | b'>'
                if node_start && flow_depth == 0 && block_header(&text[i + 1..line_end(i)]) =>
            {
                block_under = Some(indent);
                i = line_end(i);
                continue;
            }
            // An anchor or a tag: the node starts after it.
            b'&' | b'!' if node_start => {
                while i < text.len() && !spaced(i) {
                    i += 1;
                }
                continue;
            }
            b' ' | b'\t' | b'\r' => {}
            b'-' | b'?' => node_start = node_start && spaced(i + 1),
            b':' => node_start = spaced(i + 1) || flow_depth > 0,
            b'[' | b'{' if node_start => flow_depth += 1,
            b']' | b'}' if flow_depth > 0 => {
                flow_depth -= 1;
                node_start = false;
            }
            b',' if flow_depth > 0 => node_start = true,
            _ => node_start = false,
        }
        i += 1;
    }
    out
}

/// The index of the quote closing the quoted scalar opened at `open` (`\` escapes in double
/// quotes, `''` in single quotes), or `None` when the text ends first.
fn quoted_end(text: &[u8], open: usize) -> Option<usize> {
    let quote = text[open];
    let mut i = open + 1;
    while i < text.len() {
        match text[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && text.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Whether the rest of a line after `|` or `>` is a block scalar's header: indentation and
/// chomping indicators, then nothing but a comment.
fn block_header(rest: &[u8]) -> bool {
    let rest = rest.trim_ascii_end();
    let indicators = rest
        .iter()
        .take_while(|&&b| b.is_ascii_digit() || b == b'+' || b == b'-')
        .count();
    let tail = rest[indicators..].trim_ascii_start();
    tail.is_empty() || (tail.starts_with(b"#") && tail.len() < rest.len() - indicators)
}

#[cfg(test)]
mod tests {
    use super::mended;

    fn read(language: &str, text: &str) -> Option<String> {
        mended(language, text.as_bytes()).map(|m| String::from_utf8(m).unwrap())
    }

    #[test]
    fn ruby_symbols_of_punctuation_globals_are_read_as_plain_ones() {
        assert_eq!(
            read("ruby", "case v\nwhen :$,, :$;, :$\", :$/ then 1\nend\n").as_deref(),
            Some("case v\nwhen :$_, :$_, :$_, :$/ then 1\nend\n")
        );
        assert_eq!(read("ruby", "x = :$_\n"), None);
        assert_eq!(
            read("ruby", "# stub: a.rb\0b.rb\nx = :$;\n").as_deref(),
            Some("# stub: a.rb b.rb\nx = :$_\n")
        );
    }

    #[test]
    fn yaml_quoted_scalars_spanning_lines_are_read_on_one_line() {
        let yaml =
            "- name: x\n  fail:\n    msg: \"a '{{ b }}'\n    c\"\n    other: 'it''s\r\n    d'\n";
        assert_eq!(
            read("yaml", yaml).as_deref(),
            Some("- name: x\n  fail:\n    msg: \"a '{{ b }}'     c\"\n    other: 'it''s      d'\n")
        );
        // Flow collections, anchors and tags; escaped quotes and line breaks.
        assert_eq!(
            read("yaml", "a: [x, \"b\n c\"]\nd: &k !!str \"e\\\"\nf\"\n").as_deref(),
            Some("a: [x, \"b  c\"]\nd: &k !!str \"e\\\" f\"\n")
        );
    }

    #[test]
    fn yaml_quotes_in_plain_scalars_comments_and_block_scalars_are_left_alone() {
        for yaml in [
            "a: it's\nb: don't\n",
            "a: x # it's\nb: 'y'\n",
            "run: |\n  echo \"a\n  b\"\nnext: 1\n",
            "run: >-  # folded\n  it's \"x\n\n  y\nnext: 'z'\n",
            "a: \"one line\"\n",
        ] {
            assert_eq!(read("yaml", yaml), None, "{yaml:?}");
        }
        // A quote never closed: no second reading.
        assert_eq!(read("yaml", "a: \"b\nc\n"), None);
    }
}

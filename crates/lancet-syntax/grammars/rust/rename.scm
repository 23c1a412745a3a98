; What `lancet rename` may rename in Rust, and what it only lists.
;   @name                  an identifier whose text is exactly OLD is renamed: items, calls,
;                          fields, methods, types, paths, `use` lists, macro arguments
;   @string, @comment      searched for OLD as a whole word: listed, renamed only with
;                          --include-strings / --include-comments
;   (which names define what, for --kind, is read from their parents in the facade's
;   src/rename/definitions.rs: compiled here, those patterns cost most of a small rename)
(identifier) @name
(field_identifier) @name
(type_identifier) @name
(shorthand_field_identifier) @name
(string_literal) @string
(raw_string_literal) @string
(char_literal) @string
(line_comment) @comment
(block_comment) @comment

; What `lancet rename` may rename in Rust, and what it only lists.
;   @name                  an identifier whose text is exactly OLD is renamed: items, calls,
;                          fields, methods, types, paths, `use` lists, macro arguments
;   @string, @comment      searched for OLD as a whole word: listed, renamed only with
;                          --include-strings / --include-comments
;   One node per pattern: lancet reads these as a table of node kinds and looks up the node
;   at each occurrence (compiling them as a query cost more than a small rename's own work).
;   Which names define what, for --kind, is read from their parents in the facade's
;   src/rename/definitions.rs.
(identifier) @name
(field_identifier) @name
(type_identifier) @name
(shorthand_field_identifier) @name
(string_literal) @string
(raw_string_literal) @string
(char_literal) @string
(line_comment) @comment
(block_comment) @comment

; What `lancet rename` may rename in TypeScript and TSX (one query for both grammars), and
; what it only lists.
;   @name                  an identifier whose text is exactly OLD (`#OLD` for a private member): declarations, calls,
;                          properties after `.`, imports and exports, shorthand properties,
;                          type names (classes, interfaces, aliases, enums)
;   @string, @comment      searched for OLD as a whole word (a regex literal is a string): listed, renamed only with
;                          --include-strings / --include-comments (template substitutions are code; a template
;                          literal type is a string)
;   One node per pattern: lancet reads these as a table of node kinds and looks up the node
;   at each occurrence (compiling them as a query cost more than a small rename's own work).
;   Which names define what, for --kind, is read from their parents in the facade's
;   src/rename/definitions.rs.
(identifier) @name
(property_identifier) @name
(private_property_identifier) @name
(shorthand_property_identifier) @name
(shorthand_property_identifier_pattern) @name
(type_identifier) @name
(string) @string
(template_string) @string
(template_literal_type) @string
(regex) @string
(comment) @comment

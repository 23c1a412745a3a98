; What `lancet rename` may rename in Python, and what it only lists.
;   @name                  an identifier: renamed when its text is exactly OLD (definitions,
;                          calls, attributes after `.`, imports, keyword arguments, f-string code)
;   @string, @comment      searched for OLD as a whole word: listed, renamed only with
;                          --include-strings / --include-comments
;   One node per pattern: lancet reads these as a table of node kinds and looks up the node
;   at each occurrence (compiling them as a query cost more than a small rename's own work).
;   Which names define what, for --kind, is read from their parents in the facade's
;   src/rename/definitions.rs.
(identifier) @name
(string) @string
(comment) @comment

; What `lancet rename` may rename in Python, and what it only lists.
;   @name                  an identifier: renamed when its text is exactly OLD (definitions,
;                          calls, attributes after `.`, imports, keyword arguments, f-string code)
;   @string, @comment      searched for OLD as a whole word: listed, renamed only with
;                          --include-strings / --include-comments
;   (which names define what, for --kind, is read from their parents in the facade's
;   src/rename/definitions.rs: compiled here, those patterns cost most of a small rename)
(identifier) @name
(string) @string
(comment) @comment

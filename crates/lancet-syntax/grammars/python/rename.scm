; What `lancet rename` may rename in Python, and what it only lists.
;   @name                  an identifier: renamed when its text is exactly OLD (definitions,
;                          calls, attributes after `.`, imports, keyword arguments, f-string code)
;   @string, @comment      searched for OLD as a whole word: listed, renamed only with
;                          --include-strings / --include-comments
;   @definition.<kind>     the name a definition introduces, for --kind
(identifier) @name
(string) @string
(comment) @comment

(function_definition name: (identifier) @definition.function)
(class_definition name: (identifier) @definition.class)
(class_definition
  body: (block (function_definition name: (identifier) @definition.method)))
(class_definition
  body: (block
    (decorated_definition definition: (function_definition name: (identifier) @definition.method))))
(assignment left: (identifier) @definition.variable)
(augmented_assignment left: (identifier) @definition.variable)
(parameters (identifier) @definition.variable)
(for_statement left: (identifier) @definition.variable)
(typed_parameter (identifier) @definition.variable)
(default_parameter name: (identifier) @definition.variable)
(typed_default_parameter name: (identifier) @definition.variable)
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @definition.field)
  (#eq? @_self "self"))

; What `lancet rename` may rename in JavaScript, and what it only lists.
;   @name                  an identifier whose text is exactly OLD is renamed: declarations,
;                          calls, properties after `.`, imports and exports, shorthand properties
;   @string, @comment      searched for OLD as a whole word (a regex literal is a string): listed, renamed only with
;                          --include-strings / --include-comments (template substitutions are code)
;   @definition.<kind>     the name a definition introduces, for --kind
(identifier) @name
(property_identifier) @name
(private_property_identifier) @name
(shorthand_property_identifier) @name
(shorthand_property_identifier_pattern) @name
(string) @string
(template_string) @string
(regex) @string
(comment) @comment

(function_declaration name: (identifier) @definition.function)
(class_declaration name: (identifier) @definition.class)
(method_definition name: (property_identifier) @definition.method)
(variable_declarator name: (identifier) @definition.variable)
(method_definition name: (private_property_identifier) @definition.method)
(field_definition property: (private_property_identifier) @definition.variable)
(field_definition property: (property_identifier) @definition.field)
(formal_parameters (identifier) @definition.variable)
(object_pattern (shorthand_property_identifier_pattern) @definition.variable)
(array_pattern (identifier) @definition.variable)

; What `lancet rename` may rename in TypeScript and TSX (one query for both grammars), and
; what it only lists.
;   @name                  an identifier whose text is exactly OLD (`#OLD` for a private member): declarations, calls,
;                          properties after `.`, imports and exports, shorthand properties,
;                          type names (classes, interfaces, aliases, enums)
;   @string, @comment      searched for OLD as a whole word (a regex literal is a string): listed, renamed only with
;                          --include-strings / --include-comments (template substitutions are code)
;   @definition.<kind>     the name a definition introduces, for --kind
(identifier) @name
(property_identifier) @name
(private_property_identifier) @name
(shorthand_property_identifier) @name
(shorthand_property_identifier_pattern) @name
(type_identifier) @name
(string) @string
(template_string) @string
(regex) @string
(comment) @comment

(function_declaration name: (identifier) @definition.function)
(class_declaration name: (type_identifier) @definition.class)
(abstract_class_declaration name: (type_identifier) @definition.class)
(interface_declaration name: (type_identifier) @definition.class)
(type_alias_declaration name: (type_identifier) @definition.class)
(enum_declaration name: (identifier) @definition.class)
(method_definition name: (property_identifier) @definition.method)
(method_signature name: (property_identifier) @definition.method)
(abstract_method_signature name: (property_identifier) @definition.method)
(variable_declarator name: (identifier) @definition.variable)
(public_field_definition name: (property_identifier) @definition.variable)
(method_definition name: (private_property_identifier) @definition.method)
(public_field_definition name: (private_property_identifier) @definition.variable)
(property_signature name: (property_identifier) @definition.field)
(enum_body (property_identifier) @definition.variant)
(enum_assignment name: (property_identifier) @definition.variant)
(required_parameter pattern: (identifier) @definition.variable)
(optional_parameter pattern: (identifier) @definition.variable)
(object_pattern (shorthand_property_identifier_pattern) @definition.variable)
(array_pattern (identifier) @definition.variable)

; What `lancet rename` may rename in Rust, and what it only lists.
;   @name                  an identifier whose text is exactly OLD is renamed: items, calls,
;                          fields, methods, types, paths, `use` lists, macro arguments
;   @string, @comment      searched for OLD as a whole word: listed, renamed only with
;                          --include-strings / --include-comments
;   @definition.<kind>     the name a definition introduces, for --kind
(identifier) @name
(field_identifier) @name
(type_identifier) @name
(shorthand_field_identifier) @name
(string_literal) @string
(raw_string_literal) @string
(char_literal) @string
(line_comment) @comment
(block_comment) @comment

(function_item name: (identifier) @definition.function)
(impl_item body: (declaration_list (function_item name: (identifier) @definition.method)))
(trait_item body: (declaration_list (function_item name: (identifier) @definition.method)))
(trait_item body: (declaration_list (function_signature_item name: (identifier) @definition.method)))
(struct_item name: (type_identifier) @definition.class)
(enum_item name: (type_identifier) @definition.class)
(trait_item name: (type_identifier) @definition.class)
(type_item name: (type_identifier) @definition.class)
(let_declaration pattern: (identifier) @definition.variable)
(const_item name: (identifier) @definition.variable)
(static_item name: (identifier) @definition.variable)
(parameter pattern: (identifier) @definition.variable)
(field_declaration name: (field_identifier) @definition.field)
(enum_variant name: (identifier) @definition.variant)
(closure_parameters (identifier) @definition.variable)
(macro_definition name: (identifier) @definition.function)

//! Which occurrences of OLD name a definition, and of what kind: a name hangs from its
//! definition by a field (`function_declaration name:`) or as a child (`formal_parameters`),
//! perhaps through a class or impl body. Read from the name up its parents, not by a
//! tree-sitter query: compiling the definition patterns as a query cost TypeScript and TSX
//! 9 ms each, most of a small rename (`rename.scm` keeps only one-node kinds, read as a table).

use crate::report::SymbolKind;
use tree_sitter::Node;

/// How a node hangs from its parent in a [`Rule`]'s path.
#[derive(Clone, Copy)]
enum By {
    /// As the parent's child in this field.
    Field(&'static str),
    /// As a child of the parent, in any field or none.
    Child,
}

/// One way a name defines something: the name's node kind, its path up to the definition
/// (each step: how the node below hangs from the parent, and the parent's kind), the kind,
/// and what else the name's ancestors (nearest first) and the text must show.
struct Rule {
    name: &'static str,
    path: &'static [(By, &'static str)],
    kind: SymbolKind,
    also: fn(&[Node], &[u8]) -> bool,
}

const fn rule(name: &'static str, path: &'static [(By, &'static str)], kind: SymbolKind) -> Rule {
    Rule {
        name,
        path,
        kind,
        also: |_, _| true,
    }
}

use By::{Child, Field};
use SymbolKind::{Class, Field as FieldKind, Function, Method, Variable, Variant};

const PYTHON: &[Rule] = &[
    rule(
        "identifier",
        &[(Field("name"), "function_definition")],
        Function,
    ),
    rule("identifier", &[(Field("name"), "class_definition")], Class),
    rule(
        "identifier",
        &[
            (Field("name"), "function_definition"),
            (Child, "block"),
            (Field("body"), "class_definition"),
        ],
        Method,
    ),
    rule(
        "identifier",
        &[
            (Field("name"), "function_definition"),
            (Field("definition"), "decorated_definition"),
            (Child, "block"),
            (Field("body"), "class_definition"),
        ],
        Method,
    ),
    rule("identifier", &[(Field("left"), "assignment")], Variable),
    rule(
        "identifier",
        &[(Field("left"), "augmented_assignment")],
        Variable,
    ),
    rule("identifier", &[(Child, "parameters")], Variable),
    rule("identifier", &[(Field("left"), "for_statement")], Variable),
    rule("identifier", &[(Child, "typed_parameter")], Variable),
    rule(
        "identifier",
        &[(Field("name"), "default_parameter")],
        Variable,
    ),
    rule(
        "identifier",
        &[(Field("name"), "typed_default_parameter")],
        Variable,
    ),
    // `self.name = …`.
    Rule {
        also: is_self_attribute,
        ..rule(
            "identifier",
            &[
                (Field("attribute"), "attribute"),
                (Field("left"), "assignment"),
            ],
            FieldKind,
        )
    },
];

const RUST: &[Rule] = &[
    rule("identifier", &[(Field("name"), "function_item")], Function),
    rule(
        "identifier",
        &[
            (Field("name"), "function_item"),
            (Child, "declaration_list"),
            (Field("body"), "impl_item"),
        ],
        Method,
    ),
    rule(
        "identifier",
        &[
            (Field("name"), "function_item"),
            (Child, "declaration_list"),
            (Field("body"), "trait_item"),
        ],
        Method,
    ),
    rule(
        "identifier",
        &[
            (Field("name"), "function_signature_item"),
            (Child, "declaration_list"),
            (Field("body"), "trait_item"),
        ],
        Method,
    ),
    rule("type_identifier", &[(Field("name"), "struct_item")], Class),
    rule("type_identifier", &[(Field("name"), "enum_item")], Class),
    rule("type_identifier", &[(Field("name"), "trait_item")], Class),
    rule("type_identifier", &[(Field("name"), "type_item")], Class),
    rule(
        "identifier",
        &[(Field("pattern"), "let_declaration")],
        Variable,
    ),
    rule("identifier", &[(Field("name"), "const_item")], Variable),
    rule("identifier", &[(Field("name"), "static_item")], Variable),
    rule("identifier", &[(Field("pattern"), "parameter")], Variable),
    rule(
        "field_identifier",
        &[(Field("name"), "field_declaration")],
        FieldKind,
    ),
    rule("identifier", &[(Field("name"), "enum_variant")], Variant),
    rule("identifier", &[(Child, "closure_parameters")], Variable),
    rule(
        "identifier",
        &[(Field("name"), "macro_definition")],
        Function,
    ),
];

const JAVASCRIPT: &[Rule] = &[
    rule(
        "identifier",
        &[(Field("name"), "function_declaration")],
        Function,
    ),
    rule("identifier", &[(Field("name"), "class_declaration")], Class),
    rule(
        "property_identifier",
        &[(Field("name"), "method_definition")],
        Method,
    ),
    rule(
        "identifier",
        &[(Field("name"), "variable_declarator")],
        Variable,
    ),
    rule(
        "private_property_identifier",
        &[(Field("name"), "method_definition")],
        Method,
    ),
    rule(
        "private_property_identifier",
        &[(Field("property"), "field_definition")],
        Variable,
    ),
    rule(
        "property_identifier",
        &[(Field("property"), "field_definition")],
        FieldKind,
    ),
    rule("identifier", &[(Child, "formal_parameters")], Variable),
    rule(
        "shorthand_property_identifier_pattern",
        &[(Child, "object_pattern")],
        Variable,
    ),
    rule("identifier", &[(Child, "array_pattern")], Variable),
];

/// TypeScript's and TSX's.
const TYPESCRIPT: &[Rule] = &[
    rule(
        "identifier",
        &[(Field("name"), "function_declaration")],
        Function,
    ),
    rule(
        "type_identifier",
        &[(Field("name"), "class_declaration")],
        Class,
    ),
    rule(
        "type_identifier",
        &[(Field("name"), "abstract_class_declaration")],
        Class,
    ),
    rule(
        "type_identifier",
        &[(Field("name"), "interface_declaration")],
        Class,
    ),
    rule(
        "type_identifier",
        &[(Field("name"), "type_alias_declaration")],
        Class,
    ),
    rule("identifier", &[(Field("name"), "enum_declaration")], Class),
    rule(
        "property_identifier",
        &[(Field("name"), "method_definition")],
        Method,
    ),
    rule(
        "property_identifier",
        &[(Field("name"), "method_signature")],
        Method,
    ),
    rule(
        "property_identifier",
        &[(Field("name"), "abstract_method_signature")],
        Method,
    ),
    rule(
        "identifier",
        &[(Field("name"), "variable_declarator")],
        Variable,
    ),
    rule(
        "property_identifier",
        &[(Field("name"), "public_field_definition")],
        Variable,
    ),
    rule(
        "private_property_identifier",
        &[(Field("name"), "method_definition")],
        Method,
    ),
    rule(
        "private_property_identifier",
        &[(Field("name"), "public_field_definition")],
        Variable,
    ),
    rule(
        "property_identifier",
        &[(Field("name"), "property_signature")],
        FieldKind,
    ),
    rule("property_identifier", &[(Child, "enum_body")], Variant),
    rule(
        "property_identifier",
        &[(Field("name"), "enum_assignment")],
        Variant,
    ),
    rule(
        "identifier",
        &[(Field("pattern"), "required_parameter")],
        Variable,
    ),
    rule(
        "identifier",
        &[(Field("pattern"), "optional_parameter")],
        Variable,
    ),
    rule(
        "shorthand_property_identifier_pattern",
        &[(Child, "object_pattern")],
        Variable,
    ),
    rule("identifier", &[(Child, "array_pattern")], Variable),
];

/// The kinds of definition `name` (an occurrence's node in a file of `language`; `above`: its
/// ancestors, nearest first) names, in the order of the language's rules; empty when it
/// defines nothing.
pub(super) fn kinds_named(
    language: &str,
    name: Node,
    above: &[Node],
    text: &[u8],
) -> Vec<SymbolKind> {
    let rules = match language {
        "python" => PYTHON,
        "rust" => RUST,
        "javascript" => JAVASCRIPT,
        "typescript" | "tsx" => TYPESCRIPT,
        _ => return Vec::new(),
    };
    let kind = name.kind();
    rules
        .iter()
        .filter(|r| r.name == kind && hangs(name, above, r.path) && (r.also)(above, text))
        .map(|r| r.kind)
        .collect()
}

/// Whether `name` hangs from its ancestors (`above`, nearest first) as `path` says.
fn hangs(name: Node, above: &[Node], path: &[(By, &str)]) -> bool {
    if path.len() > above.len() {
        return false;
    }
    let mut below = name;
    for (&(by, kind), &parent) in path.iter().zip(above) {
        let holds = parent.kind() == kind
            && match by {
                Field(field) => {
                    let mut cursor = parent.walk();
                    parent
                        .children_by_field_name(field, &mut cursor)
                        .any(|c| c.id() == below.id())
                }
                Child => true,
            };
        if !holds {
            return false;
        }
        below = parent;
    }
    true
}

/// Python's `self.name = …`: the attribute above the name has `self` for its object.
fn is_self_attribute(above: &[Node], text: &[u8]) -> bool {
    above.first().is_some_and(|attribute| {
        attribute
            .child_by_field_name("object")
            .is_some_and(|o| o.kind() == "identifier" && &text[o.byte_range()] == b"self")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rename::scan::ancestors;
    use lancet_syntax::languages;
    use std::collections::BTreeMap;
    use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator};

    /// The definition patterns as the rename queries held them before these rules replaced
    /// them: tree-sitter's own query engine is the oracle the rules are held against.
    fn patterns(language: &str) -> &'static str {
        match language {
            "python" => PYTHON_PATTERNS,
            "rust" => RUST_PATTERNS,
            "javascript" => JAVASCRIPT_PATTERNS,
            _ => TYPESCRIPT_PATTERNS,
        }
    }

    /// Each node some pattern captures as `@definition.<kind>`, with its kinds (sorted).
    fn by_query(language: &str, tree: &tree_sitter::Tree, text: &str) -> Kinds {
        let grammar = grammar(language);
        let query = Query::new(&grammar, patterns(language)).expect("the patterns compile");
        let mut found = Kinds::new();
        let mut cursor = QueryCursor::new();
        let mut captures = cursor.captures(&query, tree.root_node(), text.as_bytes());
        while let Some((m, i)) = captures.next() {
            let capture = m.captures()[*i];
            let name = &query.capture_names()[capture.index as usize];
            let Some(kind) = name.strip_prefix("definition.") else {
                continue;
            };
            let kind = match kind {
                "function" => Function,
                "class" => Class,
                "method" => Method,
                "variable" => Variable,
                "field" => FieldKind,
                _ => Variant,
            };
            found
                .entry(capture.node.byte_range().start)
                .or_default()
                .push(kind);
        }
        found.values_mut().for_each(|k| k.sort_by_key(|k| *k as u8));
        found
    }

    /// Each named node the rules say defines something, with its kinds (sorted).
    fn by_rules(language: &str, tree: &tree_sitter::Tree, text: &str) -> Kinds {
        let mut found = Kinds::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            let mut above = ancestors(node, tree.root_node());
            above.reverse();
            let mut kinds = kinds_named(language, node, &above, text.as_bytes());
            if !kinds.is_empty() {
                kinds.sort_by_key(|k| *k as u8);
                found.insert(node.byte_range().start, kinds);
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
        found
    }

    type Kinds = BTreeMap<usize, Vec<SymbolKind>>;

    fn grammar(language: &str) -> tree_sitter::Language {
        let entry = languages::languages()
            .iter()
            .find(|e| e.name == language)
            .expect("a built-in language");
        languages::grammar(entry).expect("its grammar")
    }

    fn agree(language: &str, text: &str) -> usize {
        let mut parser = Parser::new();
        parser.set_language(&grammar(language)).unwrap();
        let tree = parser.parse(text, None).unwrap();
        let (query, rules) = (
            by_query(language, &tree, text),
            by_rules(language, &tree, text),
        );
        assert_eq!(rules, query, "{language}: the rules against the query");
        rules.len()
    }

    #[test]
    fn python_definitions_are_the_query_patterns() {
        let text = "def f(a, b: int, c=1, d: int = 2, *e, **g):\n    h = 1\n    h += 2\n    for i in a: pass\n\nclass C(B):\n    k = 3\n    def m(self):\n        self.n = 4\n        other.o = 5\n        self.p.q = 6\n    @property\n    def r(self): pass\n    class D:\n        def s(self): pass\n\nlam = lambda t: t\n[u for u in a]\n";
        assert!(agree("python", text) >= 18);
    }

    #[test]
    fn rust_definitions_are_the_query_patterns() {
        let text = "fn f(a: u8, (b, c): (u8, u8)) { let d = 1; let (e, g) = (1, 2); let h = |i, j: u8| i; }\nstruct S { k: u8 }\nenum E { V, W(u8) }\ntrait T { fn m(&self); fn n(&self) {} type U; }\nimpl S { fn o(&self) {} const P: u8 = 1; }\ntype Q = u8;\nconst R: u8 = 1;\nstatic X: u8 = 1;\nmacro_rules! mac { () => {} }\nmod inner { pub fn y() {} }\n";
        assert!(agree("rust", text) >= 18);
    }

    #[cfg(feature = "lang-javascript")]
    #[test]
    fn javascript_definitions_are_the_query_patterns() {
        let text = "function f(a, [b, c], {d, e: g}, h = 1) { const i = 1; let { j } = o; let [k] = p; }\nclass C { l = 1; #m = 2; n() {} #o() {} static q() {} }\nconst r = () => 1;\nvar s = function t() {};\n";
        assert!(agree("javascript", text) >= 14);
    }

    #[cfg(feature = "lang-typescript")]
    #[test]
    fn typescript_and_tsx_definitions_are_the_query_patterns() {
        let text = "function f(a: number, b?: string, [c]: number[], { d }: O) { const e = 1; }\nclass C { g = 1; #h = 2; i(): void {} #j() {} }\nabstract class A { abstract k(): void; }\ninterface I { l: number; m(): void; }\ntype T = { n: number; o(): void };\nenum E { P, Q = 1 }\nconst { r } = s; const [u] = v;\n";
        assert!(agree("typescript", text) >= 20);
        assert!(agree("tsx", text) >= 20);
    }

    const PYTHON_PATTERNS: &str = r#"
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
"#;

    const RUST_PATTERNS: &str = r#"
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
"#;

    const JAVASCRIPT_PATTERNS: &str = r#"
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
"#;

    const TYPESCRIPT_PATTERNS: &str = r#"
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
"#;
}

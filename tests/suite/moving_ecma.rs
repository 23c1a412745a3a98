//! `lancet move` on TypeScript/JavaScript through the CLI, one behaviour per test: the comments
//! directly above (a section heading set apart by a blank line stays), an import into a module
//! without imports (past a hashbang and a heading), imports under an alias and type-only ones,
//! a re-export chain, `export *` kept answering, a namespace import, a new file and an existing
//! one, a name clash, the import cycle refused, `--keep-reexport`, a default export refused, a
//! `.tsx` file, strings naming the old module, CommonJS, undo, and MCP `move_symbol`.

use super::tree::{describe, lancet, read, run_json, snapshot, temp_tree};
use std::path::Path;

fn run(root: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    run_json(root, "move", args)
}

const CART: &str = "\
import { round, clamp } from './util';
import type { Price } from './types';

/** The sum of prices, rounded. */
export function total(prices: Price[]): number {
  return round(prices.reduce((n, p) => n + p.value, 0));
}

export function cap(n: number): number {
  return clamp(n);
}
";

fn shop() -> tempfile::TempDir {
    temp_tree(&[
        ("src/cart.ts", CART.as_bytes()),
        (
            "src/util.ts",
            b"export function round(n: number): number {\n  return Math.round(n);\n}\n\nexport function clamp(n: number): number {\n  return n;\n}\n",
        ),
        ("src/types.ts", b"export interface Price {\n  value: number;\n}\n"),
        (
            "src/main.ts",
            b"import { total as grandTotal, cap } from './cart';\n\nconsole.log(grandTotal([]), cap(1));\n",
        ),
    ])
}

#[test]
fn a_function_moves_with_its_jsdoc_and_imports_and_an_aliased_import_follows() {
    let dir = shop();
    let (code, v) = run(dir.path(), &["total", "--to", "src/pricing.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "src/pricing.ts"),
        "import { round } from './util';\nimport type { Price } from './types';\n\n/** The sum of prices, rounded. */\nexport function total(prices: Price[]): number {\n  return round(prices.reduce((n, p) => n + p.value, 0));\n}\n"
    );
    // The old module lost the function and the imports only it used (`clamp` stays).
    assert_eq!(
        read(dir.path(), "src/cart.ts"),
        "import { clamp } from './util';\n\nexport function cap(n: number): number {\n  return clamp(n);\n}\n"
    );
    // The alias is kept and the statement split (`cap` stays with the old module).
    assert_eq!(
        read(dir.path(), "src/main.ts"),
        "import { cap } from './cart';\nimport { total as grandTotal } from './pricing';\n\nconsole.log(grandTotal([]), cap(1));\n"
    );
    assert_eq!(v["move"]["symbol"], "src/cart.ts::total");
    assert_eq!(v["move"]["created"], true);
}

#[test]
fn type_only_imports_stay_type_only_and_js_suffixed_specifiers_keep_their_style() {
    let dir = temp_tree(&[
        (
            "a.ts",
            b"export interface Shape {\n  w: number;\n}\n\nexport const unit = 1;\n",
        ),
        (
            "x.ts",
            b"import type { Shape } from './a.js';\nexport const s: Shape = { w: 1 };\n",
        ),
        (
            "y.ts",
            b"import { unit, type Shape } from './a.js';\nexport const t: Shape = { w: unit };\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["Shape", "--to", "shapes.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "x.ts"),
        "import type { Shape } from './shapes.js';\nexport const s: Shape = { w: 1 };\n"
    );
    assert_eq!(
        read(dir.path(), "y.ts"),
        "import { unit } from './a.js';\nimport { type Shape } from './shapes.js';\nexport const t: Shape = { w: unit };\n"
    );
    assert_eq!(read(dir.path(), "a.ts"), "export const unit = 1;\n");
}

#[test]
fn a_re_export_chain_is_pointed_at_the_new_module_and_its_users_are_left() {
    let dir = temp_tree(&[
        (
            "lib/a.ts",
            b"export function f(): number {\n  return 1;\n}\n",
        ),
        (
            "lib/index.ts",
            b"export { f } from './a';\nexport { f as g } from './a';\n",
        ),
        ("app.ts", b"import { f, g } from './lib';\nf();\ng();\n"),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "lib/b.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "lib/index.ts"),
        "export { f } from './b';\nexport { f as g } from './b';\n"
    );
    assert_eq!(
        read(dir.path(), "app.ts"),
        "import { f, g } from './lib';\nf();\ng();\n"
    );
}

#[test]
fn a_module_that_re_exports_everything_of_the_old_one_goes_on_answering_for_it() {
    // Decided: `export * from './a'` gains `export { f } from './b'` (the barrel's exports
    // stay what they were); importers through the barrel are left.
    let dir = temp_tree(&[
        (
            "a.ts",
            b"export function f(): number {\n  return 1;\n}\n\nexport function h(): number {\n  return 2;\n}\n",
        ),
        ("index.ts", b"export * from './a';\n"),
        ("app.ts", b"import { f, h } from './index';\nf();\nh();\n"),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "index.ts"),
        "export * from './a';\nexport { f } from './b';\n"
    );
    assert_eq!(
        read(dir.path(), "app.ts"),
        "import { f, h } from './index';\nf();\nh();\n"
    );
    // A barrel that re-exports everything of the new module already needs nothing.
    let dir = temp_tree(&[
        ("a.ts", b"export function f(): number {\n  return 1;\n}\n"),
        ("b.ts", b"export const k = 2;\n"),
        ("index.ts", b"export * from './a';\nexport * from './b';\n"),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "index.ts"),
        "export * from './a';\nexport * from './b';\n"
    );
    assert_eq!(
        read(dir.path(), "b.ts"),
        "export const k = 2;\n\nexport function f(): number {\n  return 1;\n}\n"
    );
}

#[test]
fn a_namespace_import_s_use_becomes_a_named_import_of_the_new_module() {
    let dir = temp_tree(&[
        (
            "a.ts",
            b"export function f(): number {\n  return 1;\n}\n\nexport const k = 2;\n",
        ),
        (
            "x.ts",
            b"import * as A from './a';\n\nconsole.log(A.f(), A.k);\n",
        ),
        (
            "y.ts",
            b"import * as A from './a';\n\nconsole.log(A.f());\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "x.ts"),
        "import * as A from './a';\nimport { f } from './b';\n\nconsole.log(f(), A.k);\n"
    );
    // Nothing else read through it: the namespace import goes.
    assert_eq!(
        read(dir.path(), "y.ts"),
        "import { f } from './b';\n\nconsole.log(f());\n"
    );
}

#[test]
fn a_name_the_destination_binds_already_is_refused() {
    let dir = temp_tree(&[
        ("a.ts", b"export function f(): number {\n  return 1;\n}\n"),
        (
            "b.ts",
            b"export const x = 1;\n\nexport function f(): number {\n  return 2;\n}\n",
        ),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["f", "--at", "a.ts:1:17", "--to", "b.ts"]);
    assert_eq!(code, Some(1), "{v:#}");
    let detail = v["error"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("`f` already means something else in b.ts (line 3)"),
        "{detail}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_move_that_closes_an_import_cycle_is_refused_naming_it() {
    // The moved code needs `base` from a; a keeps using f: b and a would import each other.
    let dir = temp_tree(&[
        (
            "a.ts",
            b"export const base = 1;\n\nexport function f(): number {\n  return base;\n}\n\nexport const g = f();\n",
        ),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "import_cycle", "{v:#}");
    assert!(
        v["error"]["detail"].as_str().unwrap().contains("`base`"),
        "{v:#}"
    );
    // a's import of b is one the move adds (for the use of f it keeps), not one a has.
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("an import the move adds there"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
    // Through a third module: b would import c, which imports a, which would import b.
    let dir = temp_tree(&[
        (
            "a.ts",
            b"import { c } from './c';\n\nexport function f(): number {\n  return c;\n}\n\nexport const g = f();\n",
        ),
        ("c.ts", b"import { unit } from './a';\n\nexport const c = unit + 1;\n"),
    ]);
    std::fs::write(
        dir.path().join("a.ts"),
        "import { c } from './c';\n\nexport const unit = 1;\n\nexport function f(): number {\n  return c;\n}\n\nexport const g = f();\n",
    )
    .unwrap();
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "import_cycle", "{v:#}");
    // An import of names used as types alone is no edge (TypeScript drops it): moving a type
    // that needs one is no cycle. Written plain, as TypeScript's Move to file does, or `import
    // type` when the tsconfig sets verbatimModuleSyntax.
    let a = b"export interface Base {\n  n: number;\n}\n\nexport interface Shape extends Base {\n  w: number;\n}\n\nexport const s: Shape = { n: 1, w: 2 };\n";
    let dir = temp_tree(&[("a.ts", a)]);
    let (code, v) = run(dir.path(), &["Shape", "--to", "b.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "b.ts"),
        "import { Base } from './a';\n\nexport interface Shape extends Base {\n  w: number;\n}\n"
    );
    assert!(read(dir.path(), "a.ts").starts_with("import { Shape } from './b';\n"));
    let dir = temp_tree(&[
        ("a.ts", a),
        (
            "tsconfig.json",
            b"{\n  \"compilerOptions\": { \"verbatimModuleSyntax\": true }\n}\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["Shape", "--to", "b.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert!(read(dir.path(), "b.ts").starts_with("import type { Base } from './a';\n"));
    assert!(read(dir.path(), "a.ts").starts_with("import type { Shape } from './b';\n"));
}

#[test]
fn keep_reexport_leaves_the_old_module_answering_for_it() {
    let dir = temp_tree(&[
        (
            "a.ts",
            b"import { x } from './x';\n\nexport function f(): number {\n  return 1;\n}\n\nexport const y = x;\n",
        ),
        ("x.ts", b"export const x = 1;\n"),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts", "--keep-reexport"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.ts"),
        "import { x } from './x';\nexport { f } from './b';\n\nexport const y = x;\n"
    );
}

#[test]
fn a_default_export_and_a_commonjs_module_are_refused_with_their_reasons() {
    let dir = temp_tree(&[
        (
            "a.ts",
            b"export default function f(): number {\n  return 1;\n}\n",
        ),
        (
            "c.js",
            b"function g() {\n  return 1;\n}\nmodule.exports = { g };\n",
        ),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "kind_mismatch", "{v:#}");
    assert!(
        v["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("default export"),
        "{v:#}"
    );
    let (code, v) = run(dir.path(), &["g", "--to", "d.js"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert!(
        v["error"]["detail"].as_str().unwrap().contains("CommonJS"),
        "{v:#}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn strings_naming_the_old_module_stop_the_move_unless_left() {
    let dir = temp_tree(&[
        ("a.ts", b"export function f(): number {\n  return 1;\n}\n"),
        (
            "lazy.ts",
            b"export async function load() {\n  const m = await import('./a');\n  return m.f();\n}\n",
        ),
    ]);
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites", "{v:#}");
    let detail = v["error"]["detail"].as_str().unwrap();
    assert!(detail.contains("lazy.ts:2:"), "{detail}");
    assert!(detail.contains("import() of the old module"), "{detail}");
    assert_eq!(snapshot(dir.path()), before);
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts", "--leave-unresolved"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        v["move"]["unresolved"].as_array().unwrap().len(),
        1,
        "{v:#}"
    );
}

#[test]
fn a_component_moves_between_tsx_files_and_a_non_exported_one_gets_exported() {
    let dir = temp_tree(&[
        (
            "App.tsx",
            b"import { useState } from 'react';\n\n// A counter.\nfunction Counter() {\n  const [n, setN] = useState(0);\n  return <button onClick={() => setN(n + 1)}>{n}</button>;\n}\n\nexport function App() {\n  return <Counter />;\n}\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["Counter", "--to", "Counter.tsx"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "Counter.tsx"),
        "import { useState } from 'react';\n\n// A counter.\nexport function Counter() {\n  const [n, setN] = useState(0);\n  return <button onClick={() => setN(n + 1)}>{n}</button>;\n}\n"
    );
    assert_eq!(
        read(dir.path(), "App.tsx"),
        "import { Counter } from './Counter';\n\nexport function App() {\n  return <Counter />;\n}\n"
    );
}

#[test]
fn an_existing_destination_gets_the_code_at_its_end_and_its_own_import_of_it_goes() {
    let dir = temp_tree(&[
        (
            "a.ts",
            b"export function f(): number {\n  return 1;\n}\n\nexport const k = 2;\n",
        ),
        (
            "b.ts",
            b"import { f, k } from './a';\n\nexport function g(): number {\n  return f() + k;\n}\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "b.ts"),
        "import { k } from './a';\n\nexport function g(): number {\n  return f() + k;\n}\n\nexport function f(): number {\n  return 1;\n}\n"
    );
    assert_eq!(read(dir.path(), "a.ts"), "export const k = 2;\n");
}

#[test]
fn a_typescript_move_is_undone_like_any_batch() {
    let dir = shop();
    let before = snapshot(dir.path());
    let (code, v) = run(
        dir.path(),
        &["total", "--to", "src/pricing.ts", "--dry-run"],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(v["status"], "dry_run");
    assert_eq!(snapshot(dir.path()), before);
    let (code, v) = run(dir.path(), &["total", "--to", "src/pricing.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    let out = lancet(&["-C", dir.path().to_str().unwrap(), "undo", "--json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn move_symbol_over_mcp_moves_a_typescript_function() {
    use crate::security::mcp::Mcp;
    use serde_json::json;
    let dir = shop();
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let answer = mcp.call(
        "move_symbol",
        json!({"symbol": "total", "to": "src/pricing.ts"}),
    );
    assert!(!answer.is_error, "{}", answer.text);
    assert_eq!(answer.structured["move"]["symbol"], "src/cart.ts::total");
    assert!(read(dir.path(), "src/main.ts").contains("from './pricing'"));
    // `cap` needs `clamp`, which the destination declares: no import of itself.
    let answer = mcp.call("move_symbol", json!({"symbol": "cap", "to": "src/util.ts"}));
    assert!(!answer.is_error, "{}", answer.text);
    let util = read(dir.path(), "src/util.ts");
    assert!(!util.contains("import"), "{util}");
    assert!(
        util.ends_with("export function cap(n: number): number {\n  return clamp(n);\n}\n"),
        "{util}"
    );
    let answer = mcp.call("move_symbol", json!({"symbol": "cap", "to": "src/util.ts"}));
    assert!(answer.is_error, "{answer:?}");
    assert!(
        answer
            .text
            .contains("src/util.ts is the file the symbol is in already"),
        "{}",
        answer.text
    );
}

#[test]
fn a_decorated_class_moves_with_its_decorators_and_an_assigned_binding_is_refused() {
    let dir = temp_tree(&[(
        "a.ts",
        b"import { sealed } from './deco';\n\n/** A cart. */\n@sealed\nclass Cart {}\n\nexport const cart = new Cart();\n\nexport let count = 0;\n\nexport function bump(): void {\n  count += 1;\n}\n",
    ), ("deco.ts", b"export function sealed(c: unknown): void {}\n")]);
    let (code, v) = run(dir.path(), &["Cart", "--to", "cart.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "cart.ts"),
        "import { sealed } from './deco';\n\n/** A cart. */\n@sealed\nexport class Cart {}\n"
    );
    assert!(
        read(dir.path(), "a.ts").starts_with("import { Cart } from './cart';\n\nexport const cart")
    );
    let before = snapshot(dir.path());
    let (code, v) = run(dir.path(), &["bump", "--to", "counter.ts"]);
    assert_eq!(code, Some(1), "{v:#}");
    let detail = v["error"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("`count` is assigned across the two modules"),
        "{detail}"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_name_joins_the_importer_s_own_import_of_the_new_module() {
    let dir = temp_tree(&[
        (
            "a.ts",
            b"export function f(): number {\n  return 1;\n}\n\nexport const k = 2;\n",
        ),
        ("b.ts", b"export const m = 3;\n"),
        (
            "x.ts",
            b"import { f, k } from './a';\nimport { m } from './b';\n\nconsole.log(f(), k, m);\n",
        ),
        (
            "y.ts",
            b"import { f } from './a';\nimport { m } from './b';\n\nconsole.log(f(), m);\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "b.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "x.ts"),
        "import { k } from './a';\nimport { m, f } from './b';\n\nconsole.log(f(), k, m);\n"
    );
    assert_eq!(
        read(dir.path(), "y.ts"),
        "import { m, f } from './b';\n\nconsole.log(f(), m);\n"
    );
}

#[test]
fn uses_left_and_the_moved_code_s_needs_join_the_imports_the_modules_have() {
    // a keeps using f and imports from b already; b imports from a already.
    let dir = temp_tree(&[
        (
            "a.ts",
            b"import type { M } from './b';\n\nexport interface Base {\n  n: number;\n}\n\nexport interface Shape extends Base {\n  m: M;\n}\n\nexport const s: Shape | M | undefined = undefined;\n",
        ),
        ("b.ts", b"import type { Base } from './a';\n\nexport interface M {\n  b: Base;\n}\n"),
    ]);
    let (code, v) = run(dir.path(), &["Shape", "--to", "b.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "a.ts"),
        "import type { M, Shape } from './b';\n\nexport interface Base {\n  n: number;\n}\n\nexport const s: Shape | M | undefined = undefined;\n"
    );
    assert_eq!(
        read(dir.path(), "b.ts"),
        "import type { Base } from './a';\n\nexport interface M {\n  b: Base;\n}\n\nexport interface Shape extends Base {\n  m: M;\n}\n"
    );
}

#[test]
fn the_moved_code_s_imports_join_the_destination_s_import_of_the_same_module() {
    // The destination imports from './util' and (values) from './types' already: `round`
    // joins the first list; the type-only `Price` keeps an `import type` of its own.
    let dir = shop();
    std::fs::write(
        dir.path().join("src/types.ts"),
        "export interface Price {\n  value: number;\n}\n\nexport class Shape {}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/pricing.ts"),
        "import { clamp } from './util';\nimport { Shape } from './types';\n\nexport function fee(n: number): Shape {\n  return clamp(n) && new Shape();\n}\n",
    )
    .unwrap();
    let (code, v) = run(dir.path(), &["total", "--to", "src/pricing.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "src/pricing.ts"),
        "import { clamp, round } from './util';\nimport { Shape } from './types';\nimport type { Price } from './types';\n\nexport function fee(n: number): Shape {\n  return clamp(n) && new Shape();\n}\n\n/** The sum of prices, rounded. */\nexport function total(prices: Price[]): number {\n  return round(prices.reduce((n, p) => n + p.value, 0));\n}\n"
    );
}

#[test]
fn the_comments_directly_above_move_and_a_section_heading_with_a_blank_line_under_it_stays() {
    // tsserver's "Move to file" takes every comment since the previous statement (table-core's
    // `// Utils` above compareBasic); the heading stands for the code after it, which stays.
    let dir = temp_tree(&[
        (
            "src/sort.ts",
            b"export function a(): number {\n  return 1;\n}\n\n// Utils\n\n// Compares two values.\n// Nullish last.\nfunction compare(x: number, y: number): number {\n  return x - y;\n}\n\nexport function other(): number {\n  return compare(1, 2);\n}\n",
        ),
        ("src/filter.ts", b"export function b(): number {\n  return 2;\n}\n"),
    ]);
    let (code, v) = run(dir.path(), &["compare", "--to", "src/filter.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "src/filter.ts"),
        "export function b(): number {\n  return 2;\n}\n\n// Compares two values.\n// Nullish last.\nexport function compare(x: number, y: number): number {\n  return x - y;\n}\n"
    );
    let sort = read(dir.path(), "src/sort.ts");
    assert!(
        sort.contains("\n// Utils\n\nexport function other()"),
        "{sort}"
    );
    assert!(!sort.contains("Compares"), "{sort}");
}

#[test]
fn an_import_into_a_module_without_imports_goes_past_its_hashbang_and_its_heading() {
    // The import a use left in the old module needs: above a hashbang it broke the file (the
    // gate refused the move); above a heading set apart by a blank line (query-core's
    // `// TYPES` in notifyManager.ts) it stood where TypeScript's own refactor does not put it.
    let dir = temp_tree(&[
        (
            "cli.js",
            b"#!/usr/bin/env node\nexport function f() {\n  return 1;\n}\n\nconsole.log(f());\n",
        ),
        (
            "plain.ts",
            b"type Handler = () => void\n\ntype Queue = (h: Handler) => void\n\nexport function drain(q: Queue): void {\n  q(() => {})\n}\n",
        ),
        (
            "notify.ts",
            b"// TYPES\n\ntype Callback = () => void\n\ntype Batch = (cb: Callback) => void\n\nexport function run(b: Batch): void {\n  b(() => {})\n}\n",
        ),
    ]);
    let (code, v) = run(dir.path(), &["f", "--to", "lib.js"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "cli.js"),
        "#!/usr/bin/env node\nimport { f } from './lib';\n\nconsole.log(f());\n"
    );
    let (code, v) = run(dir.path(), &["Batch", "--to", "batch.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "notify.ts"),
        "// TYPES\n\nimport { Batch } from './batch'\n\nexport type Callback = () => void\n\nexport function run(b: Batch): void {\n  b(() => {})\n}\n"
    );
    // Without a heading, above the first statement, which takes `export ` at the same place.
    let (code, v) = run(dir.path(), &["Queue", "--to", "queue.ts"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "plain.ts"),
        "import { Queue } from './queue'\n\nexport type Handler = () => void\n\nexport function drain(q: Queue): void {\n  q(() => {})\n}\n"
    );
}

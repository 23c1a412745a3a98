//! The resolver's unit tests: each fixture a small tree, each occurrence resolved and shown.

use super::EcmaProject;
use crate::rename::resolve::testing::Fixture;

/// Each occurrence of `old` in `path`, resolved over the files of the tree.
fn resolve(files: &[(&str, &str)], path: &str, old: &str) -> Vec<String> {
    let fixture = Fixture::new(files, &[path]);
    let sources = fixture.sources();
    fixture.resolve(&EcmaProject::new(&sources), path, old)
}

#[test]
fn declarations_are_their_symbols_and_a_parameter_shadows() {
    let text = "function total() {}\ntotal();\nfunction f(total) {\n  return total;\n}\n";
    assert_eq!(
        resolve(&[("a.js", text)], "a.js", "total"),
        ["1 = a.js@9", "2 = a.js@9", "3 = a.js@40", "4 = a.js@40"]
    );
}

#[test]
fn a_relative_import_is_the_exported_declaration() {
    let files = [
        ("src/a.ts", "export function total() {}\n"),
        ("src/b.ts", "import { total } from './a';\ntotal();\n"),
    ];
    assert_eq!(
        resolve(&files, "src/b.ts", "total"),
        ["1 = src/a.ts@16", "2 = src/a.ts@16"]
    );
}

#[test]
fn a_workspace_package_under_the_root_is_the_tree() {
    let files = [
        ("package.json", "{\"workspaces\": [\"packages/*\"]}"),
        (
            "packages/a/package.json",
            "{\"name\": \"@demo/a\", \"main\": \"dist/index.js\"}",
        ),
        (
            "packages/a/src/index.ts",
            "export function makeThing() {}\n",
        ),
        (
            "packages/b/src/index.ts",
            "import { makeThing } from '@demo/a';\nmakeThing();\n",
        ),
    ];
    assert_eq!(
        resolve(&files, "packages/b/src/index.ts", "makeThing"),
        [
            "1 = packages/a/src/index.ts@16",
            "2 = packages/a/src/index.ts@16"
        ]
    );
}

#[test]
fn tsconfig_paths_map_a_specifier_into_the_tree() {
    let files = [
        (
            "tsconfig.json",
            "{\n  // the packages\n  \"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@demo/*\": [\"packages/*/src\"],},},\n}\n",
        ),
        (
            "packages/a/src/index.ts",
            "export function makeThing() {}\n",
        ),
        (
            "packages/b/src/index.ts",
            "import { makeThing } from '@demo/a';\n",
        ),
    ];
    assert_eq!(
        resolve(&files, "packages/b/src/index.ts", "makeThing"),
        ["1 = packages/a/src/index.ts@16"]
    );
}

#[test]
fn a_package_of_the_tree_without_a_file_to_read_is_undecided() {
    let files = [
        (
            "packages/a/package.json",
            "{\"name\": \"@demo/a\", \"main\": \"out/a.js\"}",
        ),
        ("packages/a/README.md", "a\n"),
        (
            "packages/b/index.ts",
            "import { makeThing } from '@demo/a';\n",
        ),
    ];
    assert_eq!(
        resolve(&files, "packages/b/index.ts", "makeThing"),
        [
            "1 ? `@demo/a` is the package in packages/a/ of the tree, but lancet finds no file of it that package.json's exports, types or main name"
        ]
    );
}

#[test]
fn class_members_resolve_through_this_and_declared_types() {
    let text = "class Cart {\n  total() { return 1; }\n  run() { return this.total(); }\n}\nfunction f(c: Cart) {\n  return c.total();\n}\n";
    assert_eq!(
        resolve(&[("a.ts", text)], "a.ts", "total"),
        ["2 = a.ts@6.total", "3 = a.ts@6.total", "6 = a.ts@6.total"]
    );
}

#[test]
fn inherited_members_typed_fields_and_declared_locals_resolve() {
    // An interface's member through the interfaces it extends (in another file); a
    // class's through its base; `this.#cache` and `this.spare` through the field's declared
    // class; a local declared `Cache` whatever is assigned to it later.
    let base = "export interface Core {\n  find(): void\n}\n";
    let text = "import { Core } from './base';\ninterface Table<T> extends Core {}\nclass Cache implements Core {\n  find() {}\n}\nclass Sub extends Cache {}\nclass Client {\n  #cache: Cache;\n  spare = new Cache();\n  maybe: Cache | undefined;\n  run(t: Table<number>) {\n    t.find();\n    this.#cache.find();\n    this.spare.find();\n    this.maybe?.find();\n    new Sub().find();\n  }\n}\nlet c: Cache;\nc = make();\nc.find();\n";
    assert_eq!(
        resolve(&[("base.ts", base), ("a.ts", text)], "a.ts", "find"),
        [
            "4 = a.ts@72.find",
            "12 = base.ts@17.find",
            "13 = a.ts@72.find",
            "14 = a.ts@72.find",
            "15 = a.ts@72.find",
            "16 = a.ts@72.find",
            "21 = a.ts@72.find"
        ]
    );
}

#[test]
fn a_functions_declared_return_type_types_its_calls() {
    // `createClient()` (imported) is declared to return a Client: `createClient().get()`
    // and `const c = createClient(); c.get()` are Client's. An undeclared return, or a
    // local assigned again, is not told.
    let utils = "import { Client } from './client';\nexport function createClient(): Client {\n  return new Client();\n}\nexport function loose() {\n  return new Client();\n}\n";
    let client = "export class Client {\n  get() {}\n}\n";
    // TypeScript types `let d = createClient()` by its initializer, whatever is assigned
    // later; JavaScript declares nothing.
    let text = "import { createClient, loose } from './utils';\nconst c = createClient();\nc.get();\ncreateClient().get();\nloose().get();\nlet d = createClient();\nd = loose();\nd.get();\n";
    let script = "import { createClient, loose } from './utils';\nlet d = createClient();\nd = loose();\nd.get();\n";
    let files = [
        ("utils.ts", utils),
        ("client.ts", client),
        ("a.ts", text),
        ("b.js", script),
    ];
    let got = resolve(&files, "a.ts", "get");
    assert_eq!(
        got[..2],
        ["3 = client.ts@13.get", "4 = client.ts@13.get"],
        "{got:?}"
    );
    assert!(
        got[2].starts_with("5 ? ") && got[2].contains("returns is not declared"),
        "{got:?}"
    );
    assert_eq!(got[3], "8 = client.ts@13.get", "{got:?}");
    let got = resolve(&files, "b.js", "get");
    assert!(got[0].starts_with("4 ? "), "{got:?}");
}

#[test]
fn a_methods_declared_return_type_types_its_calls() {
    // `client.getCache()` is declared to return a Cache (also through a base and through
    // an interface's signature, and `T | undefined`); an overloaded method tells nothing.
    let text = "class Cache {\n  find() {}\n}\ninterface Source {\n  cache(): Cache | undefined\n}\nclass Base {\n  getCache(): Cache {\n    return new Cache();\n  }\n}\nclass Client extends Base {\n  pick(a: string): Cache;\n  pick(a: number): Cache;\n  pick(a: any): any {\n    return new Cache();\n  }\n}\nfunction f(client: Client, s: Source) {\n  client.getCache().find();\n  const c = client.getCache();\n  c.find();\n  s.cache()?.find();\n  client.pick(1).find();\n}\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "find");
    assert_eq!(
        got[..4],
        [
            "2 = a.ts@6.find",
            "20 = a.ts@6.find",
            "22 = a.ts@6.find",
            "23 = a.ts@6.find"
        ],
        "{got:?}"
    );
    assert!(
        got[4].starts_with("24 ? ") && got[4].contains("returns is not declared"),
        "{got:?}"
    );
}

#[test]
fn a_member_and_its_overrides_are_one_symbol() {
    // TypeScript renames a method and its overrides together: `Sub.subscribe`, what resolves
    // to it and `super.subscribe` are `Base.subscribe` (the hierarchy's root), and so is
    // `Leaf.subscribe`, two levels down; `Other.subscribe` overrides nothing of the tree.
    let text = "class Base {\n  subscribe() {}\n}\nclass Sub extends Base {\n  subscribe() {\n    return super.subscribe();\n  }\n}\nnew Sub().subscribe();\nnew Base().subscribe();\nclass Leaf extends Sub {\n  subscribe() {}\n}\nclass Other {\n  subscribe() {}\n}\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "subscribe");
    let root = "= a.ts@6.subscribe";
    for (i, line) in [(0, 2), (1, 5), (3, 9), (4, 10), (5, 12)] {
        assert_eq!(got[i], format!("{line} {root}"), "{got:?}");
    }
    assert!(got[2].starts_with("6 ? "), "{got:?}");
    assert_eq!(got[6], "15 = a.ts@206.subscribe", "{got:?}");
}

#[test]
fn members_the_declarations_do_not_tell_stay_unresolved() {
    // A union of two classes, an interface declared twice (merged), a base outside the
    // tree, a field the class does not declare.
    let text = "import { Remote } from 'remote';\nclass A {\n  find() {}\n}\nclass B {\n  find() {}\n}\ninterface M {\n  x: number\n}\ninterface M extends A {}\nclass R extends Remote {}\nclass C extends A {\n  run(ab: A | B, m: M, r: R) {\n    ab.find();\n    m.find();\n    r.find();\n    this.other.find();\n  }\n}\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "find");
    assert_eq!(
        got[..2],
        ["3 = a.ts@39.find", "6 = a.ts@63.find"],
        "{got:?}"
    );
    for (line, why) in [
        (15, "the type of `ab` is not known"),
        (16, "merged"),
        (17, "its base `Remote` is outside the tree"),
        (18, "the class of `this.other` is not declared"),
    ] {
        assert!(
            got.iter()
                .any(|g| g.starts_with(&format!("{line} ? ")) && g.contains(why)),
            "{line} {why}: {got:?}"
        );
    }
}

#[test]
fn a_private_member_is_the_one_its_class_declares() {
    let text = "class C {\n  #total = 1;\n  get() { return this.#total; }\n}\n";
    assert_eq!(
        resolve(&[("a.js", text)], "a.js", "total"),
        ["2 = a.js@0.#total", "3 = a.js@0.#total"]
    );
}

#[test]
fn a_method_on_a_receiver_of_unknown_type_is_not_resolved() {
    let text = "class Cart {\n  total() {}\n}\nfunction f(x) {\n  return x.total();\n}\n";
    assert_eq!(
        resolve(&[("a.js", text)], "a.js", "total"),
        ["2 = a.js@6.total", "5 ? the type of `x` is not known"]
    );
}

#[test]
fn parameters_and_literals_typed_by_their_context_resolve() {
    // A callback declared as a callable type (an interface's call signature, a function
    // type alias, an inline function type returned), a literal typed by its variable or
    // by the declared return type, a local asserted `as Row`: Row's member. An untyped
    // callback and an untyped literal are not told.
    let types = "export interface Row {\n  getValue(): number\n}\nexport interface SortingFn {\n  (rowA: Row, rowB: Row): number\n}\nexport type Agg = (rows: Row) => any\n";
    let text = "import { Row, SortingFn, Agg } from './types';\nconst sort: SortingFn = (a, b) => a.getValue() - b.getValue();\nconst agg: Agg = rows => rows.getValue();\nexport function make(): (row: Row) => number {\n  return row => row.getValue();\n}\nconst loose = (row) => row.getValue();\nconst core: Row = { getValue: () => 1 };\nfunction build(): Row {\n  return { getValue() { return 2 } };\n}\nconst anon = { getValue: 3 };\nlet t = {} as unknown as Row;\nt.getValue();\nconst getValue = () => 4;\nconst short: Row = { getValue };\n";
    let files = [("types.ts", types), ("a.ts", text)];
    let fixture = Fixture::new(&files, &["a.ts"]);
    let sources = fixture.sources();
    let got = fixture.resolve(&EcmaProject::new(&sources), "a.ts", "getValue");
    let member = "= types.ts@17.getValue";
    for (i, line) in [(0, 2), (1, 2), (2, 3), (3, 5), (5, 8), (6, 10), (8, 14)] {
        assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
    }
    assert!(got[4].starts_with("7 ? "), "{got:?}");
    assert!(got[7].starts_with("12 ? "), "{got:?}");
    assert!(got[9].starts_with("15 = a.ts@"), "{got:?}");
    // `{ getValue }` typed Row: the local, and Row's member as its key.
    assert!(
        got[10].starts_with("16 = a.ts@") && got[10].ends_with(&format!(" + field {member}")),
        "{got:?}"
    );
    assert_eq!(got.len(), 11, "{got:?}");
}

#[test]
fn a_destructured_key_is_the_member_of_its_patterns_declared_type() {
    // `const { getValue } = row` (row: Row), a long form, a default, a parameter
    // pattern annotated Row, one from a call declared to return Row, one of a callback
    // typed by its callable type: each key is Row's member (a shorthand's value stays its
    // local). An untyped pattern's key and a destructuring assignment's are undecided.
    let types = "export interface Row {\n  getValue(): number\n}\nexport function make(): Row {\n  return make();\n}\nexport type Each = (row: Row) => number\n";
    let text = "import { Row, Each, make } from './types';\nfunction a(row: Row) {\n  const { getValue } = row;\n  const { getValue: g } = row;\n  const { getValue: h = g } = row;\n}\nfunction b({ getValue }: Row) {}\nconst c = () => {\n  const { getValue } = make();\n};\nconst d: Each = ({ getValue }) => getValue();\nfunction e(row: any, typed: Row) {\n  const { getValue } = row;\n  let x;\n  ({ getValue: x } = typed);\n}\n";
    let files = [("types.ts", types), ("a.ts", text)];
    let fixture = Fixture::new(&files, &["a.ts"]);
    let sources = fixture.sources();
    let got = fixture.resolve(&EcmaProject::new(&sources), "a.ts", "getValue");
    let member = "= types.ts@17.getValue";
    for (i, line) in [(0, 3), (3, 7), (4, 9), (5, 11)] {
        assert!(
            got[i].starts_with(&format!("{line} = a.ts@"))
                && got[i].ends_with(&format!(" + field {member}")),
            "{got:?}"
        );
    }
    for (i, line) in [(1, 4), (2, 5)] {
        assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
    }
    assert!(got[6].starts_with("11 = a.ts@"), "{got:?}");
    assert!(
        got[7].starts_with("13 = a.ts@") && got[7].contains(" + field ? "),
        "{got:?}"
    );
    assert!(got[8].starts_with("15 ? "), "{got:?}");
    assert_eq!(got.len(), 9, "{got:?}");
}

#[test]
fn a_callback_of_an_array_method_gets_the_arrays_element() {
    // `rows.map(r => …)` where `rows` is declared `Row[]`, `Array<Row>`, `readonly Row[]`
    // (by an annotation or by a callable type's parameter): `r` is a Row, also `reduce`'s
    // second parameter. An untyped array is not told.
    let types = "export interface Row {\n  getValue(): number\n}\nexport type Agg = (id: string, rows: Row[]) => any\n";
    let text = "import { Row, Agg } from './types';\nconst sum: Agg = (id, rows) => rows.map(r => r.getValue());\nfunction local(rows: Row[], more: Array<Row>, ro: readonly Row[]) {\n  rows.filter(r => r.getValue());\n  more.some(r => r.getValue());\n  ro.forEach(r => r.getValue());\n  rows.reduce((acc, r) => r.getValue(), 0);\n}\nconst loose = (xs) => xs.map(x => x.getValue());\nfunction chained(rows: Row[], find: () => Row | undefined) {\n  rows.filter(r => r.getValue()).map(r => r.getValue());\n  const one = first(rows)!;\n  one.getValue();\n}\nfunction first(rows: Row[]): Row | undefined {\n  return rows[0];\n}\n";
    let files = [("types.ts", types), ("a.ts", text)];
    let fixture = Fixture::new(&files, &["a.ts"]);
    let sources = fixture.sources();
    let got = fixture.resolve(&EcmaProject::new(&sources), "a.ts", "getValue");
    let member = "= types.ts@17.getValue";
    // `reduce((acc, r) => …)`: its second parameter is the element.
    for (i, line) in [(0, 2), (1, 4), (2, 5), (3, 6), (4, 7)] {
        assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
    }
    assert!(got[5].starts_with("9 ? "), "{got:?}");
    // `rows.filter(…).map(r => …)`: filter gives the same array; `first(rows)!` a Row.
    for (i, line) in [(6, 11), (7, 11), (8, 13)] {
        assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
    }
    assert_eq!(got.len(), 9, "{got:?}");
}

#[test]
fn packages_and_globals_are_outside_and_object_keys_unresolved() {
    let text = "import { total } from 'lodash';\ntotal(console.total);\nconst o = { total: 1 };\n";
    assert_eq!(
        resolve(&[("a.js", text)], "a.js", "total"),
        [
            "1 outside: imported from the package `lodash`",
            "2 outside: imported from the package `lodash`",
            "2 outside: `console` is a JavaScript global",
            "3 ? `total` is a property key of an object literal (a member of an anonymous type)"
        ]
    );
}

#[test]
fn a_value_a_package_declares_is_undecided_not_outside() {
    // What a function or method of a package returns may be an instance of the tree's class
    // (`find(items, …)` gives an Item): its members are undecided, never outside.
    let text = "import { find } from 'lodash';\nimport _ from 'lodash';\nclass Item {\n  name() {}\n}\nconst it = find([new Item()]);\nit.name();\n_.head([new Item()]).name();\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "name");
    assert_eq!(got[0], "4 = a.ts@61.name", "{got:?}");
    assert!(got[1].starts_with("7 ? "), "{got:?}");
    assert!(got[2].starts_with("8 ? "), "{got:?}");
}

#[test]
fn a_callback_passed_to_the_trees_function_method_or_constructor_gets_its_declared_type() {
    // `each(items, i => …)` where `each` declares `f: (i: Item) => void` (imported, through a
    // namespace, a named callable type alias or interface, an optional parameter), a method's
    // and a constructor's parameter, an interface property declared as a function type (its
    // return types `l.all()` too): `i` is an Item. A type parameter, an overloaded function,
    // an argument after a spread and a package's function tell nothing.
    let types = "export interface Item {\n  name(): string\n}\nexport type Visit = (item: Item) => void\nexport interface Walker {\n  (item: Item, depth: number): void\n}\nexport function each(xs: Item[], f: (i: Item) => void) {}\nexport function visit(f?: Visit) {}\nexport function walk(w: Walker) {}\nexport function generic<T>(x: T, f: (t: T) => void) {}\nexport function over(f: (i: Item) => void): void;\nexport function over(f: (s: string) => void): void;\nexport function over(f: any) {}\nexport class List {\n  constructor(f: (i: Item) => void) {}\n  each(f: (i: Item) => void) {}\n  all: () => Item[] = () => []\n}\nexport interface Source {\n  pick: (f: (i: Item) => void) => void\n}\n";
    let text = "import { each, visit, walk, generic, over, List, Source } from './types';\nimport * as t from './types';\nimport { ext } from 'ext';\neach([], i => i.name());\nvisit(i => i.name());\nwalk((i, d) => i.name());\nt.each([], ({ name }) => name());\nnew List(i => i.name()).each(i => i.name());\nfunction f(s: Source, l: List) {\n  s.pick(i => i.name());\n  l.all().forEach(i => i.name());\n  generic(1, i => i.name());\n  over(i => i.name());\n  each(...[], i => i.name());\n  ext(i => i.name());\n}\n";
    let files = [("types.ts", types), ("a.ts", text)];
    let got = resolve(&files, "a.ts", "name");
    let member = "= types.ts@17.name";
    for (i, line) in [(0, 4), (1, 5), (2, 6), (5, 8), (6, 8), (7, 10), (8, 11)] {
        assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
    }
    // `({ name }) => name()`: the key is Item's member, its value the local.
    assert!(
        got[3].starts_with("7 = a.ts@") && got[3].ends_with(&format!(" + field {member}")),
        "{got:?}"
    );
    assert!(
        got[4].starts_with("7 = a.ts@") && !got[4].contains("field"),
        "{got:?}"
    );
    for (i, line) in [(9, 12), (10, 13), (11, 14), (12, 15)] {
        assert!(got[i].starts_with(&format!("{line} ? ")), "{got:?}");
    }
    assert_eq!(got.len(), 13, "{got:?}");
}

#[test]
fn an_overloaded_functions_return_is_not_told() {
    // `make(1)` returns a B by its second signature: taking the first's A would rename B's
    // `x` as A's.
    let text = "class A {\n  x() {}\n}\nclass B {\n  x() {}\n}\nfunction make(a: string): A;\nfunction make(a: number): B;\nfunction make(a: any): any {}\nmake(1).x();\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "x");
    assert_eq!(got[..2], ["2 = a.ts@6.x", "5 = a.ts@27.x"], "{got:?}");
    assert!(got[2].starts_with("10 ? "), "{got:?}");
}

#[test]
fn a_for_of_variable_is_an_element_of_the_declared_array() {
    // `for (const r of rows)` over `Row[]`, `ReadonlyArray<Row>`, a declared return and a
    // destructured element: Row's member. A variable assigned in the loop, `for await` and an
    // untyped array tell nothing.
    let text = "interface Row {\n  size(): number\n}\nfunction all(): Row[] {\n  return [];\n}\nfunction f(rows: Row[], ro: ReadonlyArray<Row>, xs: any[]) {\n  for (const r of rows) r.size();\n  for (const r of ro) r.size();\n  for (const r of all()) r.size();\n  for (const { size } of rows) size();\n  for (let r of rows) { r = rows[0]; r.size(); }\n  for (const x of xs) x.size();\n}\nasync function g(rows: Row[]) {\n  for await (const r of rows) r.size();\n}\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "size");
    let member = "= a.ts@10.size";
    for (i, line) in [(0, 2), (1, 8), (2, 9), (3, 10)] {
        assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
    }
    assert!(
        got[4].starts_with("11 = a.ts@") && got[4].ends_with(&format!(" + field {member}")),
        "{got:?}"
    );
    for (i, line) in [(6, 12), (7, 13), (8, 16)] {
        assert!(got[i].starts_with(&format!("{line} ? ")), "{got:?}");
    }
    assert_eq!(got.len(), 9, "{got:?}");
}

#[test]
fn a_property_an_imported_value_and_an_alias_are_typed_by_their_declarations() {
    // `header.column.size()` (Header declares `column: Column`, inherited from a base too),
    // `rows[0].size()`, `find()!.size()`, `sort((a, b) => …)`, an imported const holding a
    // `new Column()`, a type alias of an array iterated by a callback: Column's member. A
    // property typed by a type parameter, a global's property and a package's value are not
    // told.
    let types = "export class Column {\n  size() {}\n}\nexport interface Base {\n  column: Column\n}\nexport interface Header extends Base {\n  columns?: Column[]\n  any: T\n}\nexport type Columns = Column[]\nexport const main = new Column();\nexport function find(): Column | undefined {\n  return main;\n}\n";
    let text = "import { Header, Columns, main, find } from './types';\nimport { ext } from 'ext';\nfunction f(header: Header, cols: Columns) {\n  header.column.size();\n  header.columns?.[0].size();\n  find()!.size();\n  header.columns?.sort((a, b) => a.size() - b.size());\n  main.size();\n  cols.forEach(c => c.size());\n  header.any.size();\n  window.thing.size();\n  ext.column.size();\n}\n";
    let files = [("types.ts", types), ("a.ts", text)];
    let got = resolve(&files, "a.ts", "size");
    let member = "= types.ts@13.size";
    for (i, line) in [(0, 4), (1, 5), (2, 6), (3, 7), (4, 7), (5, 8), (6, 9)] {
        assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
    }
    for (i, line) in [(7, 10), (8, 11), (9, 12)] {
        assert!(got[i].starts_with(&format!("{line} ? ")), "{got:?}");
    }
    assert_eq!(got.len(), 10, "{got:?}");
}

#[test]
fn explicit_type_arguments_type_what_a_call_returns_and_a_map_holds() {
    // `useThing<Item>()` where `useThing<T>(): T | undefined`; `new Map<string, Item>()` and
    // a field annotated `Map<string, Item>`: `get` gives an Item, `forEach` passes one. A
    // generic function called without type arguments, a map of untyped values and `for … of`
    // over a map (its entries) tell nothing.
    let types = "export class Item {\n  name() {}\n}\nexport function useThing<K, T>(k: K): T | undefined {\n  return undefined;\n}\n";
    let text = "import { Item, useThing } from './types';\nuseThing<string, Item>('a')!.name();\nconst m = new Map<string, Item>();\nm.get('a')?.name();\nm.forEach(i => i.name());\nclass C {\n  items: Map<string, Item> = new Map();\n  run() {\n    this.items.get('b')!.name();\n  }\n}\nconst t = useThing<string, Item>('b');\nt!.name();\nuseThing('c')!.name();\nconst loose = new Map<string, any>();\nloose.get('a').name();\nfor (const e of m) e.name();\n";
    let files = [("types.ts", types), ("a.ts", text)];
    let got = resolve(&files, "a.ts", "name");
    let member = "= types.ts@13.name";
    for (i, line) in [(0, 2), (1, 4), (2, 5), (3, 9), (4, 13)] {
        assert_eq!(got[i], format!("{line} {member}"), "{got:?}");
    }
    for (i, line) in [(5, 14), (6, 16), (7, 17)] {
        assert!(got[i].starts_with(&format!("{line} ? ")), "{got:?}");
    }
    assert_eq!(got.len(), 8, "{got:?}");
}

#[test]
fn an_enums_members_are_its_own() {
    // `ErrorCode.OVERRUN`, `Logger.errors.OVERRUN` (a static field initialized to the enum,
    // imported) and `B = OVERRUN` inside the enum are the enum's member; another enum's member
    // of the name is its own.
    let types = "export enum ErrorCode {\n  OVERRUN = 'overrun',\n  B = OVERRUN,\n}\nexport class Logger {\n  static errors = ErrorCode;\n}\nexport enum Other {\n  OVERRUN,\n}\n";
    let text = "import { ErrorCode, Logger, Other } from './types';\nErrorCode.OVERRUN;\nLogger.errors.OVERRUN;\nOther.OVERRUN;\n";
    let files = [("types.ts", types), ("a.ts", text)];
    let got = resolve(&files, "a.ts", "OVERRUN");
    assert_eq!(
        got,
        [
            "2 = types.ts@12.OVERRUN",
            "3 = types.ts@12.OVERRUN",
            "4 = types.ts@129.OVERRUN"
        ]
    );
    let got = resolve(&files, "types.ts", "OVERRUN");
    assert_eq!(
        got,
        [
            "2 = types.ts@12.OVERRUN",
            "3 = types.ts@12.OVERRUN",
            "9 = types.ts@129.OVERRUN"
        ]
    );
}

#[test]
fn an_object_type_a_type_alias_names_holds_its_own_members() {
    // `type Decoded = { consumed }` (generic too) holds its members: a literal returned where
    // it is declared, a call's result. An object type written inline (a return type `{
    // consumed }`) is matched by shape alone: a Decoded returned there would break if either
    // were renamed apart, so its members, its literals' keys and its values' are not told.
    let text = "type Decoded = {\n  consumed: number;\n};\nfunction children(): Decoded {\n  return { consumed: 1 };\n}\nfunction decode(): { consumed: number } {\n  return { consumed: 2 };\n}\nconst d = decode();\nd.consumed;\nchildren().consumed;\ntype Helper<T> = {\n  consumed: (t: T) => void\n};\nfunction helper<T>(): Helper<T> {\n  return { consumed: t => {} };\n}\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "consumed");
    let (alias, generic) = ("a.ts@15.consumed", "a.ts@239.consumed");
    for (i, line) in [(0, 2), (1, 5), (5, 12)] {
        assert_eq!(got[i], format!("{line} = {alias}"), "{got:?}");
    }
    for (i, line) in [(2, 7), (3, 8), (4, 11)] {
        assert!(got[i].starts_with(&format!("{line} ? ")), "{got:?}");
    }
    assert!(got[2].contains("written inline"), "{got:?}");
    assert_eq!(
        got[6..],
        [format!("14 = {generic}"), format!("17 = {generic}")]
    );
}

#[test]
fn members_of_the_global_array_and_map_and_a_descriptors_keys_are_outside() {
    // `rows.map` of a declared array, `m.get` of a Map (typed or not) and the keys of
    // `Object.defineProperty`'s descriptor are the library's; a key of any other literal
    // passed to a global is not known.
    let text = "class Cache {\n  get() {}\n  map() {}\n}\nfunction f(rows: Cache[], o: object) {\n  rows.map(r => r.get());\n  const m = new Map(rows.map(r => [r, r]));\n  m.get(rows[0]);\n  Object.defineProperty(o, 'x', { get: () => 1 });\n  Object.assign(o, { get: () => 1 });\n}\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "get");
    assert_eq!(got[0], "2 = a.ts@6.get", "{got:?}");
    assert_eq!(got[1], "6 = a.ts@6.get", "{got:?}");
    assert!(got[2].starts_with("8 outside: "), "{got:?}");
    assert!(got[3].starts_with("9 outside: "), "{got:?}");
    assert!(got[4].starts_with("10 ? "), "{got:?}");
    let got = resolve(&[("a.ts", text)], "a.ts", "map");
    assert!(got[1].starts_with("6 outside: "), "{got:?}");
}

#[test]
fn an_element_read_by_a_numeric_index_and_a_member_read_into_a_local_are_typed() {
    // `const feature = table.features[i]` (a `for` counter) holds a Feature;
    // `const cols = column.columns` holds a Column[]; an index of unknown type tells
    // nothing.
    let text = "interface Feature {\n  create?: () => void\n}\ninterface Table {\n  features: readonly Feature[]\n}\nfunction f(table: Table, key: any) {\n  for (let i = 0; i < table.features.length; i++) {\n    const feature = table.features[i];\n    feature?.create?.();\n  }\n  const all = table.features;\n  all[0].create?.();\n  table.features[key].create?.();\n}\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "create");
    assert_eq!(
        got[..3],
        [
            "2 = a.ts@10.create",
            "10 = a.ts@10.create",
            "13 = a.ts@10.create"
        ],
        "{got:?}"
    );
    assert!(got[3].starts_with("14 ? "), "{got:?}");
}

#[test]
fn a_callback_taking_the_tuple_another_returns_gets_its_elements() {
    // `memo(getDeps: () => [...T], fn: (...args: NoInfer<[...T]>) => R)`: TypeScript infers
    // T from the array literal `getDeps` returns, so `fn`'s parameters are its elements (a
    // call of a parameter declared `() => Column[]` included). After a spread, and for a
    // function declaring no such pair, nothing is told.
    let utils = "export function memo<TDeps extends readonly any[], TResult>(\n  getDeps: () => [...TDeps],\n  fn: (...args: NoInfer<[...TDeps]>) => TResult\n): () => TResult {\n  return () => fn(...getDeps());\n}\nexport function loose<T extends any[]>(a: () => T, fn: (...args: any[]) => void) {}\ntype NoInfer<T> = [T][T extends any ? 0 : never]\nexport function memoOld<TDeps extends any[]>(getDeps: () => [...TDeps], fn: (...args: NoInfer<[...TDeps]>) => void) {}\n";
    let text = "import { memo, loose, memoOld } from './utils';\ninterface Column {\n  getIsVisible(): boolean\n}\ninterface Row {\n  getAllCells(): Column[]\n}\nfunction f(row: Row, getColumns: () => Column[]) {\n  memo(() => [row.getAllCells(), 1], (cells, n) => cells.filter(c => c.getIsVisible()));\n  memo(() => [getColumns()], columns => columns.map(d => d.getIsVisible()));\n  memo(() => [...getColumns()], columns => columns.getIsVisible());\n  loose(() => [getColumns()], columns => columns.getIsVisible());\n  memoOld(() => [getColumns()], columns => columns[0].getIsVisible());\n}\n";
    let files = [("utils.ts", utils), ("a.ts", text)];
    let got = resolve(&files, "a.ts", "getIsVisible");
    assert_eq!(
        got[..3],
        [
            "3 = a.ts@58.getIsVisible",
            "9 = a.ts@58.getIsVisible",
            "10 = a.ts@58.getIsVisible"
        ],
        "{got:?}"
    );
    assert!(
        got[3].starts_with("11 ? ") && got[3].contains("after a spread"),
        "{got:?}"
    );
    assert!(got[4].starts_with("12 ? "), "{got:?}");
    // The idiom older code declares for `NoInfer` (`[T][T extends any ? 0 : never]`) is T.
    assert_eq!(got[5], "13 = a.ts@58.getIsVisible", "{got:?}");
}

#[test]
fn a_factorys_one_returned_literal_holds_its_calls_members() {
    // `createManager()` declares no return type and returns one object literal: TypeScript
    // types its calls by that literal, so its keys (a shorthand too) are what `manager.batch`
    // names, imported or not. A function returning two literals, or one with a spread, tells
    // nothing.
    let factory = "export function createManager() {\n  const schedule = () => {};\n  return {\n    batch: () => {},\n    schedule,\n  } as const\n}\nexport const manager = createManager();\nmanager.batch();\n";
    let text = "import { manager, createManager } from './nm';\nmanager.batch();\nconst m = createManager();\nm.batch();\nfunction two(x: boolean) {\n  if (x) return { batch: 1 };\n  return { batch: 2 };\n}\ntwo(true).batch;\nfunction spread(o: object) {\n  return { ...o, batch: 3 };\n}\nspread({}).batch;\n";
    let files = [("nm.ts", factory), ("a.ts", text)];
    let got = resolve(&files, "nm.ts", "batch");
    assert_eq!(got, ["4 = nm.ts@72.batch", "9 = nm.ts@72.batch"]);
    let got = resolve(&files, "a.ts", "batch");
    assert_eq!(
        got[..2],
        ["2 = nm.ts@72.batch", "4 = nm.ts@72.batch"],
        "{got:?}"
    );
    for (i, line) in [(2, 6), (3, 7), (4, 9), (5, 11), (6, 13)] {
        assert!(got[i].starts_with(&format!("{line} ? ")), "{got:?}");
    }
    let got = resolve(&files, "nm.ts", "schedule");
    assert_eq!(
        got,
        ["2 = nm.ts@42", "5 = nm.ts@42 + field = nm.ts@72.schedule"]
    );
}

#[test]
fn the_librarys_mapped_types_and_an_alias_keeping_its_parameter_keep_its_members() {
    // `Partial<Options>`, and `RequiredKeys<Options, 'state'>` (imported: `Omit<T, K> &
    // Required<Pick<T, K>>`) hold Options' members, as TypeScript links them; an alias of an
    // intersection of two parameters tells nothing.
    let utils =
        "export type RequiredKeys<T, K extends keyof T> = Omit<T, K> &\n  Required<Pick<T, K>>\n";
    let text = "import { RequiredKeys } from './utils';\ninterface Options {\n  getRows(): void\n  state?: number\n}\ninterface Table {\n  getRows(): void\n  options: RequiredKeys<Options, 'state'>\n  partial: Partial<Options>\n}\nfunction f(t: Table) {\n  t.options.getRows();\n  t.partial.getRows?.();\n  t.getRows();\n}\ntype Mixed<T, U> = T & U;\nfunction g(m: Mixed<Options, Table>) {\n  m.getRows();\n}\n";
    let files = [("utils.ts", utils), ("a.ts", text)];
    let got = resolve(&files, "a.ts", "getRows");
    let (options, table) = ("= a.ts@50.getRows", "= a.ts@107.getRows");
    assert_eq!(
        got[..5],
        [
            format!("3 {options}"),
            format!("7 {table}"),
            format!("12 {options}"),
            format!("13 {options}"),
            format!("14 {table}"),
        ],
        "{got:?}"
    );
    assert!(got[5].starts_with("18 ? "), "{got:?}");
}

#[test]
fn an_interface_extending_a_choice_of_two_object_types_knows_its_members() {
    // `type Fns = … extends never ? { fns?: X } : { fns: Y }` as a base: a member neither
    // branch declares is looked up in the other bases; one both declare is undecided.
    let text = "interface Core {\n  getRows(): void\n}\ntype Fns = keyof Core extends never\n  ? { fns?: number, getRows: number }\n  : { fns: string }\ninterface Options extends Core, Fns {}\nfunction f(o: Options) {\n  o.getRows();\n  o.fns;\n}\n";
    let got = resolve(&[("a.ts", text)], "a.ts", "getRows");
    assert_eq!(got[0], "2 = a.ts@10.getRows", "{got:?}");
    assert!(
        got[2].starts_with("9 ? ") && got[2].contains("several"),
        "{got:?}"
    );
    let text = text.replace(", getRows: number", "");
    let got = resolve(&[("a.ts", &text)], "a.ts", "getRows");
    assert_eq!(got, ["2 = a.ts@10.getRows", "9 = a.ts@10.getRows"]);
    let got = resolve(&[("a.ts", &text)], "a.ts", "fns");
    assert!(got[2].starts_with("10 ? "), "{got:?}");
}

#[test]
fn a_string_key_of_an_indexed_access_type_is_the_member_of_the_type_indexed() {
    let text = "class A {\n  go() {}\n}\ntype G = A['go'];\ntype U = A['x' | 'go'];\ndeclare function f(): { go(): void };\ntype H = ReturnType<typeof f>['go'];\ntype P = Pick<A, 'go'>;\ntype O = Omit<A, ('x' | 'go')>;\n";
    let resolved = resolve(&[("a.ts", text)], "a.ts", "go");
    // A's `go` through `A['go']`, a union of keys, the library's Pick and Omit; a type lancet
    // does not resolve stays undecided, saying so.
    assert_eq!(
        [&resolved[..3], &resolved[5..]].concat(),
        [
            "2 = a.ts@6.go",
            "4 = a.ts@6.go",
            "5 = a.ts@6.go",
            "8 = a.ts@6.go",
            "9 = a.ts@6.go"
        ],
        "{resolved:?}"
    );
    assert_eq!(
        resolved[4],
        "7 ? `go` is a member named by a string in a type (`T['go']`, `Pick<T, 'go'>`) whose type lancet cannot resolve"
    );
}

#[test]
fn a_member_is_told_where_a_base_outside_the_tree_may_declare_it() {
    let base =
        "export class Base {\n  render() {}\n}\nexport interface Shape {\n  area(): number;\n}\n";
    let view = "\
import { Component } from 'react';
import { OnInit } from '@angular/core';
import { Base, Shape } from './base';
class Greeting extends Component {}
class Page implements OnInit {}
class NotFound extends Error {}
class Rows extends Array<number> {}
class Local extends Base {}
class Square implements Shape {}
class Later extends Greeting {}
class Odd extends mixin(Base) {}
";
    let fixture = Fixture::new(&[("base.ts", base), ("view.ts", view)], &["view.ts"]);
    let sources = fixture.sources();
    let project = EcmaProject::new(&sources);
    let at = |class: &str| view.find(&format!("class {class} ")).unwrap() as u32 + 6;
    let outside = |class: &str, name: &str| project.outside_base_of("view.ts", at(class), name, 0);
    assert_eq!(outside("Greeting", "render").as_deref(), Some("Component"));
    assert_eq!(outside("Page", "ngOnInit").as_deref(), Some("OnInit"));
    // The globals' members are known.
    assert_eq!(outside("NotFound", "describe"), None);
    assert_eq!(outside("NotFound", "toString").as_deref(), Some("Error"));
    assert_eq!(outside("Rows", "total"), None);
    assert_eq!(outside("Rows", "push").as_deref(), Some("Array"));
    // Bases of the tree, and through one.
    assert_eq!(outside("Local", "render"), None);
    assert_eq!(outside("Square", "area"), None);
    assert_eq!(outside("Later", "helper").as_deref(), Some("Component"));
    // A base lancet cannot read.
    assert_eq!(outside("Odd", "render").as_deref(), Some("mixin(Base)"));
}

#[test]
fn a_parameter_property_is_its_class_member() {
    let text = "class R {\n  constructor(public gone: boolean) {\n    log(gone);\n  }\n  show() {\n    return this.gone;\n  }\n}\nnew R(true).gone;\n";
    assert_eq!(
        resolve(&[("a.ts", text)], "a.ts", "gone"),
        [
            "2 = a.ts@6.gone",
            "3 = a.ts@6.gone",
            "6 = a.ts@6.gone",
            "9 = a.ts@6.gone"
        ]
    );
}

#[test]
fn a_member_a_declaration_file_declares_or_a_global_calls_is_told() {
    use crate::rename::model::{EcmaMember, SymbolId};
    use crate::rename::resolve::Resolver;
    use crate::report::OutsideReach;
    let declared = "export declare class Base {\n  run(): void;\n}\n";
    let view = "import { Base } from './lib';\nclass C extends Base {\n  run() {}\n}\nclass P extends Promise<number> {\n  static resolve() {}\n  static make() {}\n}\n";
    let fixture = Fixture::new(&[("lib.d.ts", declared), ("view.ts", view)], &["view.ts"]);
    let sources = fixture.sources();
    let project = EcmaProject::new(&sources);
    let member = |file: &str, text: &str, class: &str, name: &str| SymbolId::Ecma {
        file: file.into(),
        offset: text.find(&format!("class {class} ")).unwrap() as u32 + 6,
        member: Some(EcmaMember::Public(name.into())),
    };
    // `C.run` is `Base.run`, which the declaration file declares.
    assert_eq!(
        project.reached_from_outside(&member("lib.d.ts", declared, "Base", "run"), "run"),
        Some(OutsideReach::DeclarationFile("lib.d.ts".into()))
    );
    // `Promise.all` calls a subclass's static `resolve`.
    assert_eq!(
        project.reached_from_outside(&member("view.ts", view, "P", "resolve"), "resolve"),
        Some(OutsideReach::Base("Promise".into()))
    );
    assert_eq!(
        project.reached_from_outside(&member("view.ts", view, "P", "make"), "make"),
        None
    );
}

#[test]
fn a_class_member_and_the_interface_member_it_implements_are_tied() {
    use crate::rename::model::{EcmaMember, SymbolId};
    use crate::rename::resolve::Resolver;
    let base =
        "export interface Runner {\n  run(): void;\n}\nexport interface Timed extends Runner {}\n";
    let view = "import { Runner, Timed } from './base';\nclass R implements Runner {\n  run() {}\n}\nclass T implements Timed {\n  run() {}\n}\nclass Other {\n  run() {}\n}\n";
    let fixture = Fixture::new(&[("base.ts", base), ("view.ts", view)], &["view.ts"]);
    let sources = fixture.sources();
    let project = EcmaProject::new(&sources);
    let member = |file: &str, text: &str, holder: &str| SymbolId::Ecma {
        file: file.into(),
        offset: text.find(&format!("{holder} ")).unwrap() as u32
            + holder.split(' ').next().unwrap().len() as u32
            + 1,
        member: Some(EcmaMember::Public("run".into())),
    };
    let runner = member("base.ts", base, "interface Runner");
    assert!(project.related(&member("view.ts", view, "class R"), &runner));
    // Through an interface that extends it.
    assert!(project.related(&runner, &member("view.ts", view, "class T")));
    assert!(!project.related(&member("view.ts", view, "class Other"), &runner));
}

#[test]
fn a_parameter_property_of_a_class_without_a_name_is_undecided() {
    let text = "const C = class {\n  constructor(public gone: boolean) {}\n  show() {\n    return this.gone;\n  }\n};\n";
    let found = resolve(&[("a.ts", text)], "a.ts", "gone");
    assert!(found[0].starts_with("2 ? "), "{found:?}");
}

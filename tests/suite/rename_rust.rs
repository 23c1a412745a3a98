//! Issue #38's Rust renames that once wrote a wrong tree with exit 0 (found by the compiler
//! oracle on either and log): each is renamed right or refused naming the sites.

use super::tree::{describe, read, temp_tree};
use std::path::Path;

fn run_json(root: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    super::tree::run_json(root, args[0], &args[1..])
}

fn lines(v: &serde_json::Value, list: &str) -> Vec<u64> {
    v["rename"][list]
        .as_array()
        .unwrap_or_else(|| panic!("no rename.{list}: {v:#}"))
        .iter()
        .map(|s| s["line"].as_u64().unwrap())
        .collect()
}

/// Either's `cloned`: `impl W<&T>` and `impl W<&mut T>` each define one. `--at` on the first
/// renames it (and `self.cloned()` in its impl); a call whose receiver's type arguments lancet
/// does not read is listed and refused, never joined to it; the other impl's is left.
const TWO_IMPLS: &str = "\
pub struct W<T>(pub T);
impl<T> W<&T> {
    pub fn cloned(self) {}
    pub fn a(self) {
        self.cloned()
    }
}
impl<T> W<&mut T> {
    pub fn cloned(self) {}
}
pub fn f(w: W<&u8>) {
    w.cloned();
}
";

#[test]
fn at_on_one_of_two_impls_same_named_methods_renames_that_one_alone() {
    let dir = temp_tree(&[("src/lib.rs", TWO_IMPLS.as_bytes())]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--no-lsp", "--at", "src/lib.rs:3:12", "dup"],
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(lines(&v, "unresolved"), [12], "{v:#}");
    assert_eq!(read(dir.path(), "src/lib.rs"), TWO_IMPLS, "nothing written");
    let (code, v) = run_json(
        dir.path(),
        &[
            "rename",
            "--no-lsp",
            "--leave-unresolved",
            "--at",
            "src/lib.rs:3:12",
            "dup",
        ],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(lines(&v, "renamed"), [3, 5], "{v:#}");
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        TWO_IMPLS
            .replacen("fn cloned", "fn dup", 1)
            .replacen("self.cloned()", "self.dup()", 1)
    );
}

/// log's `UNINITIALIZED`: a constant used as a match pattern. Renaming the constant alone
/// would turn `UNINITIALIZED =>` into a catch-all binding (it compiles; the behaviour changes).
const CONST_PATTERN: &str = "\
const UNINITIALIZED: usize = 0;
pub fn state(s: Result<usize, usize>, t: usize) -> u8 {
    match s {
        Ok(UNINITIALIZED) => return 0,
        _ => {}
    }
    match t {
        UNINITIALIZED => 1,
        _ => 2,
    }
}
";

#[test]
fn a_constant_used_as_a_match_pattern_is_renamed_there_too() {
    let dir = temp_tree(&[("src/lib.rs", CONST_PATTERN.as_bytes())]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--no-lsp", "UNINITIALIZED", "UNSET"],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(lines(&v, "renamed"), [1, 4, 8], "{v:#}");
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        CONST_PATTERN.replace("UNINITIALIZED", "UNSET")
    );
}

/// A crate whose `double` is called in code, in two doctests and in a `macro_rules!` body.
const UNSEEN_LIB: &str = "\
//! ```
//! assert_eq!(demo::double(2), 4);
//! ```

macro_rules! twice_of {
    ($x:expr) => {
        $crate::double($x)
    };
}

/// ```
/// assert_eq!(demo::double(3), 6);
/// ```
pub fn double(x: i32) -> i32 {
    x * 2
}

pub fn quad(x: i32) -> i32 {
    double(double(x))
}

pub fn six() -> i32 {
    twice_of!(3)
}
";

/// rust-analyzer's rename edits the code only (as the fake server here answers: the
/// definition and the two calls).
const CODE_ONLY_EDIT: &str = r#"{"changes": {"{ROOT}/src/lib.rs": [
    {"range": {"start": {"line": 13, "character": 7}, "end": {"line": 13, "character": 13}}, "newText": "twice"},
    {"range": {"start": {"line": 18, "character": 4}, "end": {"line": 18, "character": 10}}, "newText": "twice"},
    {"range": {"start": {"line": 18, "character": 11}, "end": {"line": 18, "character": 17}}, "newText": "twice"}]}}"#;

fn lsp_rename(root: &Path, at: &str, new: &str, edit: &str) -> (Option<i32>, serde_json::Value) {
    lsp_rename_with(root, at, new, edit, &[])
}

/// [`lsp_rename`] with more arguments.
fn lsp_rename_with(
    root: &Path,
    at: &str,
    new: &str,
    edit: &str,
    more: &[&str],
) -> (Option<i32>, serde_json::Value) {
    let tools = tempfile::tempdir().unwrap();
    let path = super::rename::fake_server_path_as(tools.path(), "rust-analyzer");
    let mut args = vec![
        "rename",
        "-C",
        root.to_str().unwrap(),
        "--at",
        at,
        new,
        "--lsp",
        "--json",
    ];
    args.extend(more);
    let out = super::tree::lancet_env(
        &args,
        b"",
        &[
            ("PATH", path.as_str()),
            ("FAKE_LSP", "ok"),
            ("FAKE_LSP_EDIT", edit),
            ("LANCET_LSP_TIMEOUT", "20"),
        ],
    );
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(&out)));
    (out.status.code(), v)
}

/// `cargo test`'s verdict on a crate (its library, macros expanded, and its doctests), when
/// cargo is on PATH.
fn cargo_tests_pass(dir: &Path) -> Result<(), String> {
    super::tree::cargo_verdict(dir, &["test", "--offline", "--quiet"])
}

/// `rename --lsp` on Rust: the server's answer leaves doctests and `macro_rules!` bodies;
/// lancet's own resolver decides those sites, so `cargo test` still passes.
#[test]
fn lsp_rename_of_rust_keeps_lancets_doctest_and_macro_body_sites() {
    let dir = temp_tree(&[
        (
            "Cargo.toml",
            b"[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("src/lib.rs", UNSEEN_LIB.as_bytes()),
    ]);
    cargo_tests_pass(dir.path()).unwrap();
    let (code, v) = lsp_rename(dir.path(), "src/lib.rs:14:8", "twice", CODE_ONLY_EDIT);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(lines(&v, "renamed"), [2, 7, 12, 14, 19, 19], "{v:#}");
    let doctests: Vec<bool> = v["rename"]["renamed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["doctest"] == true)
        .collect();
    assert_eq!(doctests, [true, false, true, false, false, false], "{v:#}");
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        UNSEEN_LIB.replace("double", "twice")
    );
    cargo_tests_pass(dir.path())
        .unwrap_or_else(|e| panic!("{e}\n{}", read(dir.path(), "src/lib.rs")));
}

/// rust-analyzer's rename leaves comments: `--include-comments` renames their mentions beside
/// the server's edits, as lancet's own rename does, and without it they are listed, left.
#[test]
fn lsp_rename_of_rust_renames_comment_mentions_when_asked() {
    const LIB: &str = "// double is the helper below.\npub fn double(x: u32) -> u32 {\n    x * 2\n}\n\npub fn quad(x: u32) -> u32 {\n    double(double(x))\n}\n";
    const EDIT: &str = r#"{"changes": {"{ROOT}/src/lib.rs": [
    {"range": {"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 13}}, "newText": "twice"},
    {"range": {"start": {"line": 6, "character": 4}, "end": {"line": 6, "character": 10}}, "newText": "twice"},
    {"range": {"start": {"line": 6, "character": 11}, "end": {"line": 6, "character": 17}}, "newText": "twice"}]}}"#;
    for (more, renamed) in [(&[][..], false), (&["--include-comments"][..], true)] {
        let dir = temp_tree(&[("src/lib.rs", LIB.as_bytes())]);
        let (code, v) = lsp_rename_with(dir.path(), "src/lib.rs:2:8", "twice", EDIT, more);
        assert_eq!(code, Some(0), "{v:#}");
        let mut expected = LIB.replace("double(", "twice(");
        if renamed {
            expected = expected.replace("// double", "// twice");
        }
        assert_eq!(read(dir.path(), "src/lib.rs"), expected);
        assert_eq!(v["rename"]["mentions"][0]["line"], 1, "{v:#}");
        assert_eq!(v["rename"]["mentions"][0]["renamed"], renamed, "{v:#}");
    }
}

/// A README the crate includes as its documentation runs its examples as doctests, which
/// neither rust-analyzer nor lancet renames: the rename is refused, listed, and nothing is
/// written, unless the person leaves them.
#[test]
fn lsp_rename_of_rust_refuses_a_name_in_an_included_readme_example() {
    const LIB: &str =
        "#![doc = include_str!(\"../README.md\")]\npub fn double(x: u32) -> u32 {\n    x * 2\n}\n";
    const README: &str = "# demo\n\n```\nassert_eq!(demo::double(2), 4);\n```\n";
    const EDIT: &str = r#"{"changes": {"{ROOT}/src/lib.rs": [
    {"range": {"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 13}}, "newText": "twice"}]}}"#;
    let files = [
        ("src/lib.rs", LIB.as_bytes()),
        ("README.md", README.as_bytes()),
    ];
    let dir = temp_tree(&files);
    let (code, v) = lsp_rename(dir.path(), "src/lib.rs:2:8", "twice", EDIT);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(v["error"]["kind"], "unresolved_sites", "{v:#}");
    let detail = v["error"]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("README.md:4 (included by src/lib.rs:1)"),
        "{v:#}"
    );
    assert_eq!(read(dir.path(), "src/lib.rs"), LIB);
    let dir = temp_tree(&files);
    let (code, v) = lsp_rename_with(
        dir.path(),
        "src/lib.rs:2:8",
        "twice",
        EDIT,
        &["--leave-unresolved"],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        LIB.replace("fn double", "fn twice")
    );
    assert_eq!(read(dir.path(), "README.md"), README);
}

/// A format string's `{count}` names the parameter where rust-analyzer's rename (as the fake
/// server answers: the code alone) does not look: lancet renames it beside the server's edits.
#[test]
fn lsp_rename_of_rust_renames_a_format_strings_inline_argument() {
    const LIB: &str =
        "pub fn twice(count: u32) -> String {\n    format!(\"{count} -> {}\", count * 2)\n}\n";
    const EDIT: &str = r#"{"changes": {"{ROOT}/src/lib.rs": [
    {"range": {"start": {"line": 0, "character": 13}, "end": {"line": 0, "character": 18}}, "newText": "n"},
    {"range": {"start": {"line": 1, "character": 29}, "end": {"line": 1, "character": 34}}, "newText": "n"}]}}"#;
    let dir = temp_tree(&[("src/lib.rs", LIB.as_bytes())]);
    let (code, v) = lsp_rename(dir.path(), "src/lib.rs:1:14", "n", EDIT);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(read(dir.path(), "src/lib.rs"), LIB.replace("count", "n"));
}

/// A doctest site lancet cannot decide (a method on a receiver of unknown type) stops the
/// rename, listed with why the server was not asked; nothing is written.
#[test]
fn lsp_rename_of_rust_refuses_a_doctest_site_lancet_cannot_decide() {
    const LIB: &str = "\
pub struct Counter(pub u32);
impl Counter {
    /// ```
    /// let c = demo::make();
    /// c.bump();
    /// ```
    pub fn bump(&mut self) {
        self.0 += 1;
    }
}
";
    let dir = temp_tree(&[("src/lib.rs", LIB.as_bytes())]);
    let edit = r#"{"changes": {"{ROOT}/src/lib.rs": [
        {"range": {"start": {"line": 6, "character": 11}, "end": {"line": 6, "character": 15}}, "newText": "step"}]}}"#;
    let (code, v) = lsp_rename(dir.path(), "src/lib.rs:7:12", "step", edit);
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(lines(&v, "unresolved"), [5], "{v:#}");
    let why = v["rename"]["unresolved"][0]["why"].as_str().unwrap();
    assert!(
        why.starts_with("in a doctest, which rust-analyzer does not rename; "),
        "{v:#}"
    );
    assert_eq!(read(dir.path(), "src/lib.rs"), LIB, "nothing written");
}

/// log's `let world = "world"; log!(lvl, "hello {world}")`: a format string's inline argument
/// is the local, renamed with it (renaming the `let` alone left `{world}` naming nothing:
/// E0425 with exit 0); `{world}` with the macro's own `world = …` argument is left.
#[test]
fn an_inline_format_argument_is_renamed_with_its_local() {
    const LIB: &str = "\
pub fn f() -> String {
    let world = 1;
    format!(\"{world} {world:>4} {{world}}\")
}
pub fn g() -> String {
    format!(\"{world}\", world = 2)
}
";
    let dir = temp_tree(&[
        (
            "Cargo.toml",
            b"[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("src/lib.rs", LIB.as_bytes()),
    ]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--no-lsp", "--at", "src/lib.rs:2:9", "earth"],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(lines(&v, "renamed"), [2, 3, 3], "{v:#}");
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        LIB.replacen("let world", "let earth", 1).replacen(
            "{world} {world:>4}",
            "{earth} {earth:>4}",
            1
        )
    );
    cargo_tests_pass(dir.path())
        .unwrap_or_else(|e| panic!("{e}\n{}", read(dir.path(), "src/lib.rs")));
}

/// log's `Record::builder()` gives a `RecordBuilder`, and both types define `level`: a call's
/// result is typed by the declared return type of what it calls, so renaming `Record::level`
/// renames `record.level()` (a chain's `.build()` gives a `Record`) and leaves the builder's
/// `.level(..)` calls (before, `let b = Record::builder()` was taken as a `Record` and its
/// `b.level(1)` renamed: E0599 with exit 0).
#[test]
fn a_builders_same_named_method_is_told_apart_by_declared_return_types() {
    const LIB: &str = "\
pub struct Record {
    level: u8,
}
pub struct RecordBuilder {
    record: Record,
}
impl Record {
    pub fn builder() -> RecordBuilder {
        RecordBuilder { record: Record { level: 0 } }
    }
    pub fn level(&self) -> u8 {
        self.level
    }
}
impl RecordBuilder {
    pub fn level(&mut self, level: u8) -> &mut RecordBuilder {
        self.record.level = level;
        self
    }
    pub fn build(&self) -> Record {
        Record { level: self.record.level }
    }
}
pub fn f() -> u8 {
    let mut b = Record::builder();
    b.level(1);
    let r = Record::builder().level(2).build();
    r.level() + b.build().level()
}
";
    let dir = temp_tree(&[
        (
            "Cargo.toml",
            b"[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("src/lib.rs", LIB.as_bytes()),
    ]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--no-lsp", "--at", "src/lib.rs:11:12", "severity"],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(lines(&v, "renamed"), [11, 28, 28], "{v:#}");
    assert_eq!(
        read(dir.path(), "src/lib.rs"),
        LIB.replacen("pub fn level(&self)", "pub fn severity(&self)", 1)
            .replacen(
                "r.level() + b.build().level()",
                "r.severity() + b.build().severity()",
                1
            )
    );
    cargo_tests_pass(dir.path())
        .unwrap_or_else(|e| panic!("{e}\n{}", read(dir.path(), "src/lib.rs")));
}

/// log's `Log` trait: `(**self).enabled(..)` in `impl Log for &T`, `self.as_ref().enabled(..)`
/// in `impl Log for Box<T>`, a doctest's `self.enabled(..)` in its own `impl demo::Log for
/// Simple` (two doctests, each with its own `Simple`), and `$crate::private::enabled(..)` in a
/// `macro_rules!` body beside a test's own `fn enabled`: every site is decided, so renaming the
/// trait's method (and then the module's function) is written and the crate's tests, doctests
/// included, pass (before, each of these sites was undecided and the rename refused).
const LOG_LIB: &str = "\
//! ```
//! use demo::{Log, Record};
//! struct Simple;
//! impl demo::Log for Simple {
//!     fn enabled(&self, _: &Record) -> bool {
//!         true
//!     }
//! }
//! impl Simple {
//!     fn check(&self) -> bool {
//!         self.enabled(&Record)
//!     }
//! }
//! assert!(Simple.check());
//! assert!(demo::enabled!(Box::new(Simple)));
//! ```

pub mod private;

pub struct Record;

/// ```
/// use demo::Log;
/// struct Simple;
/// impl Log for Simple {
///     fn enabled(&self, _: &demo::Record) -> bool {
///         false
///     }
/// }
/// impl Simple {
///     fn off(&self) -> bool {
///         !self.enabled(&demo::Record)
///     }
/// }
/// assert!(Simple.off());
/// ```
pub trait Log {
    fn enabled(&self, record: &Record) -> bool;
}

impl<T> Log for &'_ T
where
    T: ?Sized + Log,
{
    fn enabled(&self, record: &Record) -> bool {
        (**self).enabled(record)
    }
}

impl<T> Log for Box<T>
where
    T: ?Sized + Log,
{
    fn enabled(&self, record: &Record) -> bool {
        self.as_ref().enabled(record)
    }
}

#[macro_export]
macro_rules! enabled {
    ($logger:expr) => {
        $crate::private::enabled($logger)
    };
}
";

const LOG_PRIVATE: &str = "\
pub fn enabled<L: crate::Log>(logger: L) -> bool {
    logger.enabled(&crate::Record)
}
";

const LOG_TEST: &str = "\
#[test]
fn enabled() {
    struct Off;
    impl demo::Log for Off {
        fn enabled(&self, _: &demo::Record) -> bool {
            false
        }
    }
    assert!(!demo::enabled!(&Off));
}
";

#[test]
fn a_traits_method_through_pointers_doctests_and_a_macros_crate_path_is_renamed() {
    let dir = temp_tree(&[
        (
            "Cargo.toml",
            b"[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("src/lib.rs", LOG_LIB.as_bytes()),
        ("src/private.rs", LOG_PRIVATE.as_bytes()),
        ("tests/off.rs", LOG_TEST.as_bytes()),
    ]);
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--no-lsp", "--at", "src/lib.rs:38:8", "is_on"],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(
        lines(&v, "renamed"),
        [5, 11, 26, 32, 38, 45, 46, 54, 55, 2, 5],
        "{v:#}"
    );
    let (code, v) = run_json(
        dir.path(),
        &["rename", "--no-lsp", "--at", "src/private.rs:1:8", "allows"],
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(lines(&v, "renamed"), [62, 1], "{v:#}");
    assert_eq!(
        read(dir.path(), "tests/off.rs"),
        LOG_TEST.replace("fn enabled(&self", "fn is_on(&self"),
        "the test's own `fn enabled` is left"
    );
    assert_eq!(
        read(dir.path(), "src/private.rs"),
        LOG_PRIVATE
            .replace("fn enabled", "fn allows")
            .replace("logger.enabled", "logger.is_on")
    );
    cargo_tests_pass(dir.path())
        .unwrap_or_else(|e| panic!("{e}\n{}", read(dir.path(), "src/lib.rs")));
}

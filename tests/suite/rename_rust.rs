//! Issue #38's Rust renames that once wrote a wrong tree with exit 0 (found by the compiler
//! oracle on either and log): each is renamed right or refused naming the sites.

use super::tree::{describe, lancet, temp_tree};
use std::path::Path;

fn run_json(root: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec![args[0], "-C", root.to_str().unwrap(), "--json"];
    all.extend(&args[1..]);
    let out = lancet(&all, b"");
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", describe(&out)));
    (out.status.code(), v)
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap()
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

//! A Rust type read as written text: a whole word in it, a word replaced, its type arguments
//! and a tuple's parts split at the outer commas, one reference taken off, and whether it is a
//! type a member can be looked up in. Typing an expression (`typing.rs`) reads the declared
//! types it follows through these.

use super::bare_type;
use super::members::deref_type;

/// Whether `word` stands in `ty` (a type, or any Rust text) as a whole word at `at`.
pub(super) fn whole_word(ty: &str, at: usize, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    ty[..at].chars().next_back().is_none_or(|c| !ident(c))
        && ty[at + word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !ident(c))
}

/// `ty` with each whole word `word` replaced by `with`.
pub(super) fn replace_word(ty: &str, word: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = 0;
    for (at, _) in ty.match_indices(word) {
        if at >= rest && whole_word(ty, at, word) {
            out.push_str(&ty[rest..at]);
            out.push_str(with);
            rest = at + word.len();
        }
    }
    out.push_str(&ty[rest..]);
    out
}

/// Whether a type lancet computed can decide a member: a path (the type's members), or
/// `dyn Trait` / `impl Trait` (a parameter's: its bounds' members); not a generic parameter
/// (`_`), a tuple, an array or slice, or a function pointer.
pub(super) fn usable(ty: &str) -> bool {
    let held = deref_type(ty);
    if held.starts_with("dyn ") || held.starts_with("impl ") {
        return true;
    }
    let path = held.split('<').next().unwrap_or_default();
    let bare = bare_type(&held);
    !(path.split("::").any(|s| s.trim() == "_")
        || bare.is_empty()
        || !bare.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// The type arguments of `Option<T>` / `Result<T, E>` (or any `Outer<…>`) as written, split
/// at the commas of the outer list only: `Result<(u64, &str), Error>` → `(u64, &str)`, `Error`.
pub(super) fn type_arguments(ty: &str) -> Option<Vec<&str>> {
    let open = ty.find('<')?;
    split_top(ty[open + 1..].strip_suffix('>')?)
}

/// The parts of a tuple type as written (`(u64, &str)` → `u64`, `&str`); `None` when `ty` is
/// not one.
pub(super) fn tuple_elements(ty: &str) -> Option<Vec<&str>> {
    split_top(ty.trim().strip_prefix('(')?.strip_suffix(')')?)
}

/// `list` split at the commas outside any brackets, each part trimmed (a trailing comma ends
/// the list: `(T,)`); `None` when its brackets do not balance.
fn split_top(list: &str) -> Option<Vec<&str>> {
    let parts: Vec<&str> = split_at_top(list, ',').map(str::trim).collect();
    let depth: i32 = list
        .chars()
        .map(|c| match c {
            '<' | '(' | '[' => 1,
            '>' | ')' | ']' => -1,
            _ => 0,
        })
        .sum();
    if depth != 0 {
        return None;
    }
    Some(match parts.as_slice() {
        [.., ""] => parts[..parts.len() - 1].to_vec(),
        _ => parts,
    })
}

/// `text` split at each `separator` outside any brackets.
pub(super) fn split_at_top(text: &str, separator: char) -> impl Iterator<Item = &str> {
    let mut depth = 0i32;
    text.split(move |c: char| {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            _ => {}
        }
        c == separator && depth == 0
    })
}

/// `ty` less one reference (`&'a mut T` → `T`); `None` when it is no reference.
pub(super) fn strip_reference(ty: &str) -> Option<&str> {
    let mut ty = ty.trim().strip_prefix('&')?.trim_start();
    if let Some(rest) = ty.strip_prefix('\'') {
        ty = rest.split_once(' ')?.1.trim_start();
    }
    Some(ty.strip_prefix("mut ").unwrap_or(ty).trim_start())
}

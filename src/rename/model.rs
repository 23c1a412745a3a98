//! The shared data of a rename: the options, a parsed file, what an occurrence resolves to,
//! what one file holds of OLD, and which sites the rename takes. Every room of the rename reads
//! these; none of them holds any of the flow.

use super::lsp::servers::Lsp;
use crate::report::{LeftSite, LeftWhy, Mention, Site, SymbolKind};
use lancet_core::Span;
use lancet_syntax as syntax;
use lancet_syntax::LanguageEntry;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use tree_sitter::Tree;

/// A parsed file of the tree: what resolution reads.
pub(crate) struct Parsed {
    /// Relative path.
    pub path: String,
    /// The source.
    pub text: String,
    /// Its syntax tree.
    pub tree: Tree,
    /// A file's doctests rather than the file itself (see [`super::doctests`]): each block
    /// wrapped in a function whose name stands at these offsets.
    pub doctest_wrappers: Option<Vec<usize>>,
}

/// What an identifier spelled OLD refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// A binding of the tree, by id.
    Symbol(SymbolId),
    /// Lancet cannot tell without types; why.
    Unresolved(String),
    /// Something outside the tree (a builtin, another package's name); why.
    Outside(String),
}

/// A symbol of the tree, as its language's resolver identifies it: two sites are the same
/// symbol when their ids are equal. It displays as a short text (`a.py::Cart.total`,
/// `src/a.ts@12.name`, `rust:item:frob#value`) for tests and diagnostics.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum SymbolId {
    /// A Python binding: its module's file and its qualified name there, `.` after a class and
    /// `::` after a function or other scope (`name`, `Cart.total`, `Cart.run::total`).
    Python { module: String, qual: String },
    /// A JavaScript/TypeScript declaration, by its file and offset (a class's or interface's
    /// name for a member), and the member of it the symbol is.
    Ecma {
        file: String,
        offset: u32,
        member: Option<EcmaMember>,
    },
    /// A Rust item, local or member.
    Rust(RustSymbol),
}

/// A member of a JavaScript/TypeScript class or interface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum EcmaMember {
    /// `name`: a method, field or property.
    Public(String),
    /// `#name`: a class's private member.
    Private(String),
}

/// What a Rust symbol is, by what the syntax proves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum RustSymbol {
    /// An item (fn, struct, trait, mod, macro, …): its name and what tells it from the other
    /// items of that name.
    Item { name: String, tell: ItemTell },
    /// A function's local (a parameter among them), by the file and offset of its declaration.
    Local { path: String, offset: usize },
    /// `Holder::name`: an associated item or variant of a type, or a trait's member.
    Associated {
        holder: String,
        name: String,
        /// The impl's self type as written (`Either<&L, &R>`) when several inherent impls of
        /// the type define `name` (`impl Either<&L, &R>`, `impl Either<&mut L, &mut R>`): two
        /// methods, which one a call reaches depends on the receiver's type arguments.
        within: Option<String>,
    },
    /// `Holder.name`: a struct's field (a field and a method of one name are two symbols).
    Field { holder: String, name: String },
}

/// What tells a Rust item from the others of its name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ItemTell {
    /// No other item has its name.
    Alone,
    /// No other item has its name in this namespace.
    Space(ItemSpace),
    /// Its place: the file and the offset of its name.
    At { path: String, offset: usize },
}

/// Rust's namespaces: a module and a function of one name are two items (`mod identifier`,
/// `fn identifier`), and so are a macro and a function (`log!`, `log`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum ItemSpace {
    /// Modules, types and traits.
    Type,
    /// Functions, constants and statics (and a unit or tuple struct's constructor).
    Value,
    /// Macros.
    Macro,
}

impl SymbolId {
    /// Whether it names a member (a class's method or attribute, a type's field or associated
    /// item) rather than a plain binding.
    pub(crate) fn is_member(&self) -> bool {
        match self {
            SymbolId::Python { qual, .. } => qual
                .rsplit("::")
                .next()
                .is_some_and(|tail| tail.contains('.')),
            SymbolId::Ecma { member, .. } => member.is_some(),
            SymbolId::Rust(symbol) => matches!(
                symbol,
                RustSymbol::Associated { .. } | RustSymbol::Field { .. }
            ),
        }
    }

    /// A Python member's module and class (`Class.own`: a method, a class attribute, an
    /// attribute `self` sets; not `Class.method::local`, a function's local): what the
    /// resolver's hierarchy questions are asked of.
    pub(crate) fn python_member(&self) -> Option<(&str, &str)> {
        let SymbolId::Python { module, qual } = self else {
            return None;
        };
        let (class, own) = qual.rsplit_once('.')?;
        (!own.contains("::")).then_some((module.as_str(), class))
    }

    /// A JavaScript/TypeScript public member's class or interface (its file and its name's
    /// offset) and its name: what the resolver's hierarchy questions are asked of.
    pub(crate) fn ecma_member(&self) -> Option<(&str, u32, &str)> {
        match self {
            SymbolId::Ecma {
                file,
                offset,
                member: Some(EcmaMember::Public(name)),
            } => Some((file.as_str(), *offset, name.as_str())),
            _ => None,
        }
    }

    /// Whether it may be a binding local to a function (a parameter among them): a Python
    /// name bound in a function or other inner scope, a JavaScript/TypeScript declaration that
    /// is no member, a Rust local.
    pub(crate) fn is_local(&self) -> bool {
        match self {
            SymbolId::Python { qual, .. } => !self.is_member() && qual.contains("::"),
            SymbolId::Ecma { member, .. } => member.is_none(),
            SymbolId::Rust(symbol) => matches!(symbol, RustSymbol::Local { .. }),
        }
    }

    /// The file a function's local is seen in: a Rust local's, a Python function's local's
    /// (not one in a lambda or comprehension). A JavaScript/TypeScript declaration may be a
    /// module's export, seen elsewhere: none.
    pub(crate) fn local_file(&self) -> Option<&str> {
        match self {
            SymbolId::Rust(RustSymbol::Local { path, .. }) => Some(path),
            SymbolId::Python { module, qual }
                if qual.contains("::") && !qual.contains('@') && !module.contains('@') =>
            {
                Some(module)
            }
            _ => None,
        }
    }
}

impl fmt::Display for SymbolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymbolId::Python { module, qual } => write!(f, "{module}::{qual}"),
            SymbolId::Ecma {
                file,
                offset,
                member,
            } => {
                write!(f, "{file}@{offset}")?;
                match member {
                    Some(EcmaMember::Public(name)) => write!(f, ".{name}"),
                    Some(EcmaMember::Private(name)) => write!(f, ".#{name}"),
                    None => Ok(()),
                }
            }
            SymbolId::Rust(RustSymbol::Item { name, tell }) => {
                write!(f, "rust:item:{name}")?;
                match tell {
                    ItemTell::Alone => Ok(()),
                    ItemTell::Space(space) => write!(f, "#{}", space.name()),
                    ItemTell::At { path, offset } => write!(f, "@{path}:{offset}"),
                }
            }
            SymbolId::Rust(RustSymbol::Local { path, offset }) => {
                write!(f, "rust:local@{path}@{offset}")
            }
            SymbolId::Rust(RustSymbol::Associated {
                holder,
                name,
                within,
            }) => {
                write!(f, "rust:{}::{name}", within.as_deref().unwrap_or(holder))
            }
            SymbolId::Rust(RustSymbol::Field { holder, name }) => write!(f, "rust:{holder}.{name}"),
        }
    }
}

impl ItemSpace {
    /// Its name in an item's id.
    fn name(self) -> &'static str {
        match self {
            ItemSpace::Type => "type",
            ItemSpace::Value => "value",
            ItemSpace::Macro => "macro",
        }
    }
}

/// What to rename, where.
#[derive(Debug, Clone)]
pub struct RenameOptions {
    /// The identifier to rename.
    pub old: String,
    /// Its new name.
    pub new: String,
    /// Files and directories to walk, relative to the root (empty: the whole root).
    pub paths: Vec<String>,
    /// Only files of this language (a name of `grammars/languages.toml`).
    pub lang: Option<String>,
    /// Only when OLD is defined as this kind of symbol.
    pub kind: SymbolKind,
    /// Also rename whole-word mentions inside string literals.
    pub include_strings: bool,
    /// Also rename whole-word mentions inside comments.
    pub include_comments: bool,
    /// The symbol by position, `PATH:LINE:COL` (1-based line and column, in characters; any
    /// character of the identifier): only the sites that resolve to it are renamed, and OLD
    /// may be left empty (it is the identifier there).
    pub at: Option<String>,
    /// Also rename the sites lancet cannot resolve (never those that resolve outside the tree).
    pub include_unresolved: bool,
    /// Write the decided sites and leave the unresolved ones as they are (listed). Without it
    /// or `include_unresolved`, a rename with an unresolved site writes nothing: a site that
    /// may be the symbol left under its old name can break the build.
    pub leave_unresolved: bool,
    /// A bare OLD naming several unrelated symbols (no override, re-export or import joins
    /// them) renames them all; without it such a rename is refused, naming each definition.
    pub all_definitions: bool,
    /// Ask the project's language server (needs `at`): its answer is applied as a transaction.
    pub lsp: Option<Lsp>,
    /// The language servers lancet may ask about the sites it cannot decide (each asked per
    /// site), and through which it renames languages it resolves no names in (Go: gopls);
    /// `None`: no server runs (`--no-lsp`, `[rename] lsp = false`, MCP without `--allow-lsp`).
    pub servers: Option<Lsp>,
    /// Files the walk leaves out: the person's `[walk] exclude`
    /// ([`Config::walk_excludes`](crate::Config::walk_excludes)), never a model's.
    pub exclude: globset::GlobSet,
}

impl RenameOptions {
    /// OLD to NEW over the whole root, any kind, code only, no server: what the other fields'
    /// absence means (a caller sets the ones it takes).
    pub(crate) fn plain(old: &str, new: &str) -> RenameOptions {
        RenameOptions {
            old: old.to_string(),
            new: new.to_string(),
            paths: Vec::new(),
            lang: None,
            kind: SymbolKind::Any,
            include_strings: false,
            include_comments: false,
            at: None,
            include_unresolved: false,
            leave_unresolved: false,
            all_definitions: false,
            servers: None,
            lsp: None,
            exclude: globset::GlobSet::empty(),
        }
    }
}

/// A language lancet renames in: its grammar and what its `rename.scm` names.
pub(crate) struct Renamer {
    pub(crate) entry: &'static LanguageEntry,
    pub(crate) grammar: tree_sitter::Language,
    pub(crate) kinds: RenameKinds,
}

/// The node kinds a language's `rename.scm` captures: names (renamed when their text is OLD),
/// strings and comments (where OLD is only listed).
#[derive(Default)]
pub(crate) struct RenameKinds {
    pub(crate) names: Vec<&'static str>,
    pub(crate) strings: Vec<&'static str>,
    pub(crate) comments: Vec<&'static str>,
}

/// One whole-word occurrence of OLD in code.
pub(crate) struct Occurrence {
    /// Byte offset.
    pub(crate) at: usize,
    /// 1-based line.
    pub(crate) line: usize,
    /// The kinds of definition it names (see [`super::definitions`]).
    pub(crate) kinds: Vec<SymbolKind>,
    /// What it refers to, once resolved (for a shorthand field, the value: a local or item).
    pub(crate) resolution: Option<Resolution>,
    /// A Rust shorthand field (`P { major }`, `let P { major } = p`): the field it also names.
    pub(crate) field: Option<Resolution>,
    /// In a doctest: code in a comment, resolved on the file's doctests.
    pub(crate) doctest: bool,
}

impl Occurrence {
    /// Which sides the rename takes: the value (the usual resolution) and, for a shorthand
    /// field, the field.
    pub(crate) fn sides(&self, chosen: &Chosen, opts: &RenameOptions) -> (bool, bool) {
        (
            chosen.renames(self.resolution.as_ref(), opts),
            self.field
                .as_ref()
                .is_some_and(|f| chosen.renames(Some(f), opts)),
        )
    }
}

/// What one file holds of OLD.
pub(crate) struct FileScan {
    pub(crate) path: String,
    pub(crate) sha256: String,
    pub(crate) language: &'static str,
    pub(crate) renamer: &'static Renamer,
    pub(crate) parsed: Arc<Parsed>,
    /// The file's doctests, parsed, when OLD stands in one.
    pub(crate) doctests: Option<Arc<Parsed>>,
    /// Offsets where lines start.
    pub(crate) starts: Vec<usize>,
    pub(crate) occurrences: Vec<Occurrence>,
    /// Spans of the strings and comments renamed on request.
    pub(crate) mention_spans: Vec<Span>,
    pub(crate) spans: Vec<Span>,
    pub(crate) mentions: Vec<Mention>,
    /// Lines where NEW already is an identifier (none looked for when NEW is OLD).
    pub(crate) collisions: Vec<Collision>,
    /// The syntax gate's verdict on the renamed content, from this scan's tree.
    pub(crate) precheck: Option<syntax::Prechecked>,
}

/// Line `line` (1-based) of `text`, trimmed: what a report shows beside a site.
pub(crate) fn line_text(text: &str, starts: &[usize], line: usize) -> String {
    let start = starts[line - 1];
    let end = starts.get(line).copied().unwrap_or(text.len());
    text[start..end].trim().to_string()
}

impl FileScan {
    /// The site at byte `at`, as a report lists it.
    pub(crate) fn site_at(&self, at: usize) -> Site {
        let line = lancet_core::line_of(&self.starts, at);
        Site {
            path: self.path.clone(),
            line,
            column: at - self.starts[line - 1] + 1,
            doctest: false,
        }
    }

    /// The site at byte `at` left, with why, and its line's text for the report to show.
    pub(crate) fn left_at(&self, at: usize, why: LeftWhy) -> LeftSite {
        let Site {
            path, line, column, ..
        } = self.site_at(at);
        LeftSite {
            path,
            line,
            column,
            text: line_text(&self.parsed.text, &self.starts, line),
            why,
        }
    }
}

/// NEW already in code, where OLD would become it.
pub(crate) struct Collision {
    pub(crate) line: usize,
    /// A member's name (`x.new`, a method or field declared in a class): it merges with
    /// nothing but a member.
    pub(crate) member: bool,
}

/// Which resolved sites a rename takes: every symbol, or the bindings `--at` or a qualified
/// name chose.
pub(crate) enum Chosen {
    /// Every site that resolves to a symbol of the tree.
    All,
    /// The sites that resolve to one of these symbols.
    Ids(HashSet<SymbolId>),
}

impl Chosen {
    /// Whether only functions' locals are chosen: no example, doc or other file reaches them.
    pub(crate) fn only_locals(&self) -> bool {
        matches!(self, Chosen::Ids(ids) if ids.iter().all(SymbolId::is_local))
    }

    /// Whether a site of this resolution is renamed.
    pub(crate) fn renames(&self, resolution: Option<&Resolution>, opts: &RenameOptions) -> bool {
        match resolution {
            Some(Resolution::Symbol(id)) => match self {
                Chosen::All => true,
                Chosen::Ids(ids) => ids.contains(id),
            },
            Some(Resolution::Unresolved(_)) => opts.include_unresolved,
            Some(Resolution::Outside(_)) | None => false,
        }
    }
}

/// One walked file's outcome.
pub(crate) enum Scanned {
    /// Not a language being renamed.
    Skipped,
    /// Walked; OLD's bytes are not in it.
    Walked,
    /// Could not be read or decoded.
    Unreadable(String),
    /// Parsed and queried.
    Parsed(Box<FileScan>),
}

#[cfg(test)]
mod tests {
    use super::{EcmaMember, ItemSpace, ItemTell, RustSymbol, SymbolId};

    fn python(module: &str, qual: &str) -> SymbolId {
        SymbolId::Python {
            module: module.into(),
            qual: qual.into(),
        }
    }

    #[test]
    fn ids_say_what_they_name_and_display_as_text() {
        let cases = [
            (python("a.py", "total"), "a.py::total", false, false, None),
            (
                python("a.py", "Cart.total"),
                "a.py::Cart.total",
                true,
                false,
                None,
            ),
            (
                python("a.py", "Cart.run::n"),
                "a.py::Cart.run::n",
                false,
                true,
                Some("a.py"),
            ),
            // A lambda's local: its file is not told (as before the ids had a shape).
            (
                python("a.py", "f.<lambda@30>::x"),
                "a.py::f.<lambda@30>::x",
                false,
                true,
                None,
            ),
            (
                SymbolId::Ecma {
                    file: "a.ts".into(),
                    offset: 12,
                    member: None,
                },
                "a.ts@12",
                false,
                true,
                None,
            ),
            (
                SymbolId::Ecma {
                    file: "a.ts".into(),
                    offset: 0,
                    member: Some(EcmaMember::Private("n".into())),
                },
                "a.ts@0.#n",
                true,
                false,
                None,
            ),
            (
                SymbolId::Rust(RustSymbol::Item {
                    name: "frob".into(),
                    tell: ItemTell::Space(ItemSpace::Value),
                }),
                "rust:item:frob#value",
                false,
                false,
                None,
            ),
            (
                SymbolId::Rust(RustSymbol::Local {
                    path: "a.rs".into(),
                    offset: 4,
                }),
                "rust:local@a.rs@4",
                false,
                true,
                Some("a.rs"),
            ),
            (
                SymbolId::Rust(RustSymbol::Field {
                    holder: "P".into(),
                    name: "x".into(),
                }),
                "rust:P.x",
                true,
                false,
                None,
            ),
        ];
        for (id, text, member, local, file) in cases {
            assert_eq!(id.to_string(), text);
            assert_eq!(
                (id.is_member(), id.is_local(), id.local_file()),
                (member, local, file),
                "{text}"
            );
        }
    }
}

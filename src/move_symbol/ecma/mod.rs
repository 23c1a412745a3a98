//! A JavaScript/TypeScript symbol's move planned: its top-level statement cut from the old
//! module (bytes kept, with the comments directly above it and its decorators), the imports it
//! needs written into the new one, and every import and re-export the resolver decided is of
//! it pointed at the new module.
//!
//! The sites are the rename's ([`crate::rename::ecma`]): `import { f [as g] } from './a'` is
//! respelled (or split when it imports more), `export { f } from './a'` the same, `ns.f`
//! through `import * as ns from './a'` becomes `f` imported from the new module, and a module
//! that re-exports everything of the old one (`export * from './a'`) gets `export { f } from
//! './b'` so that it still answers for it; an import that reaches it through such a module is
//! left. A default export, a CommonJS module, a module named by a string (`require`,
//! `import()`), a name clash or an import cycle stop the move.

use super::edits::Edits;
use crate::rename::ecma::EcmaProject;
use crate::rename::model::{FileScan, SymbolId};
use crate::report::{LeftSite, LeftWhy, MoveRefusal, Unmovable};
use lancet_core::{line_of, line_starts};
use std::collections::BTreeMap;
use syntax::{DeclKind, Module};

mod cycles;
mod dependencies;
mod naming;
mod sites;
mod specifiers;
mod syntax;

pub(super) use syntax::is_typescript;

/// What to move where, and what the tree holds of its name.
pub(super) struct Request<'a> {
    /// The symbol's name.
    pub(super) name: &'a str,
    /// The old module's path and text.
    pub(super) from: (&'a str, &'a str),
    /// The new module's path.
    pub(super) to: &'a str,
    /// The new module's text (empty when it does not exist).
    pub(super) to_text: &'a str,
    /// Whether the new module exists.
    pub(super) to_exists: bool,
    /// The files holding the name, scanned and resolved.
    pub(super) scans: &'a [FileScan],
    /// The symbol.
    pub(super) primary: &'a SymbolId,
    /// Keep `export { f } from './b'` in the old module.
    pub(super) keep_reexport: bool,
    /// The walked files.
    pub(super) files: &'a [String],
    /// Reads a file of the tree.
    pub(super) read: &'a dyn Fn(&str) -> Option<String>,
}

/// The moved statement, read.
pub(super) struct Moved {
    /// The declaration.
    decl: syntax::Decl,
    /// The bytes that move: the comments above, the statement, the rest of its last line.
    block: (usize, usize),
    /// The project's tsconfig sets `verbatimModuleSyntax`: a type is imported with `import
    /// type` (else a plain import, as TypeScript's own Move to file writes it).
    type_imports: bool,
}

impl Moved {
    /// Whether the symbol is a type alone (an interface or type alias).
    fn is_type(&self) -> bool {
        self.decl.kind.is_type()
    }
}

/// Plans the move: `Err` for what stops it.
pub(super) fn plan(req: &Request, project: &EcmaProject) -> Result<super::Planned, MoveRefusal> {
    let (a_path, a_text) = req.from;
    let a = syntax::read(a_path, a_text);
    let starts = line_starts(a_text);
    let moved = definition(req, &a, &starts)?;
    let b = if req.to_exists {
        let b = syntax::read(req.to, req.to_text);
        if b.broken {
            return Err(destination(req, "does not parse as JavaScript/TypeScript"));
        }
        if b.commonjs {
            return Err(destination(
                req,
                "is a CommonJS module (`require`, `module.exports`): lancet moves between ES modules",
            ));
        }
        b
    } else {
        Module::default()
    };
    let mut planned = super::Planned {
        edits: BTreeMap::new(),
        created: None,
        sites: Vec::new(),
        imports_added: Vec::new(),
        imports_removed: Vec::new(),
        unresolved: Vec::new(),
        lines: [
            line_of(&starts, moved.block.0),
            line_of(&starts, moved.decl.span.1.saturating_sub(1)),
        ],
    };
    let deps = dependencies::needs(req, project, &a, &b, &moved)?;
    let work = sites::collect(req, project, &b, &moved, &mut planned)?;
    let uses_left = dependencies::uses_left(req, &a, &moved);
    let value_left = uses_left.iter().any(|(_, value)| *value);
    cycles::refuse(req, project, (&a, &b), &deps, &work, value_left, &moved)?;
    dependencies::old_module(req, project, &a, &moved, &deps, &uses_left, &mut planned);
    // Exported there when anything imports it.
    let imported = !uses_left.is_empty() || req.keep_reexport || !work.new_importers.is_empty();
    dependencies::new_module(req, project, &b, &moved, &deps, imported, &mut planned);
    planned.edits.retain(|_, e: &mut Edits| !e.is_empty());
    Ok(planned)
}

/// A destination refused, with why.
fn destination(req: &Request, why: &str) -> MoveRefusal {
    MoveRefusal::Destination {
        to: req.to.to_string(),
        problem: crate::report::DestinationProblem::Path(why.to_string()),
    }
}

/// The one top-level statement declaring the symbol, and the bytes that move with it.
fn definition(req: &Request, a: &Module, starts: &[usize]) -> Result<Moved, MoveRefusal> {
    let (a_path, text) = req.from;
    let SymbolId::Ecma { offset, .. } = req.primary else {
        return Err(not_movable(req, a_path.to_string(), Unmovable::NotGlobal));
    };
    let offset = *offset as usize;
    let place = |at: usize| format!("{a_path}:{}", line_of(starts, at));
    if a.broken {
        return Err(not_movable(
            req,
            a_path.to_string(),
            Unmovable::NotDefinition("a module that does not parse".into()),
        ));
    }
    if a.commonjs {
        return Err(not_movable(req, place(offset), Unmovable::CommonJs));
    }
    let Some(decl) = a
        .decls
        .iter()
        .find(|d| d.span.0 <= offset && offset < d.span.1 && d.names.iter().any(|n| n == req.name))
    else {
        return Err(not_movable(req, place(offset), Unmovable::NotGlobal));
    };
    let here = place(decl.span.0);
    match decl.kind {
        DeclKind::Default => return Err(not_movable(req, here, Unmovable::DefaultExport)),
        DeclKind::Namespace => {
            return Err(not_movable(
                req,
                here,
                Unmovable::NotDefinition("a namespace or `import =` declaration".into()),
            ));
        }
        DeclKind::Variables => return Err(not_movable(req, here, Unmovable::Shared)),
        _ => {}
    }
    let binding: Vec<&syntax::Decl> = a
        .decls
        .iter()
        .filter(|d| d.names.iter().any(|n| n == req.name))
        .collect();
    if binding.len() > 1 {
        return Err(not_movable(
            req,
            here,
            Unmovable::Redefined {
                lines: binding.iter().map(|d| line_of(starts, d.span.0)).collect(),
            },
        ));
    }
    let (start, end) = decl.span;
    // A binding assigned on the other side of the cut would be an import there.
    let inside = |at: usize| start <= at && at < end;
    let assigned = a.bindings.iter().find(|(_, b)| {
        let moves = inside(b.at);
        b.refs.iter().any(|r| r.write && inside(r.at) != moves)
    });
    if let Some((n, _)) = assigned {
        return Err(not_movable(req, here, Unmovable::Assigns(n.clone())));
    }
    let line_start = super::edits::line_start(text, start);
    let line_end = super::edits::line_end(text, end.saturating_sub(1).max(start));
    let after = text[end..line_end].trim();
    let alone_after = after.is_empty() || after.starts_with("//") || after == ";";
    if !text[line_start..start].trim().is_empty() || !alone_after {
        return Err(not_movable(req, here, Unmovable::Shared));
    }
    Ok(Moved {
        decl: decl.clone(),
        block: (leading_comments(a, text, line_start), line_end),
        type_imports: verbatim(req),
    })
}

/// Whether the tsconfig.json nearest the old module sets `verbatimModuleSyntax`.
fn verbatim(req: &Request) -> bool {
    let (mut dir, _) = req.from.0.rsplit_once('/').unwrap_or(("", ""));
    loop {
        let config = if dir.is_empty() {
            "tsconfig.json".to_string()
        } else {
            format!("{dir}/tsconfig.json")
        };
        if let Some(text) = (req.read)(&config) {
            let flat: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            return flat.contains("\"verbatimModuleSyntax\":true");
        }
        if dir.is_empty() {
            return false;
        }
        dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
    }
}

/// Where the comments directly above a line start (no blank line between), else the line.
fn leading_comments(a: &Module, text: &str, mut start: usize) -> usize {
    loop {
        let Some(comment) = a.comments.iter().rev().find(|c| c.1 <= start) else {
            return start;
        };
        let between = &text[comment.1..start];
        let line = super::edits::line_start(text, comment.0);
        if between.trim().is_empty()
            && between.matches('\n').count() <= 1
            && text[line..comment.0].trim().is_empty()
        {
            start = line;
        } else {
            return start;
        }
    }
}

fn not_movable(req: &Request, place: String, why: Unmovable) -> MoveRefusal {
    MoveRefusal::NotMovable {
        symbol: req.name.to_string(),
        place,
        why,
    }
}

/// A site left undecided, for the refusal.
fn left_site(path: &str, text: &str, at: usize, why: LeftWhy) -> LeftSite {
    let starts = line_starts(text);
    let line = line_of(&starts, at);
    LeftSite {
        path: path.to_string(),
        line,
        column: at - starts[line - 1] + 1,
        text: crate::rename::model::line_text(text, &starts, line),
        why,
    }
}

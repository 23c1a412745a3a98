//! The tools' arguments, as a model sends them (their doc comments are the schema the model
//! reads).

use lancet::Format;
use schemars::JsonSchema;
use serde::Deserialize;

/// `read_file` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// File path, relative to the project root (absolute paths inside the root also work).
    pub path: String,
    /// First line to return, 1-based (default 1).
    pub offset: Option<usize>,
    /// How many lines to return (default: all).
    pub limit: Option<usize>,
    /// Prefix each line with its anchor `LINE:HASH|` (for edit_lines) instead of `N<TAB>`.
    pub anchors: Option<bool>,
}

/// `edit_lines` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditLinesArgs {
    /// File path, relative to the project root.
    pub path: String,
    /// The edits, each on lines of the file as read_file (anchors: true) showed it.
    pub edits: Vec<LineEditArg>,
    /// Run the project's test command (set when the server was started) after writing; if it
    /// fails the edit is rolled back.
    pub test: Option<bool>,
}

/// One line-anchored edit.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineEditArg {
    /// `replace`, `insert_after`, `insert_before` or `delete`.
    pub op: String,
    /// The anchor `LINE:HASH` of the first line (for an insert, the line it goes after or before).
    pub start: String,
    /// The anchor of the last line of a replace or delete range (default: `start`).
    pub end: Option<String>,
    /// The new lines, without line endings (none for delete).
    #[serde(default)]
    pub lines: Vec<String>,
}

/// `edit` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// File path, relative to the project root.
    pub path: String,
    /// The exact text to replace, copied from read_file without the line numbers. It must occur
    /// exactly once unless replace_all or expected_replacements is set; include neighbouring
    /// lines to make it unique. Empty creates a new file (refused if the file has content).
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence of old_string.
    pub replace_all: Option<bool>,
    /// Replace exactly this many occurrences (refused if the count differs).
    pub expected_replacements: Option<usize>,
    /// The sha256 read_file returned: the edit is refused if the file changed since.
    pub expected_sha256: Option<String>,
}

/// The formats `apply_patch` may be told to read, strictest first (the order auto-detection
/// tries them), named as lancet-core names them: the one list the parameter's description and
/// the refusal of an unknown name are both built from.
pub(crate) fn forced_formats() -> String {
    let names: Vec<&str> = Format::STRICTEST_FIRST.iter().map(|f| f.name()).collect();
    match names.split_last() {
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// `apply_patch` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchArgs {
    /// The edit: a `*** Begin Patch` … `*** End Patch` patch, SEARCH/REPLACE blocks with file
    /// names, a unified diff, JSON edits, or a file name line plus a fenced whole file. All of it
    /// applies or none of it does. Send this or `operations`.
    pub text: Option<String>,
    /// OpenAI `apply_patch` operations, applied as one transaction (instead of `text`).
    pub operations: Option<Vec<PatchOperation>>,
    /// Force a format (default: detected); the names are [`forced_formats`].
    #[schemars(description = format!("Force a format: {} (default: detected).", forced_formats()))]
    pub format: Option<String>,
    /// Run the project's test command (set when the server was started) after writing; if it
    /// fails the whole edit is rolled back and its output is returned.
    pub test: Option<bool>,
}

/// One OpenAI `apply_patch` operation: what the Responses API's hosted tool emits.
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema)]
pub struct PatchOperation {
    /// `create_file`, `update_file` or `delete_file`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The file, relative to the project root.
    pub path: String,
    /// The V4A body: `@@` anchors and ` `/`-`/`+` lines for update_file, `+` lines for
    /// create_file (a last bare `+` gives the file a final newline); none for delete_file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// update_file only: write the result here and remove `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_to: Option<String>,
}

/// `write_file` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// File path, relative to the project root.
    pub path: String,
    /// The complete new content.
    pub content: String,
    /// For an existing file: the sha256 read_file returned (or read it first in this session).
    pub expected_sha256: Option<String>,
}

/// `undo` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoArgs {
    /// A checkpoint id (or prefix) from checkpoints; default: the newest batch not yet undone.
    pub id: Option<String>,
    /// Restore files even if they changed after the batch.
    pub force: Option<bool>,
    /// Restore the files that did not change after the batch and leave the others; without
    /// it, one changed file refuses the whole undo.
    pub partial: Option<bool>,
}

/// `rename_symbol` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameSymbolArgs {
    /// The identifier to rename, exactly as written in code, or qualified
    /// (`pkg.module.Class.method`, `crate::module::Type::method`) to name one symbol. May be
    /// empty when `at` is given.
    #[serde(default)]
    pub old: String,
    /// The new name: an identifier, not a keyword, not already used in the files touched.
    pub new: String,
    /// Files or directories to search, relative to the project root (default: the whole
    /// project; files ignored by .gitignore are skipped).
    pub paths: Option<Vec<String>>,
    /// The symbol by position, "PATH:LINE:COL" (1-based line and column as read_file numbers
    /// lines, on any character of the identifier): only the uses that resolve to that
    /// definition are renamed.
    pub at: Option<String>,
    /// Also rename the uses lancet cannot resolve without types (`x.close()` on a value of
    /// unknown type); they are listed otherwise. Uses that resolve outside the project
    /// (`os.close`) are never renamed.
    pub include_unresolved: Option<bool>,
    /// Rename only the uses lancet resolved and leave the undecided ones as they are (listed).
    /// Without it or include_unresolved, a rename with undecided uses writes nothing.
    pub leave_unresolved: Option<bool>,
    /// Rename every symbol `old` names when it names several unrelated ones (two functions of
    /// one name in two modules, a function and a local); without it such a rename writes
    /// nothing and names each definition (pick one with `at`).
    pub all_definitions: Option<bool>,
    /// Also rename whole-word mentions inside string literals (listed otherwise).
    pub include_strings: Option<bool>,
    /// Also rename whole-word mentions inside comments (listed otherwise).
    pub include_comments: Option<bool>,
    /// Ask the project's language server (basedpyright for Python, typescript-language-server
    /// for JavaScript/TypeScript, rust-analyzer for Rust) what the symbol at `at` is used as;
    /// needs `at`, and the user's permission (the server started with --allow-lsp). Its answer
    /// is applied as one transaction, like any rename.
    pub lsp: Option<bool>,
    /// Run the project's test command (set when the server was started) after renaming; if it
    /// fails the rename is rolled back and its output is returned.
    pub test: Option<bool>,
}

/// `checkpoints` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointsArgs {
    /// At most this many batches, the newest (default 20).
    pub limit: Option<usize>,
    /// Only the batches that touched this path (relative to the project root).
    pub path: Option<String>,
}

/// `change_signature` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeSignatureArgs {
    /// The function: its name exactly as written in code, or qualified
    /// (`pkg.module.Class.method`) to name one; a class names its `__init__`. May be empty when
    /// `at` is given.
    #[serde(default)]
    pub function: String,
    /// The function by position, "PATH:LINE:COL" (1-based line and column as read_file
    /// numbers lines) of its definition or of a use of it.
    pub at: Option<String>,
    /// Files or directories to search for calls, relative to the project root (default: the
    /// whole project; files ignored by .gitignore are skipped). Calls elsewhere are not updated.
    pub paths: Option<Vec<String>>,
    /// The changes, applied in this order, each to the parameters the previous one left.
    pub changes: Vec<ChangeArg>,
    /// Also update the calls lancet cannot decide are of this function (a method called on a
    /// value of unknown type), as calls of it; they are listed otherwise.
    pub include_unresolved: Option<bool>,
    /// Write the rest and leave as they are, listed, the sites that cannot be updated safely
    /// (the function passed as a value, `functools.partial`, `*args` forwarding) and the
    /// undecided calls (unless include_unresolved). Without it such sites write nothing.
    pub leave_unresolved: Option<bool>,
    /// Run the project's test command (set when the server was started) after the change; if
    /// it fails the change is rolled back and its output is returned.
    pub test: Option<bool>,
}

/// `move_symbol` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveSymbolArgs {
    /// The symbol: a module-level function, class, constant or type alias, by its name exactly
    /// as written in code, or qualified (`pkg.module.name`) to name one. May be empty when `at`
    /// is given.
    #[serde(default)]
    pub symbol: String,
    /// The symbol by position, "PATH:LINE:COL" (1-based line and column as read_file numbers
    /// lines) of its definition or of a use of it.
    pub at: Option<String>,
    /// The module it moves to, relative to the project root: an existing file, or a new one in
    /// a package directory (one with __init__.py), the root, a source root or the old module's
    /// own directory.
    pub to: String,
    /// Leave `from <new> import <symbol>` in the old module, for its users outside the project
    /// (the project's own imports are updated either way).
    pub keep_reexport: Option<bool>,
    /// Move it and leave as they are, listed, the sites lancet cannot decide or update (a
    /// string naming it, an attribute of a value of unknown type, a doctest). Without it such
    /// sites write nothing.
    pub leave_unresolved: Option<bool>,
    /// Run the project's test command (set when the server was started) after the move; if it
    /// fails the move is rolled back and its output is returned.
    pub test: Option<bool>,
}

/// One change of a function's parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum ChangeArg {
    /// Add a parameter. Give it a `default`, or the `value` existing calls pass, or both.
    Add {
        /// Its name.
        name: String,
        /// Its default, as code of the function's language (`None`, `0`, `"utf-8"`): the
        /// definition gets name=default. Required for TypeScript (it gives the type).
        default: Option<String>,
        /// Its place: 0-based among the parameters as written, `self` counted (default: after
        /// the ordinary parameters, before `*args`, keyword-only ones and `**kwargs`).
        position: Option<usize>,
        /// What every existing call passes for it, as code of the function's language.
        value: Option<String>,
    },
    /// Remove a parameter and the argument every call passes for it (refused while the
    /// function's body still uses it).
    Remove {
        /// Its name.
        name: String,
    },
    /// Rename a parameter: in the definition, its body and the calls' keyword arguments.
    Rename {
        /// Its name.
        name: String,
        /// Its new name.
        new_name: String,
    },
    /// Put parameters in a new order: the ones named take, in this order, the places they held.
    Reorder {
        /// The parameters' names in their new order.
        order: Vec<String>,
    },
}

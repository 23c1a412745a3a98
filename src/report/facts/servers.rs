//! What a rename's language servers did, as data: the sites each decided, why one could not
//! run or answer, why no server runs for a language, and why one left a site undecided. Their
//! words are `render/servers.rs`'s.

use schemars::JsonSchema;
use serde::Serialize;

/// What one language server decided of a rename's undecided sites: lancet asked it, per site,
/// where the identifier there is defined, and renamed the site when that is the symbol's
/// definition (a model or person can see which sites rest on the server's word).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ServerDecisions {
    /// The server, as found on PATH (`basedpyright-langserver`).
    pub server: String,
    /// Its version as it reported it (`None`: it did not say).
    pub version: Option<String>,
    /// The sites it decided.
    pub sites: Vec<DecidedSite>,
    /// Sites it was asked about and could not decide (still listed as unresolved).
    pub undecided: usize,
    // The reason as the sandbox gave it; the JSON says it in full.
    /// Why it ran outside lancet's sandbox, when it did (the kernel has none; the CLI only).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::report::render::unconfined_in_json"
    )]
    pub unconfined: Option<String>,
}

/// A site a language server decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DecidedSite {
    /// The file, relative to the root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based byte column.
    pub column: usize,
    /// Whether it is the symbol (renamed) or another one (left).
    pub renamed: bool,
    /// Where the server says it is defined: `path:line` in the tree, or a path outside it.
    pub definition: String,
}

/// What went wrong with a language server, as facts (`server`: the name it was found by).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerTrouble {
    /// It could not be started.
    CannotStart {
        /// The program.
        program: String,
        /// The system's error.
        error: String,
    },
    /// It stopped reading what lancet sent (the system's error).
    StoppedReading(String),
    /// It answered a request with an error.
    Refused {
        /// The server.
        server: String,
        /// The request.
        method: String,
        /// Its error message.
        message: String,
        /// Its error says the project is still loading (LSP's ContentModified).
        loading: bool,
    },
    /// It did not answer in time.
    Silent {
        /// The server.
        server: String,
        /// What lancet waited for.
        during: String,
        /// The time allowed, in seconds.
        seconds: u64,
    },
    /// It exited while lancet waited.
    Exited {
        /// The server.
        server: String,
        /// What lancet waited for.
        during: String,
    },
    /// It sent a message lancet cannot read.
    Unreadable {
        /// The server.
        server: String,
        /// What is wrong with the message.
        message: BadMessage,
    },
    /// The file the rename starts in cannot be named under the root (why).
    StartUnnamed(String),
    /// The file the rename starts in cannot be read.
    StartUnreadable(String),
    /// Its rename creates, renames or deletes a file (`kind`), which is no identifier rename.
    ChangesFiles {
        /// What it does to the file (`create`, `rename`, `delete`).
        kind: String,
        /// The file.
        uri: String,
    },
    /// Its rename edits a URI that is not a file.
    EditsNonFile(String),
    /// Its rename edits a file outside the root.
    EditsOutside(String),
    /// Its rename edits a path lancet cannot name under the root.
    EditsUnnamed {
        /// The path.
        path: String,
        /// Why.
        error: String,
    },
    /// A file its rename edits cannot be read.
    EditedUnreadable(String),
    /// A file its rename edits is not UTF-8.
    EditedNotUtf8(String),
    /// One of its edits lies outside the file.
    EditOutsideFile(String),
    /// One of its edits is not part of renaming OLD to NEW.
    NotARename {
        /// The file.
        path: String,
        /// The text it puts in.
        put: String,
        /// The text it replaces.
        replaced: String,
        /// OLD.
        old: String,
        /// NEW.
        new: String,
    },
}

/// Why no language server can run for a language here, as facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerMissing {
    /// None of these programs is on `PATH` outside the project.
    NotOnPath(Vec<String>),
    /// The server (by name) runs a Python interpreter, and none is on `PATH` outside the
    /// project.
    NoPython(String),
    /// The server has no TypeScript installed beside it.
    NoTypeScript {
        /// The server's name.
        server: String,
        /// Its program.
        program: String,
    },
    /// The server (by name) runs `go`, and none is on `PATH` outside the project.
    NoGo(String),
    /// rustup cannot be run (the system's error).
    RustupUnrunnable(String),
    /// rustup did not answer within this many seconds.
    RustupSilent(u64),
    /// rustup has no default toolchain.
    RustupNoToolchain,
    /// The server (by name) on `PATH` is rustup's proxy, and rustup has no default toolchain.
    ProxyWithoutToolchain(String),
    /// The server on `PATH` is rustup's proxy, and this toolchain has no rust-analyzer.
    NoRustAnalyzer(String),
    /// Its real path cannot be found (the system's error).
    Unresolvable(String),
    /// It resolves to a program under the project.
    UnderProject,
}

/// What is wrong with a message a language server sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadMessage {
    /// No `Content-Length` header.
    Unframed,
    /// Over lancet's cap.
    TooLarge {
        /// Its length.
        bytes: usize,
        /// The cap, in MiB.
        cap_mib: usize,
    },
    /// Not JSON (the parser's error).
    NotJson(String),
}

/// What went wrong with the language server a rename asked (`--lsp`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerRefusal {
    /// The language server must run sandboxed where no sandbox can be built.
    NoSandbox {
        /// Why no sandbox can be built.
        why: String,
    },
    /// No language server for the file is installed outside the project.
    NoServer {
        /// The file.
        path: String,
        /// Why the server for its language cannot run (`None`: lancet knows none for it).
        missing: Option<ServerMissing>,
    },
    /// The language server failed (to start, to answer in time, to answer sense).
    Failed {
        /// What went wrong.
        trouble: ServerTrouble,
    },
    /// The language server says the identifier cannot be renamed.
    Refuses {
        /// The server.
        server: String,
        /// The identifier.
        name: String,
        /// Its place as given.
        place: String,
    },
}

/// A language server that would decide a rename's undecided sites, and why it did not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndecidedBy {
    /// The server (`basedpyright-langserver or pyright-langserver`).
    pub server: String,
    /// Why it did not decide them.
    pub why: NotDecided,
}

/// Why a language server did not decide a rename's undecided sites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotDecided {
    /// Asking servers is off (`--no-lsp`, `[rename] lsp = false`, MCP without `--allow-lsp`).
    Off,
    /// It cannot run here: why (`None`: lancet knows no server for the language).
    Missing(Option<ServerMissing>),
    /// Asking it failed: no server for the file, no sandbox to run it in, or the server
    /// itself.
    CannotAsk(ServerRefusal),
    /// It was asked and could not tell for these sites.
    CouldNotTell,
    /// It was not asked: the site at this `path:line`, of another language, stays undecided
    /// and stops the rename already.
    NotAsked(String),
    /// It could not tell for the site at `at` (`path:line`): one site left undecided stops a
    /// rename, so the `not_asked` sites after it were not asked.
    Stopped {
        /// The first site it could not decide.
        at: String,
        /// The sites not asked after it.
        not_asked: usize,
    },
    /// Its rename does not reach these sites (what they are: rust-analyzer and a doctest or a
    /// `macro_rules!` body), so lancet's own resolver must decide them, and could not.
    NotItsSites(String),
    /// Its rename leaves these sites, which lancet's own resolver reads as the symbol: the two
    /// disagree, and lancet does not pick one.
    LeftThem,
}

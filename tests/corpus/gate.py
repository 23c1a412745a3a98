#!/usr/bin/env python3
"""The gate's false-positive rate on real code: `lancet check` over three corpora, each against
the language's own verdict (every other language the gate judges: gate_languages.py, which
shares this runner's known list and report).

  python  the CPython standard library of this machine's python3, against `compile()` of each
          file by that python3 (lancet's target Python set to the same version).
  ts      TypeScript / JavaScript / JSX / TSX: the `typescript` npm package's `lib/*.d.ts` and
          `lib/*.js` (`lib/typescript.js` is ~9 MB: the big-file case) and every
          .js/.jsx/.ts/.tsx/.mjs/.cjs/.mts/.cts file of a few popular packages that ship sources
          (NPM_PACKAGES, pinned), against the TypeScript compiler's parser (`ts_parse.js`: the
          `parseDiagnostics` of `ts.createSourceFile`, plus for JavaScript files the program's
          syntactic check of TypeScript-only syntax; the compiler is the pinned package).
          The packages are fetched with `npm pack` into a cache outside the repository
          (`$XDG_CACHE_HOME/lancet-corpus/gate-npm`, else `~/.cache/lancet-corpus/gate-npm`).
          lancet runs with its default settings: a file over `gate.max_file_bytes` (5 MB:
          `typescript.js`, `tsc.js`) is judged by a precise parser only, else reported unchecked.
  rust    the `src/**/*.rs` files of the registry crates of this repository's Cargo.lock, as
          unpacked by cargo under `$CARGO_HOME/registry/src/` (a deterministic sample, every
          k-th path in sorted order, when there are more than --rust-max-files). Every crate
          compiles, but not every file under `src/` is a compiled module (test data, `cfg(test)`
          modules, expected-output files), so the reference is rustc's own parser:
          `RUSTC_BOOTSTRAP=1 rustc --edition E -Zparse-crate-root-only FILE` (E the crate's
          edition; out-of-line modules are not loaded), run on the files lancet flags (or, with
          --rust-reference all, on every file: ~20 ms each, so false negatives are measured too).

Each corpus is laid in a temporary root (hard links, or copies) and checked with
`lancet check -C ROOT --json`; the files lancet reports unchecked are counted and listed.

A file the reference accepts and lancet flags is a false positive: each must match an entry of
`gate_known.toml` (a tree-sitter grammar defect, with the construct and the planned fix), or the
run fails (exit 1). A file the reference rejects and lancet accepts is a false negative:
reported, not failed (a precise parser checks the grammar, not the compiler's rules).

Usage: python3 tests/corpus/gate.py target/release/lancet [--corpus python,ts,rust] [--limit N]
         [--cache DIR] [--rust-max-files N] [--rust-reference flagged|all] [--known FILE]
"""
import fnmatch
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
KNOWN = HERE / "gate_known.toml"  # --known FILE instead
CORPORA = ("python", "ts", "rust")
# The corpora of tests/corpus/gate_languages.py (every other language the gate judges), which
# shares this runner's known list and report.
LANGUAGE_CORPORA = ("go", "java", "c", "cpp", "c-sharp", "ruby", "bash", "json", "toml", "yaml",
                    "html", "css")

# The `ts` corpus: (npm package, pinned version, globs of the files taken, relative to the
# unpacked package root; fnmatch, so `*` crosses `/`). The first is the reference compiler too.
NPM_PACKAGES = [
    ("typescript", "5.6.3", ["lib/*.d.ts", "lib/*.js"]),
    ("@tanstack/react-query", "5.59.0", ["*"]),           # src/*.tsx, build/**/*.{js,cjs,d.ts,d.cts}
    ("@docusaurus/theme-classic", "3.5.2", ["*"]),        # src/theme/**/*.tsx, lib/**/*.js
    ("create-vite", "5.5.5", ["*"]),                      # template-*/src/*.{jsx,tsx}
    ("@storybook/react", "8.3.5", ["*"]),                 # template/cli/js/*.jsx
    ("react-dom", "18.3.1", ["*"]),                       # plain CommonJS, UMD builds
    ("lodash-es", "4.17.21", ["*"]),                      # 640 small ES modules
    ("preact", "10.24.3", ["*"]),                         # .mjs
    ("rxjs", "7.8.1", ["*"]),                             # src/**/*.ts: TypeScript sources
]
TS_EXTENSIONS = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")
# The `rust` corpus: most files checked (a deterministic sample above).
RUST_MAX_FILES = 8000


def log(msg):
    print(msg, flush=True)


def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def copy_tree(files, tmp):
    """Lay (rel, source path) pairs under tmp, keeping the relative paths: hard links where the
    source is on the same file system (nothing here writes to them: lancet check, node and rustc
    only read; 6,000 links and their removal take a third of the time of copies), else copies."""
    made = set()
    link = True
    for rel, src in files:
        dest = os.path.join(tmp, rel)
        parent = os.path.dirname(dest)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        if link:
            try:
                os.link(src, dest)
                continue
            except OSError:
                link = False
        shutil.copyfile(src, dest)


def run_lancet(lancet, tmp, extra=()):
    out = subprocess.run([lancet, "check", "-C", tmp, "--json", *extra], capture_output=True, text=True)
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"lancet check -C {tmp} printed no JSON (exit {out.returncode}):\n{out.stderr}")


def first_errors(report, rels):
    """{path: its first error} for the flagged files among rels."""
    first = {}
    for e in report["errors"]:
        p = e["path"]
        if p in rels and (p not in first or (e["line"], e["column"]) < (first[p]["line"], first[p]["column"])):
            first[p] = e
    return first


def source_line(tmp, rel, line):
    try:
        with open(os.path.join(tmp, rel), encoding="utf-8", errors="replace") as f:
            for i, text in enumerate(f, 1):
                if i == line:
                    text = text.strip()
                    return text if len(text) <= 100 else text[:97] + "..."
    except OSError:
        pass
    return ""


# ---------------------------------------------------------------------------------- known list


def load_known():
    allowed = {"corpus", "grammar", "construct", "example", "paths", "near", "fix", "upstream"}
    with open(KNOWN, "rb") as f:
        data = tomllib.load(f)
    entries = data.get("defect", [])
    for i, d in enumerate(entries):
        unknown = set(d) - allowed
        missing = {"corpus", "construct", "paths", "fix"} - set(d)
        if unknown or missing or d["corpus"] not in CORPORA + LANGUAGE_CORPORA:
            raise SystemExit(f"{KNOWN.name}: defect #{i + 1} ({d.get('construct', '?')}): "
                             f"unknown keys {sorted(unknown)}, missing {sorted(missing)}, corpus {d.get('corpus')!r}")
    return entries


def known_entry(entries, corpus, rel, tmp, line):
    """The entry of the known list that covers a false positive at rel (first error at line):
    its corpus, a glob of `paths`, and `near` (when given: a string or a list of strings) on a
    line within 3 of the error."""
    for d in entries:
        if d["corpus"] != corpus or not any(fnmatch.fnmatchcase(rel, g) for g in d["paths"]):
            continue
        if "near" in d:
            try:
                with open(os.path.join(tmp, rel), encoding="utf-8", errors="replace") as f:
                    lines = f.read().split("\n")
            except OSError:
                continue
            near = [d["near"]] if isinstance(d["near"], str) else d["near"]
            if not any(n in t for n in near for t in lines[max(0, line - 4):line + 3]):
                continue
        return d
    return None


def report(corpus, title, rels, rejected, flagged_first, unchecked, tmp, known, notes=()):
    """Print one corpus's counts and lists; return the number of false positives not listed."""
    flagged = set(flagged_first)
    false_pos = sorted(flagged - set(rejected))
    false_neg = sorted(set(rejected) - flagged)
    listed, unlisted = [], []
    for p in false_pos:
        e = flagged_first[p]
        d = known_entry(known, corpus, p, tmp, e["line"])
        (listed if d else unlisted).append((p, e, d))
    log(f"{title}: {len(rels)} files; reference rejects {len(rejected)}; lancet flags {len(flagged)}; "
        f"unchecked {len(unchecked)}")
    for n in notes:
        log(f"  note: {n}")
    log(f"false positives (reference accepts, lancet flags): {len(false_pos)} "
        f"({len(listed)} known grammar defects, {len(unlisted)} not listed in {KNOWN.name})")
    for p, e, _ in unlisted[:20]:
        log(f"  {p}:{e['line']}:{e['column']}: {e['kind']} ({e['checker']})  | {source_line(tmp, p, e['line'])}")
    if len(unlisted) > 20:
        log(f"  ... {len(unlisted) - 20} more")
    seen = {}
    for p, e, d in listed:
        seen.setdefault(id(d), (d, []))[1].append(p)
    for d, paths in seen.values():
        log(f"  known: {len(paths)} file(s), {d['construct']} (e.g. {paths[0]})")
    for d in known:
        if d["corpus"] == corpus and id(d) not in seen and any(
                fnmatch.fnmatchcase(r, g) for r in rels for g in d["paths"]):
            log(f"  known entry matched no false positive (fixed? remove it): {d['construct']}")
    log(f"false negatives (reference rejects, lancet accepts): {len(false_neg)}")
    shown = len(false_neg) if corpus == "python" else 20  # the stdlib's are all listed, as before
    for p in false_neg[:shown]:
        why = rejected[p] if isinstance(rejected, dict) else ""
        log(f"  {p}" + (f"  ({why})" if why else ""))
    if len(false_neg) > shown:
        log(f"  ... {len(false_neg) - shown} more")
    for u in unchecked[:20]:
        log(f"  unchecked: {u}")
    return len(unlisted)


def log_times(times, start):
    """The corpus's time line (total: from its start to now, the temporary tree removed)."""
    times["total"] = time.monotonic() - start
    log("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
    log("")


# -------------------------------------------------------------------------------------- python


def reference_rejects(files):
    """The files of `files` (absolute paths) that this python3's compile() rejects."""
    script = (
        "import sys\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        with open(name, 'rb') as f: compile(f.read(), name, 'exec', dont_inherit=True)\n"
        "    except (SyntaxError, ValueError):\n"
        "        print(name)\n"
    )
    rejected = set()
    for i in range(0, len(files), 500):
        out = subprocess.run([sys.executable, "-I", "-S", "-c", script, *files[i:i + 500]],
                             capture_output=True, text=True, check=True)
        rejected.update(line for line in out.stdout.splitlines() if line)
    return rejected


def corpus_python(lancet, limit, known):
    start = time.monotonic()
    stdlib = sysconfig.get_paths()["stdlib"]
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    with tempfile.TemporaryDirectory() as tmp:
        rels = []
        for dirpath, dirnames, filenames in os.walk(stdlib):
            dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__"))
            for name in sorted(filenames):
                if name.endswith(".py"):
                    rels.append(os.path.relpath(os.path.join(dirpath, name), stdlib))
        rels = rels[:limit] if limit else rels
        for rel in rels:
            dest = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(os.path.join(stdlib, rel), dest)
        with open(os.path.join(tmp, "lancet.toml"), "w") as f:
            f.write(f'[gate]\npython = "{version}"\nmax_file_bytes = 100_000_000\n')
        # max_file_bytes is a guarded key: it counts once the person trusts the settings.
        subprocess.run([lancet, "trust", "-C", tmp], check=True, stdout=subprocess.DEVNULL)
        t0 = time.monotonic()
        rejected = {os.path.relpath(p, tmp) for p in reference_rejects([os.path.join(tmp, r) for r in rels])}
        t1 = time.monotonic()
        result = run_lancet(lancet, tmp)
        t2 = time.monotonic()
        first = first_errors(result, set(rels))
        unchecked = [u for u in result["unchecked"] if u.endswith(".py") or ".py (" in u]
        failed = report("python", f"CPython {version} stdlib", rels, rejected, first, unchecked, tmp, known)
    log_times({"reference": t1 - t0, "lancet": t2 - t1}, start)
    return failed


# ------------------------------------------------------------------------------------------ ts


def cache_dir():
    if arg("--cache"):
        return pathlib.Path(arg("--cache")).resolve() / "gate-npm"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return pathlib.Path(base) / "lancet-corpus" / "gate-npm"


def tgz_name(name, version):
    return f"{name.lstrip('@').replace('/', '-')}-{version}"


def npm_packages():
    """Unpack every pinned package (fetched with `npm pack` when not cached); {name: root}."""
    cache = cache_dir()
    dl, src = cache / "dl", cache / "src"
    dl.mkdir(parents=True, exist_ok=True)
    src.mkdir(parents=True, exist_ok=True)
    missing = [f"{n}@{v}" for n, v, _ in NPM_PACKAGES if not (dl / f"{tgz_name(n, v)}.tgz").exists()]
    if missing:
        log(f"  npm pack {' '.join(missing)} -> {dl}")
        cmd = ["npm", "pack", "--silent", "--pack-destination", str(dl), *missing]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"download failed: {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    roots = {}
    for n, v, _ in NPM_PACKAGES:
        stem = tgz_name(n, v)
        archive, dest = dl / f"{stem}.tgz", src / stem
        if not archive.exists():
            raise SystemExit(f"npm pack of {n}@{v} produced no {archive}")
        if not (dest / ".complete").exists():
            if dest.exists():
                shutil.rmtree(dest)
            tmp = pathlib.Path(tempfile.mkdtemp(prefix=".unpack-", dir=src))
            with tarfile.open(archive) as tf:
                tf.extractall(tmp, filter="data")
            tops = list(tmp.iterdir())
            (tops[0] if len(tops) == 1 and tops[0].is_dir() else tmp).rename(dest)
            shutil.rmtree(tmp, ignore_errors=True)
            (dest / ".complete").write_text("")
        roots[n] = dest
    return roots


def corpus_ts(lancet, limit, known):
    start = time.monotonic()
    roots = npm_packages()
    t_fetch = time.monotonic() - start
    files = []
    for n, v, globs in NPM_PACKAGES:
        root = roots[n]
        for dirpath, dirnames, filenames in os.walk(root):
            # lancet check skips hidden directories; so does the corpus.
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if not name.endswith(TS_EXTENSIONS):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                if any(fnmatch.fnmatchcase(rel, g) for g in globs):
                    files.append((f"{tgz_name(n, v)}/{rel}", os.path.join(dirpath, name)))
    files.sort()
    files = files[:limit] if limit else files
    rels = [r for r, _ in files]
    with tempfile.TemporaryDirectory() as tmp:
        copy_tree(files, tmp)
        t0 = time.monotonic()
        # The reference runs beside lancet (one process each; two cores).
        ref = subprocess.Popen(["node", str(HERE / "ts_parse.js"), str(roots["typescript"]), tmp],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ref.stdin.write("\n".join(rels) + "\n")
        ref.stdin.close()
        result = run_lancet(lancet, tmp, ["--no-compile-check"])
        t1 = time.monotonic()
        out, err = ref.stdout.read(), ref.stderr.read()
        if ref.wait() != 0:
            raise SystemExit(f"ts_parse.js failed:\n{err}")
        t2 = time.monotonic()
        rejected, version, done = {}, "?", 0
        for line in out.splitlines():
            d = json.loads(line)
            if "done" in d:
                version, done = d["version"], d["done"]
            else:
                rejected[d["path"]] = f"{d['line']}:{d['column']}: {d['message']}"
        if done != len(rels):
            raise SystemExit(f"ts_parse.js parsed {done} of {len(rels)} files")
        rel_set = set(rels)
        first = first_errors(result, rel_set)
        unchecked = [u for u in result["unchecked"] if u.split(" (")[0] in rel_set]
        exts = {}
        for r in rels:
            e = ".d.ts" if r.endswith(".d.ts") else os.path.splitext(r)[1]
            exts[e] = exts.get(e, 0) + 1
        pkgs = ", ".join(f"{n}@{v}" for n, v, _ in NPM_PACKAGES)
        notes = [f"packages: {pkgs}",
                 "files by extension: " + ", ".join(f"{k} {v}" for k, v in sorted(exts.items())),
                 f"reference: TypeScript {version} parser (parseDiagnostics; for JS files the program's "
                 "syntactic diagnostics, which add TypeScript-only syntax)"]
        failed = report("ts", "npm TypeScript/JavaScript", rels, rejected, first, unchecked, tmp, known, notes)
    log_times({"fetch": t_fetch, "lancet": t1 - t0, "reference (beside lancet)": t2 - t0}, start)
    return failed


# ---------------------------------------------------------------------------------------- rust


def registry_crates():
    """(crate dir name, path, edition) of the registry packages of Cargo.lock found unpacked
    with a `src/` directory; the names of those not unpacked; of those without `src/`."""
    with open(REPO / "Cargo.lock", "rb") as f:
        lock = tomllib.load(f)
    cargo_home = pathlib.Path(os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo"))
    registries = sorted((cargo_home / "registry" / "src").glob("*/"))
    found, missing, no_src = [], [], []
    for p in lock.get("package", []):
        if not p.get("source", "").startswith(("registry+", "sparse+")):
            continue
        name = f"{p['name']}-{p['version']}"
        where = next((r / name for r in registries if (r / name).is_dir()), None)
        if where is None:
            missing.append(name)
            continue
        if not (where / "src").is_dir():
            no_src.append(name)
            continue
        edition = "2015"
        try:
            with open(where / "Cargo.toml", "rb") as f:
                edition = str(tomllib.load(f).get("package", {}).get("edition", "2015"))
        except (OSError, tomllib.TOMLDecodeError):
            pass
        found.append((name, where, edition))
    return sorted(set(found)), missing, no_src


def rustc_rejects(tmp, rels, editions):
    """{rel: rustc's first error line} for the files rustc's parser rejects; None when rustc is
    missing or its parse-only mode does not tell `fn f() {}` from `fn f( {}` (then every failure
    would read as a rejection and hide false positives)."""
    if shutil.which("rustc") is None:
        return None
    env = {**os.environ, "RUSTC_BOOTSTRAP": "1"}
    with tempfile.TemporaryDirectory() as probe:
        for name, text, ok in (("good.rs", "fn f() {}\n", 0), ("bad.rs", "fn f( {}\n", 1)):
            with open(os.path.join(probe, name), "w") as f:
                f.write(text)
            out = subprocess.run(["rustc", "--edition", "2021", "-Zparse-crate-root-only", name],
                                 cwd=probe, env=env, capture_output=True, text=True)
            if (out.returncode != 0) != bool(ok):
                return None

    def one(rel):
        out = subprocess.run(["rustc", "--edition", editions[rel.split("/")[0]], "-Zparse-crate-root-only",
                              "--error-format", "short", rel],
                             cwd=tmp, env=env, capture_output=True, text=True)
        if out.returncode == 0:
            return None
        msg = next((l for l in out.stderr.splitlines() if "error" in l), out.stderr.strip()[:200])
        return rel, msg

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(r for r in pool.map(one, rels) if r)


def corpus_rust(lancet, limit, known):
    start = time.monotonic()
    crates, missing, no_src = registry_crates()
    editions = {name: ed for name, _, ed in crates}
    files = []
    for name, where, _ in crates:
        for dirpath, dirnames, filenames in os.walk(where / "src"):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for fname in sorted(filenames):
                if fname.endswith(".rs"):
                    rel = os.path.relpath(os.path.join(dirpath, fname), where).replace(os.sep, "/")
                    files.append((f"{name}/{rel}", os.path.join(dirpath, fname)))
    files.sort()
    total = len(files)
    cap = int(arg("--rust-max-files", RUST_MAX_FILES))
    step = math.ceil(total / cap) if cap and total > cap else 1
    files = files[::step]
    files = files[:limit] if limit else files
    rels = [r for r, _ in files]
    mode = arg("--rust-reference", "flagged")

    def names(xs):
        return f": {', '.join(xs[:5])}{' ...' if len(xs) > 5 else ''}" if xs else ""

    notes = [f"{len(crates)} registry crates of Cargo.lock with a src/ directory ({len(no_src)} without"
             f"{names(no_src)}; {len(missing)} not unpacked under $CARGO_HOME/registry/src{names(missing)})",
             f"{total} src/**/*.rs files; checked {len(rels)}"
             + (f" (one in every {step}, in sorted order: --rust-max-files {cap})" if step > 1 else "")]
    with tempfile.TemporaryDirectory() as tmp:
        copy_tree(files, tmp)
        t0 = time.monotonic()
        result = run_lancet(lancet, tmp, ["--no-compile-check"])
        t1 = time.monotonic()
        rel_set = set(rels)
        first = first_errors(result, rel_set)
        judged = rels if mode == "all" else sorted(first)
        rejected = rustc_rejects(tmp, judged, editions)
        t2 = time.monotonic()
        if rejected is None:
            rejected = {}
            notes.append("no usable `rustc -Zparse-crate-root-only` (RUSTC_BOOTSTRAP=1): every file taken as "
                         "accepted (each crate compiles)")
        elif mode == "all":
            notes.append("reference: rustc -Zparse-crate-root-only on every file")
        else:
            notes.append(f"reference: rustc -Zparse-crate-root-only on the {len(judged)} flagged files; "
                         "the others taken as accepted (false negatives: --rust-reference all)")
        unchecked = [u for u in result["unchecked"] if u.split(" (")[0] in rel_set]
        failed = report("rust", "Rust crates (Cargo.lock)", rels, rejected, first, unchecked, tmp, known, notes)
    log_times({"lancet": t1 - t0, "reference": t2 - t1}, start)
    return failed


def main():
    lancet = os.path.abspath(sys.argv[1])
    # Trust records of the corpus's temp roots stay out of the person's home.
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="lancet-gate-trust-")
    limit = int(arg("--limit")) if "--limit" in sys.argv else None
    corpora = arg("--corpus", ",".join(CORPORA)).split(",")
    if not corpora or any(c not in CORPORA for c in corpora):
        raise SystemExit(f"--corpus: a comma-separated subset of {','.join(CORPORA)}")
    global KNOWN
    KNOWN = pathlib.Path(arg("--known", str(KNOWN)))
    known = load_known()
    runners = {"python": corpus_python, "ts": corpus_ts, "rust": corpus_rust}
    start = time.monotonic()
    failed = {}
    for c in CORPORA:
        if c in corpora:
            failed[c] = runners[c](lancet, limit, known)
    log(f"all: {time.monotonic() - start:.1f} s; unlisted false positives: "
        + ", ".join(f"{c} {n}" for c, n in failed.items()))
    return 1 if any(failed.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

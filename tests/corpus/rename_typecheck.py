#!/usr/bin/env python3
"""Does the project still check after `lancet rename`? The compiler or type checker decides, not
lancet's resolver: every symbol of tests/corpus/rename/symbols.toml is renamed, with DEFAULT
flags, in a fresh copy of its project, and the project is checked again.

Usage: tests/corpus/rename_typecheck.py LANCET_BIN [--project NAME[,NAME]] [--limit N]
         [--only GLOB] [-j N] [-v] [--json OUT] [--cache DIR] [--bare]

The projects, their pinned sources and the symbols are rename_oracle.py's (laid out once in its
cache). Per project, a BASELINE: the unrenamed copy checked once. Per symbol: `lancet rename --at
PATH:LINE:COL NAME_renamed -C COPY --json --no-checkpoint --no-fsync` (no --include-unresolved,
no --leave-unresolved), then, when it wrote, the same check on the copy. With --bare, `lancet
rename NAME NAME_renamed` (the name alone, as an agent that knows only the name asks): where
several unrelated definitions share the name the answer must be the `ambiguous` refusal, which
only --bare can bring (--at names one definition).

CHECKERS (each diagnostic keyed by file, code and message, the message's NEW name read back as
OLD so an old complaint that now names the new name is the same complaint; lines are not part of
the key):
  python      `python3 -m compileall -q` (a syntax error is a diagnostic) and basedpyright's CLI
              (`basedpyright --outputjson`, the oracle's basedpyright) with the project's
              pyrightconfig.json switched to typeCheckingMode "standard" in the copy: undefined
              names, missing attributes, wrong call arguments are errors; then the DOCTESTS:
              every module of the src/ packages imported and its docstrings' `>>>` examples run
              (doctest, ELLIPSIS), each failing example a diagnostic keyed by test, source and
              exception (a module that no longer imports is one too); HTTP(S) goes to a closed
              proxy port, so examples that fetch fail the same way each time (requests has 41
              examples, flask none)
  typescript  tsc --noEmit -p tsconfig.json (the oracle's typescript; the ethers workspace's
              root tsconfig reaches each package through `paths`)
  rust        cargo check --offline --all-targets --message-format short (its errors;
              CARGO_TARGET_DIR in the copy's temp directory), then, when that passes, `cargo
              test --doc --offline`: each failing doctest is a diagnostic keyed by its name
              (either has 61)

OUTCOMES per symbol:
  checks      lancet wrote the rename and the project has no diagnostic the baseline lacks
  refused     lancet wrote nothing (exit 1): its kind is kept and counted per kind, `ambiguous`
              (one OLD naming several unrelated definitions) always apart
  broken      lancet wrote (exit 0) and the checker reports a diagnostic the baseline lacks
  error       any other exit code, no JSON report, a checker that could not run

Exit status 1 when any symbol is broken or error. `--limit N` takes the first N symbols of each
project (CI: 8).
"""

import argparse
import collections
import concurrent.futures as cf
import fnmatch
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import rename_oracle as ro  # noqa: E402  (the projects, symbols and setup are the oracle's)

CHECK_TIMEOUT = 600
TSC_LINE = re.compile(r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): error (?P<code>TS\d+): (?P<msg>.*)$")
DOCTEST_LINE = re.compile(r"^test (?P<file>\S+) - (?P<name>.*) \.\.\. (?P<result>ok|FAILED|ignored)$")
CARGO_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): error(?:\[(?P<code>\w+)\])?: (?P<msg>.*)$")


def basedpyright_command(cache):
    """basedpyright's CLI, beside the langserver the oracle installed."""
    ls = ro.ensure_basedpyright(cache)
    cli = ls.parent / "basedpyright"
    if cli.exists():
        return [str(cli)]
    lib = ls.parent.parent / "lib"
    return ["env", f"PYTHONPATH={lib}", sys.executable, "-c",
            "import sys; from basedpyright.pyright import main; sys.exit(main())"]


def tsc_command(cache):
    """The oracle's typescript compiler."""
    ls = ro.ensure_tsls(cache)
    return ["node", str(ls.parent.parent / "typescript" / "bin" / "tsc")]


def run(argv, cwd, env=None):
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=CHECK_TIMEOUT, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError(f"{argv[0]}: {e}") from e
    return p


# Run in the copy by check_python's doctest pass: every module of the project's src/ packages is
# imported and its doctests (a docstring's `>>>` examples, what `pytest --doctest-modules` runs)
# are run example by example; one JSON line per failing example, and per module that does not
# import. HTTP(S) goes to a closed port, so requests' examples that fetch fail the same way each
# time instead of reaching the network.
DOCTEST_SCRIPT = r"""
import doctest, importlib, json, pathlib, pkgutil, re, sys
sys.path.insert(0, "src")
out = []
class Runner(doctest.DocTestRunner):
    def report_failure(self, o, test, example, got):
        out.append([test.name, example.source.strip(), "output differs"])
    def report_unexpected_exception(self, o, test, example, exc_info):
        out.append([test.name, example.source.strip(), exc_info[0].__name__ + ": " + re.sub(r"0x[0-9a-f]+", "0x", str(exc_info[1]))[:200]])
for init in sorted(pathlib.Path("src").glob("*/__init__.py")):
    pkg = init.parent.name
    names = [pkg] + sorted(m.name for m in pkgutil.walk_packages([str(init.parent)], pkg + "."))
    for name in names:
        try:
            mod = importlib.import_module(name)
        except BaseException as e:
            out.append([name, "import " + name, type(e).__name__ + ": " + str(e)[:200]])
            continue
        for test in doctest.DocTestFinder().find(mod, name):
            if test.examples:
                Runner(optionflags=doctest.ELLIPSIS).run(test, out=lambda s: None)
for row in out:
    print(json.dumps(row))
"""


def check_python_doctests(root):
    """The doctests of the project's packages, as diagnostics keyed (`doctest`, test, example and
    what went wrong): a rename that left a `>>>` line behind fails there with a NameError or an
    AttributeError the baseline lacks."""
    dead = "http://127.0.0.1:9"
    env = dict(os.environ, HTTP_PROXY=dead, HTTPS_PROXY=dead, http_proxy=dead, https_proxy=dead,
               NO_PROXY="", no_proxy="", PYTHONDONTWRITEBYTECODE="1")
    p = run([sys.executable, "-c", DOCTEST_SCRIPT], root, env)
    if p.returncode != 0:
        raise RuntimeError(f"the doctest pass failed (exit {p.returncode}): {p.stderr[-300:]}")
    diags = collections.Counter()
    for line in p.stdout.splitlines():
        test, source, what = json.loads(line)
        # The test's name is in the message, so that a renamed class's or function's own
        # doctest reads back as the baseline's (its name is the item's).
        diags[("doctest", "", f"{test}: {source} -> {what}")] += 1
    return diags


def check_python(root, tools, doctests=False):
    diags = collections.Counter()
    config = root / "pyrightconfig.json"
    cfg = json.loads(config.read_text())
    cfg["typeCheckingMode"] = "standard"
    config.write_text(json.dumps(cfg, indent=1))
    p = run([sys.executable, "-m", "compileall", "-q", "src", "tests"], root)
    for line in p.stdout.splitlines():
        if line.startswith("***"):
            diags[("compileall", "", line)] += 1
    p = run(tools["python"] + ["--outputjson"], root)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"basedpyright gave no JSON (exit {p.returncode}): {p.stderr[-300:]}") from e
    for d in doc.get("generalDiagnostics", []):
        if d.get("severity") != "error":
            continue
        rel = os.path.relpath(d.get("file", ""), root)
        diags[(rel, d.get("rule", ""), d.get("message", ""))] += 1
    if doctests:
        diags += check_python_doctests(root)
    return diags


def check_typescript(root, tools, doctests=False):
    p = run(tools["typescript"] + ["--noEmit", "-p", "tsconfig.json"], root)
    diags = collections.Counter()
    for line in p.stdout.splitlines():
        m = TSC_LINE.match(line.strip())
        if m:
            diags[(m["file"], m["code"], m["msg"])] += 1
    if p.returncode not in (0, 1, 2):
        raise RuntimeError(f"tsc exit {p.returncode}: {p.stderr[-300:]}")
    return diags


def check_rust(root, tools, doctests=False):
    env = dict(os.environ, CARGO_TARGET_DIR=str(root.parent / "target"))
    p = run(["cargo", "check", "--offline", "--quiet", "--all-targets", "--message-format", "short"], root, env)
    diags = collections.Counter()
    for line in (p.stdout + p.stderr).splitlines():
        m = CARGO_LINE.match(line.strip())
        if m:
            diags[(m["file"], m["code"] or "", m["msg"])] += 1
    if p.returncode != 0 and not diags:
        raise RuntimeError(f"cargo check exit {p.returncode} without a diagnostic: {p.stderr[-300:]}")
    if doctests and p.returncode == 0:
        diags += check_rust_doctests(root, env)
    return diags


def check_rust_doctests(root, env):
    """`cargo test --doc`: each failing doctest (a doc comment's code block that no longer
    compiles or runs) is a diagnostic keyed by its name (file, item, line)."""
    p = run(["cargo", "test", "--doc", "--offline", "--message-format", "short", "--", "--color", "never"],
            root, env)
    diags = collections.Counter()
    for line in p.stdout.splitlines():
        m = DOCTEST_LINE.match(line.strip())
        if m and m["result"] == "FAILED":
            diags[(m["file"], "doctest", m["name"])] += 1
    if p.returncode != 0 and not diags:
        raise RuntimeError(f"cargo test --doc exit {p.returncode} without a failed doctest: "
                           f"{(p.stdout + p.stderr)[-300:]}")
    return diags


CHECKERS = {"python": check_python, "typescript": check_typescript, "rust": check_rust}


def copy_project(root, into):
    dest = pathlib.Path(into) / root.name
    shutil.copytree(root, dest, symlinks=True)
    return dest


def normalized(diags, old, new):
    """Each key with NEW read back as OLD (whole words), so a complaint that only renamed along
    is the baseline's own."""
    word = re.compile(rf"\b{re.escape(new)}\b")
    out = collections.Counter()
    for (f, code, msg), n in diags.items():
        out[(f, code, word.sub(old, msg))] += n
    return out


def rename_and_check(lancet, root, sym, lang, tools, baseline, env, flags=(), bare=False):
    """One symbol renamed in a fresh copy and checked: its outcome, with the seconds it took."""
    t0 = time.monotonic()
    res = rename_and_check_once(lancet, root, sym, lang, tools, baseline, env, flags, bare)
    return {**res, "seconds": round(time.monotonic() - t0, 1)}


def rename_and_check_once(lancet, root, sym, lang, tools, baseline, env, flags, bare):
    new = sym["name"] + ro.SUFFIX
    res = {"id": sym["id"], "project": sym["project"], "name": sym["name"], "kind": sym["kind"]}
    with tempfile.TemporaryDirectory(prefix="lancet-typecheck-") as tmp:
        copy = copy_project(root, tmp)
        argv = ro.rename_argv(lancet, copy, sym, bare) + list(flags)
        rc, out, err = ro.run_proc(argv, ro.LANCET_TIMEOUT, env)
        report = ro.parse_report(out)
        if rc == 1 and report is not None:
            error = report.get("error") or {}
            return {**res, "outcome": "refused", "kind_refused": error.get("kind", ""),
                    "message": ro.report_message(report, err)[:300]}
        if rc != 0 or report is None:
            return {**res, "outcome": "error", "message": f"lancet exit {rc}: {ro.report_message(report, err)[:300]}"}
        sites = len((report.get("rename") or {}).get("renamed") or [])
        try:
            after = CHECKERS[lang](copy, tools, doctests=True)
        except RuntimeError as e:
            return {**res, "outcome": "error", "message": str(e)}
        fresh = normalized(after, sym["name"], new) - baseline
        if fresh:
            shown = [f"{f}: {code} {msg}" for (f, code, msg) in list(fresh)[:5]]
            return {**res, "outcome": "broken", "sites": sites, "new_diagnostics": shown}
        return {**res, "outcome": "checks", "sites": sites}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet")
    ap.add_argument("--project", help="comma-separated projects (default: all)")
    ap.add_argument("--only", help="only the symbols whose id matches this glob")
    ap.add_argument("--limit", type=int, default=0, help="the first N symbols of each project (default: all)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per symbol")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("--cache", help="cache directory (rename_oracle.py's)")
    ap.add_argument("--flags", default="", help="extra rename flags, space-separated (to compare: --leave-unresolved)")
    ap.add_argument("--bare", action="store_true",
                    help="rename by OLD alone (`rename OLD NEW`), not --at: a name several unrelated definitions "
                         "share is refused `ambiguous`")
    args = ap.parse_args()
    lancet = os.path.abspath(args.lancet) if os.sep in args.lancet else shutil.which(args.lancet) or args.lancet
    t0 = time.monotonic()

    keys = list(ro.PROJECTS)
    if args.project:
        keys = [k.strip() for k in args.project.split(",") if k.strip()]
    syms = [s for s in ro.load_symbols(str(ro.SYMBOLS)) if s["project"] in keys]
    if args.only:
        syms = [s for s in syms if fnmatch.fnmatchcase(s["id"], args.only)]
    if args.limit:
        syms = [s for k in keys for s in [x for x in syms if x["project"] == k][:args.limit]]
    keys = [k for k in keys if any(s["project"] == k for s in syms)]
    if not syms:
        raise SystemExit("no symbol selected")

    cache = ro.cache_root(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    langs = {ro.PROJECTS[k]["lang"] for k in keys}
    try:
        empty_env = ro.ensure_empty_env(cache)
        tools = {}
        if "python" in langs:
            tools["python"] = basedpyright_command(cache)
        if "typescript" in langs:
            tools["typescript"] = tsc_command(cache)
        roots = {k: ro.lay_project(cache, k, empty_env) for k in keys}
    except ro.SetupError as e:
        ro.log(f"setup failed: {e}")
        sys.exit(2)
    if "rust" in langs and shutil.which("cargo") is None:
        ro.log("setup failed: cargo is not on PATH")
        sys.exit(2)
    ro.log(f"rename typecheck: {len(syms)} symbols in {', '.join(keys)} ({args.flags or 'default flags'}"
           + (", by name alone (--bare)" if args.bare else ", by position (--at)") + ")")

    baselines = {}
    for k in keys:
        lang = ro.PROJECTS[k]["lang"]
        with tempfile.TemporaryDirectory(prefix="lancet-typecheck-base-") as tmp:
            try:
                baselines[k] = CHECKERS[lang](copy_project(roots[k], tmp), tools, doctests=True)
            except RuntimeError as e:
                ro.log(f"setup failed: the baseline check of {k}: {e}")
                sys.exit(2)
        ro.log(f"  baseline {k}: {sum(baselines[k].values())} diagnostic(s) before any rename")

    env = dict(os.environ)
    results = []
    with cf.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        futs = [ex.submit(rename_and_check, lancet, roots[s["project"]], s, ro.PROJECTS[s["project"]]["lang"],
                          tools, normalized(baselines[s["project"]], s["name"], s["name"] + ro.SUFFIX), env,
                          args.flags.split(), args.bare)
                for s in syms]
        for f in futs:
            r = f.result()
            results.append(r)
            if args.verbose or r["outcome"] in ("broken", "error"):
                extra = r.get("kind_refused") or r.get("message", "")
                ro.log(f"  {r['outcome']:8} {r['id']} ({r['kind']}) {extra}".rstrip())
                for d in r.get("new_diagnostics", []):
                    ro.log(f"      new: {d[:200]}")

    # The refusals one column per kind, `ambiguous` (one OLD naming several unrelated
    # definitions: --at or --all-definitions decides) always first.
    kinds = ["ambiguous"] + sorted({r["kind_refused"] or "?" for r in results if r["outcome"] == "refused"}
                                   - {"ambiguous"})
    heads = ["checks", "refused"] + [f"refused:{k}" for k in kinds] + ["broken", "error"]

    def counts(rs):
        c = collections.Counter(r["outcome"] for r in rs)
        c.update(f"refused:{r['kind_refused'] or '?'}" for r in rs if r["outcome"] == "refused")
        return c

    rows = [(k, counts([r for r in results if r["project"] == k])) for k in keys] + [("total", counts(results))]
    widths = [max(12, *(len(k) for k, _ in rows)), 7] + [max(8, len(h)) for h in heads]
    ro.log()
    ro.log("  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(["project", "symbols", *heads], widths))))
    for k, c in rows:
        vals = [k, str(sum(c[o] for o in ("checks", "refused", "broken", "error")))] + [str(c[h]) for h in heads]
        ro.log("  ".join(v.rjust(w) if i else v.ljust(w) for i, (v, w) in enumerate(zip(vals, widths))))
    total = rows[-1][1]
    n = len(results)
    ro.log(f"rename typecheck: {total['checks']} check, {total['refused']} refused "
           f"({100.0 * total['refused'] / n:.1f}%; " + ", ".join(f"{total[f'refused:{k}']} {k}" for k in kinds)
           + f"), {total['broken']} broken, {total['error']} error ({time.monotonic() - t0:.0f} s)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    sys.exit(1 if total["broken"] or total["error"] else 0)


if __name__ == "__main__":
    main()

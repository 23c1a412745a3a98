#!/usr/bin/env python3
"""Does the project still check, import and pass its tests after `lancet move`? The type checker,
the interpreter and the project's own tests decide: module-level symbols of real projects,
chosen by a seeded rule, are each moved in a fresh git copy of the project, and the copy is
checked again.

Usage: tests/corpus/move_typecheck.py LANCET_BIN [--project NAME[,NAME]] [--per-project N]
         [--seed S] [-j N] [-v] [--json OUT] [--cache DIR]

PROJECTS and type checkers are rename_typecheck.py's (rename_oracle.py's pinned sources, laid
out once in its cache): requests 2.32.3 and flask 3.0.3, checked with `python3 -m compileall`
and basedpyright in "standard" mode; @tanstack/query-core 5.59.0 and @tanstack/table-core
8.21.3, checked with `tsc --noEmit`. For the Python projects two more checks, in a venv of
pinned dependencies made once under CACHE/venvs/move (pytest 8.3.5 and the two projects' own
dependencies, fetched with pip; the projects themselves come from the copy through
PYTHONPATH=src):
  imports  every module of the package imported, each in a fresh interpreter (an import cycle
           a move creates shows here, and no type checker sees it)
  tests    the project's tests that need no network: flask's whole tests/ (~4 s), requests'
           test_utils, test_structures, test_hooks, test_help, test_adapters, test_packages
           (~1 s); a test failing that passed in the baseline is a break
The TypeScript projects' tests (vitest) are not run: their packages ship no test setup.
Per project a BASELINE: the unchanged copy checked once (diagnostics, failing imports, failing
tests).

THE CHOICE (seeded, default seed 39), per project with random.Random(f"{seed}:{project}"):
every module-level symbol of the package's modules (not `__init__.py`, `__main__.py`, test
files or .d.ts): Python `def`, `async def`, `class`, and assignments to one plain name
(constants, type aliases; not dunder names like `__all__`); TypeScript top-level `function`,
`class`, `const`, `type`, `interface`, `enum` declarations (exported or not). Shuffled; the
i-th chosen symbol moves, when i is even, to another existing module of its own directory
(chosen by the same generator; not `__init__.py`/`index.ts`), when i is odd, to a new module
of its directory (`lancet_new.py` / `lancetNew.ts`). A symbol whose directory has no other
module takes the new-module kind. The first N (default 24) are run:
`lancet move NAME --at PATH:LINE:COL --to DEST -C COPY --json --no-checkpoint --no-fsync`.

OUTCOMES per move:
  checks    lancet wrote (exit 0), and the copy has no diagnostic the baseline lacks (one the
            baseline had in the moved code counts as the baseline's when it now stands in the
            destination and no more in the origin; an unresolved third-party import the
            baseline reports too is the checker's environment), no module
            that fails to import where the baseline's imports, no failing test the baseline
            passes
  refused   lancet wrote nothing (exit 1 or 2, a JSON report) and `git status` shows nothing;
            its kind is kept
  broken    lancet wrote and a check fails, or it refused and `git status` shows a change
  error     anything else (no JSON report, a check that could not run)

Exit 1 when any move is broken or error.
"""

import argparse
import ast
import collections
import concurrent.futures as cf
import json
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import rename_oracle as ro  # noqa: E402
import rename_typecheck as rt  # noqa: E402

PROJECTS = [k for k, p in ro.PROJECTS.items() if p["lang"] in ("python", "typescript")]
PYTEST = "8.3.5"
# The projects' own dependencies, pinned (the versions their releases were tested with).
DEPENDENCIES = ["werkzeug==3.0.3", "jinja2==3.1.4", "itsdangerous==2.2.0", "click==8.1.7", "blinker==1.8.2",
                "urllib3==2.2.2", "idna==3.7", "charset-normalizer==3.3.2", "certifi==2024.7.4"]
PACKAGE = {"requests": "requests", "flask": "flask"}
TESTS = {"flask": ["tests"],
         "requests": [f"tests/test_{t}.py" for t in ("utils", "structures", "hooks", "help", "adapters", "packages")]}
TS_DECL = re.compile(r"^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?"
                     r"(?:function\s*\*?|class|const|let|type|interface|enum)\s+(?P<name>[A-Za-z_$][\w$]*)")
NEW_MODULE = {"python": "lancet_new.py", "typescript": "lancetNew.ts"}
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def ensure_venv(cache):
    """The venv the Python projects import and test in, made once."""
    venv = cache / "venvs" / "move"
    python = venv / "bin" / "python"
    if (venv / ".complete").exists():
        return python
    ro.log(f"making {venv}: pytest {PYTEST} and the projects' dependencies")
    ro.run_setup([sys.executable, "-m", "venv", "--clear", str(venv)], "python3 -m venv")
    ro.run_setup([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                  f"pytest=={PYTEST}", *DEPENDENCIES], "pip install")
    (venv / ".complete").write_text("")
    return python


def python_symbols(root, package):
    """(path, line, column, name) of every module-level symbol of the package's modules."""
    out = []
    for path in sorted((root / "src" / package).rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        rel = str(path.relative_to(root))
        text = path.read_text()
        lines = text.splitlines()
        for stmt in ast.parse(text).body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = stmt.name
                m = re.search(rf"\b(?:def|class)\s+({re.escape(name)})\b", lines[stmt.lineno - 1])
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                m = re.match(rf"\s*({re.escape(name)})\b", lines[stmt.lineno - 1])
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                name = stmt.target.id
                m = re.match(rf"\s*({re.escape(name)})\b", lines[stmt.lineno - 1])
            else:
                continue
            if m and not (name.startswith("__") and name.endswith("__")):
                out.append((rel, stmt.lineno, m.start(1) + 1, name))
    return out


def ts_symbols(root):
    """(path, line, column, name) of every top-level declaration of src/ (not tests, .d.ts)."""
    out = []
    for path in sorted((root / "src").rglob("*.ts")):
        rel = str(path.relative_to(root))
        if path.name.endswith(".d.ts") or ".test." in path.name or "__tests__" in path.parts:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            m = TS_DECL.match(line)
            if m:
                out.append((rel, n, m.start("name") + 1, m["name"]))
    return out


def siblings(root, rel, lang):
    """The other modules of a file's directory a symbol may move to."""
    path = root / rel
    if lang == "python":
        found = [p for p in path.parent.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    else:
        found = [p for p in path.parent.glob("*.ts")
                 if p.name != "index.ts" and not p.name.endswith(".d.ts") and ".test." not in p.name]
    return sorted(str(p.relative_to(root)) for p in found if p != path)


def choose(root, key, count, seed):
    """The seeded choice of moves for one project."""
    rng = random.Random(f"{seed}:{key}")
    lang = ro.PROJECTS[key]["lang"]
    found = python_symbols(root, PACKAGE[key]) if lang == "python" else ts_symbols(root)
    rng.shuffle(found)
    chosen = []
    for path, line, column, name in found[:count]:
        others = siblings(root, path, lang)
        if len(chosen) % 2 == 0 and others:
            dest, kind = rng.choice(others), "existing"
        else:
            dest, kind = str(pathlib.Path(path).parent / NEW_MODULE[lang]), "new"
        chosen.append({"project": key, "path": path, "line": line, "column": column, "name": name,
                       "to": dest, "kind": kind})
    return chosen


def git(copy, *argv):
    return subprocess.run(["git", *argv], cwd=copy, capture_output=True, text=True,
                          env=dict(os.environ, **GIT_ENV))


def git_copy(root, tmp):
    """A fresh copy of the project, committed in its own git repository."""
    copy = rt.copy_project(root, tmp)
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "before"]):
        p = git(copy, *argv)
        if p.returncode != 0:
            raise RuntimeError(f"git {argv[0]}: {p.stderr[-300:]}")
    return copy


def changed(copy):
    """`git status --porcelain` lines: what the tree changed."""
    return git(copy, "status", "--porcelain", "--untracked-files=all").stdout.splitlines()


IMPORTER = r'''
import importlib, json, pkgutil, subprocess, sys
package = importlib.import_module(sys.argv[1])
names = [sys.argv[1]] + sorted(m.name for m in pkgutil.walk_packages(package.__path__, sys.argv[1] + "."))
failed = {}
for name in names:
    p = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True)
    if p.returncode:
        failed[name] = (p.stderr.strip().splitlines() or ["?"])[-1]
print(json.dumps(failed))
'''


def python_runtime(copy, key, python):
    """The modules that fail to import and the tests that fail: {"import NAME": why, "test ID": ""}."""
    # A temp directory of its own: requests' test_zipped_paths_extracted extracts into the temp
    # directory and keeps what an earlier run left there (another copy's tests/test_utils.py).
    tmp = copy.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH="src", PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(tmp))
    out = {}
    p = subprocess.run([str(python), "-c", IMPORTER, PACKAGE[key]], cwd=copy, capture_output=True, text=True,
                       env=env, timeout=rt.CHECK_TIMEOUT)
    try:
        out.update({f"import {k}": v for k, v in json.loads(p.stdout.splitlines()[-1]).items()})
    except (json.JSONDecodeError, IndexError):
        out[f"import {PACKAGE[key]}"] = (p.stderr.strip().splitlines() or ["?"])[-1]
    p = subprocess.run([str(python), "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", *TESTS[key]],
                       cwd=copy, capture_output=True, text=True, env=env, timeout=rt.CHECK_TIMEOUT)
    for line in p.stdout.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            out["test " + line.split(" ", 1)[1].split(" - ")[0]] = line[:200]
    if p.returncode not in (0, 1):
        out["pytest"] = f"exit {p.returncode}: {(p.stdout + p.stderr).strip()[-300:]}"
    return out


def check(copy, key, tools, python):
    """Everything the judges say about a tree: (diagnostics, runtime failures)."""
    lang = ro.PROJECTS[key]["lang"]
    runtime = python_runtime(copy, key, python) if lang == "python" else {}
    return rt.CHECKERS[lang](copy, tools), runtime


def module_of(rel):
    """A file's dotted module name (`src/requests/utils.py` -> `requests.utils`)."""
    parts = pathlib.Path(rel).with_suffix("").parts
    return ".".join(parts[1:] if parts[0] == "src" else parts)


def moved_along(fresh, gone, origin, dest):
    """The diagnostics that are new, less those the baseline had in the moved code: a complaint
    in the destination that the origin had before and has no more (its message read with the
    destination's module name as the origin's) moved with the code."""
    fresh, gone = collections.Counter(fresh), collections.Counter(gone)
    for (f, code, msg), n in list(fresh.items()):
        if f != dest:
            continue
        for old in ((origin, code, msg), (origin, code, msg.replace(module_of(dest), module_of(origin)))):
            k = min(n, gone[old])
            if k:
                fresh[(f, code, msg)] -= k
                gone[old] -= k
                n -= k
    return +fresh


def unresolved_before(fresh, baseline):
    """The diagnostics that are new, less an unresolved third-party import the baseline reports
    too (in any file: `Import "jinja2" could not be resolved` says the checker's environment
    lacks jinja2, not that the file that now imports it is wrong)."""
    missing = {(code, msg) for (_, code, msg) in baseline if code in ("reportMissingImports", "reportMissingModuleSource")}
    return +collections.Counter({k: n for k, n in fresh.items() if (k[1], k[2]) not in missing})


def move_and_check(lancet, root, case, tools, python, baseline, env):
    res = dict(case)
    with tempfile.TemporaryDirectory(prefix="lancet-movecheck-") as tmp:
        try:
            copy = git_copy(root, tmp)
        except RuntimeError as e:
            return {**res, "outcome": "error", "message": str(e)}
        argv = [lancet, "move", case["name"], "--at", f"{case['path']}:{case['line']}:{case['column']}",
                "--to", case["to"], "-C", str(copy), "--json", "--no-checkpoint", "--no-fsync"]
        rc, out, err = ro.run_proc(argv, ro.LANCET_TIMEOUT, env)
        report = ro.parse_report(out)
        status = changed(copy)
        if rc in (1, 2) and report is not None:
            if status:
                return {**res, "outcome": "broken", "message": "refused, and git status shows " + "; ".join(status[:5])}
            error = report.get("error") or {}
            return {**res, "outcome": "refused", "kind_refused": error.get("kind", ""),
                    "message": ro.report_message(report, err)[:300]}
        if rc != 0 or report is None:
            return {**res, "outcome": "error", "message": f"lancet exit {rc}: {ro.report_message(report, err)[:300]}"}
        res["files"] = len(status)
        try:
            diags, runtime = check(copy, case["project"], tools, python)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            return {**res, "outcome": "error", "message": str(e)}
        fresh = unresolved_before(moved_along(diags - baseline[0], baseline[0] - diags, case["path"], case["to"]),
                                  baseline[0])
        broke = {k: v for k, v in runtime.items() if k not in baseline[1]}
        if fresh or broke:
            shown = [f"{f}: {code} {msg}" for (f, code, msg) in list(fresh)[:5]]
            shown += [f"{k} {v}".strip() for k, v in list(broke.items())[:5]]
            return {**res, "outcome": "broken", "new_diagnostics": shown}
        return {**res, "outcome": "checks"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet")
    ap.add_argument("--project", help="comma-separated projects (default: requests, flask, query-core, table-core)")
    ap.add_argument("--per-project", type=int, default=24, help="moves per project (default 24)")
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("--cache", help="cache directory (rename_oracle.py's)")
    args = ap.parse_args()
    lancet = os.path.abspath(args.lancet)
    t0 = time.monotonic()
    keys = PROJECTS
    if args.project:
        keys = [k.strip() for k in args.project.split(",") if k.strip()]
    cache = ro.cache_root(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    try:
        empty_env = ro.ensure_empty_env(cache)
        langs = {ro.PROJECTS[k]["lang"] for k in keys}
        tools, python = {}, None
        if "python" in langs:
            tools["python"] = rt.basedpyright_command(cache)
            python = ensure_venv(cache)
        if "typescript" in langs:
            tools["typescript"] = rt.tsc_command(cache)
        roots = {k: ro.lay_project(cache, k, empty_env) for k in keys}
    except ro.SetupError as e:
        ro.log(f"setup failed: {e}")
        sys.exit(2)
    cases = [c for k in keys for c in choose(roots[k], k, args.per_project, args.seed)]
    ro.log(f"move typecheck: {len(cases)} moves in {', '.join(keys)} (seed {args.seed})")
    baselines = {}
    for k in keys:
        with tempfile.TemporaryDirectory(prefix="lancet-movecheck-base-") as tmp:
            try:
                baselines[k] = check(rt.copy_project(roots[k], tmp), k, tools, python)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                ro.log(f"setup failed: the baseline check of {k}: {e}")
                sys.exit(2)
        ro.log(f"  baseline {k}: {sum(baselines[k][0].values())} diagnostic(s), "
               f"{len(baselines[k][1])} failing import(s)/test(s)")
    env = dict(os.environ)
    results = []
    with cf.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        futs = [ex.submit(move_and_check, lancet, roots[c["project"]], c, tools, python, baselines[c["project"]], env)
                for c in cases]
        for f in futs:
            r = f.result()
            results.append(r)
            if args.verbose or r["outcome"] in ("broken", "error"):
                what = f"{r['path']}:{r['line']} {r['name']} --to {r['to']}"
                extra = r.get("kind_refused") or r.get("message", "")
                if r["outcome"] == "checks":
                    extra = f"{r.get('files', 0)} file(s) changed"
                ro.log(f"  {r['outcome']:8} {what}: {extra}".rstrip())
                for d in r.get("new_diagnostics", []):
                    ro.log(f"      new: {d[:240]}")
    outcomes = ["checks", "refused", "broken", "error"]
    ro.log()
    ro.log(f"{'project':12} {'moves':>6} " + " ".join(f"{o:>8}" for o in outcomes))
    total = collections.Counter()
    for k in keys:
        c = collections.Counter(r["outcome"] for r in results if r["project"] == k)
        total.update(c)
        ro.log(f"{k:12} {sum(c.values()):6} " + " ".join(f"{c[o]:8}" for o in outcomes))
    ro.log(f"{'total':12} {sum(total.values()):6} " + " ".join(f"{total[o]:8}" for o in outcomes))
    by_kind = collections.Counter((r["kind"], r["outcome"]) for r in results)
    ro.log("by destination: " + "; ".join(
        f"{k} module: " + ", ".join(f"{n} {o}" for (kk, o), n in sorted(by_kind.items()) if kk == k)
        for k in ("existing", "new")))
    refused = collections.Counter(r.get("kind_refused", "") for r in results if r["outcome"] == "refused")
    if refused:
        ro.log("refused by kind: " + ", ".join(f"{n} {k}" for k, n in refused.most_common()))
    ro.log(f"move typecheck: {total['checks']} check, {total['refused']} refused, {total['broken']} broken, "
           f"{total['error']} error ({time.monotonic() - t0:.0f} s)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    sys.exit(1 if total["broken"] or total["error"] else 0)


if __name__ == "__main__":
    main()

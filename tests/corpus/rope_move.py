#!/usr/bin/env python3
"""`lancet move` against rope's own tests: rope 1.15.2's movetest.py (77 tests), each turned into a
case by running it under rope with its entry points recorded, then run through lancet and judged
against what rope wrote.

Usage: tests/corpus/rope_move.py LANCET_BIN [--cache DIR] [--only GLOB] [--cap N] [-v] [--json OUT]

ROPE is LGPL-3.0+: nothing of it is in this repository. At run time its sdist is fetched from
PyPI and rope installed into a venv, both under CACHE (rope_signature.py's: default
$XDG_CACHE_HOME/lancet-corpus/rope, else ~/.cache/lancet-corpus/rope). Without the network and
no cache, the runner stops (exit 2).

A CASE is one test method, run by unittest inside rope's venv with four seams wrapped: the test
class's `_move`/`_move_to_attr` helpers (the destination as the test wrote it), `create_move`
(the files before and which mover rope chose: MoveGlobal, MoveModule or MoveMethod; a
RefactoringError there is "rope refuses"), `MoveGlobal.get_changes`/`_calculate_changes` (the
destination as rope resolved it: a dotted name becomes its file, a package its `__init__.py`; a
RefactoringError is "rope refuses") and `testutils.remove_project` (the files after, as rope
left them).

SCOPE: in scope, a global symbol (function, class, variable) moved to a module with MoveGlobal,
and the cases rope refuses when asked to move something at an offset of a module (a name that
is not global, a folder or the same module as destination). Out of scope, listed with counts:
MoveMethod (a method moved to an attribute's class), MoveModule (whole modules and packages,
resources moves: lancet moves symbols, not files), tests that set rope's import preferences
(`project.prefs`: rope's style knobs, not a fact about the code), and rope tests that fail or
are skipped under rope itself.

Each in-scope case runs, in a fresh git repository holding the files before (committed),
`lancet -C REPO move NAME --at PATH:LINE:COL --to DEST --json --no-checkpoint --no-fsync`
(NAME and PATH:LINE:COL are the global's definition as rope resolved it; for a case rope
refuses before resolving, the name at rope's offset) and is judged:
  identical   every file byte for byte as rope left it
  equal       the same `ast.unparse(ast.parse(...))` per file, each run of imports sorted
              (rope_signature.py's rule). A case that is equal but not identical differs only
              in formatting: the detail says which (blank lines, or import order/grouping):
              rope's expectation there is a formatting preference, and no more lenient rule
              is applied
  valid       lancet wrote (exit 0) something else that is still right, checked three ways
              against rope's result: the moved name is defined at module level in the
              destination and no longer in the origin; basedpyright (standard mode) reports no
              error on lancet's tree that rope's tree lacks; importing every module of the tree
              fails no more than on rope's tree (import cycles show here). The detail shows the
              first differing lines. Not counted as identical or equal
  refused     lancet wrote nothing (exit 1 or 2), rope applied (its kind is listed): counted
              apart from the bar's wrong, and against the ratio
  as rope     rope refuses and lancet refused (exit 1 or 2), the tree unchanged
  wrong       lancet wrote (exit 0) something that fails a check of `valid`, wrote where rope
              refuses, changed the tree while refusing, or exited otherwise

BAR (exit 1 when missed): at least 85% of the in-scope cases rope applies are identical or
equal, no case is wrong, and every case rope refuses is refused. `--cap N` judges the first N
in-scope cases (CI); the bar then applies to those.
"""

import argparse
import ast
import collections
import difflib
import fnmatch
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import rope_signature as rs  # noqa: E402  (rope's cache and the `equal` rule are the signature runner's)

BAR = 0.85

RECORDER = r'''
import inspect, json, pathlib, sys, unittest
sys.path.insert(0, sys.argv[1])
import rope.base.exceptions
from rope.refactor import move
from ropetest import testutils
from ropetest.refactor import movetest as t

cases = {}
current = [None]

def snapshot(root):
    files = {}
    for p in sorted(pathlib.Path(root).rglob("*")):
        if p.is_file() and ".ropeproject" not in p.parts and "__pycache__" not in p.parts:
            files[str(p.relative_to(root))] = p.read_text()
    return files

def where(resource):
    if resource is None:
        return None
    if isinstance(resource, str):
        return {"module": resource}
    return {"path": resource.path, "folder": resource.is_folder()}

def refusing(fn, case):
    def wrapped(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except rope.base.exceptions.RefactoringError as e:
            case().setdefault("why", str(e))
            case()["rope"] = "refuses"
            raise
    return wrapped

case = lambda: cases[current[0]]

for helper in ("_move", "_move_to_attr"):
    original = getattr(t.MoveRefactoringTest, helper)
    def recorded(self, resource, offset, dest, *args, _original=original, _helper=helper, **kwargs):
        case().update(helper=_helper, dest=where(dest) if _helper == "_move" else {"attr": dest})
        return _original(self, resource, offset, dest, *args, **kwargs)
    setattr(t.MoveRefactoringTest, helper, recorded)

create_move = move.create_move
def recorded_create_move(project, resource, offset=None):
    c = case()
    c.update(before=snapshot(project.address), resource=where(resource), offset=offset,
             empty_dirs=sorted(str(p.relative_to(project.address)) for p in pathlib.Path(project.address).rglob("*")
                               if p.is_dir() and not any(p.iterdir()) and ".ropeproject" not in p.parts))
    mover = refusing(create_move, case)(project, resource, offset)
    c["mover"] = type(mover).__name__
    if isinstance(mover, move.MoveGlobal):
        module, line = mover.old_pyname.get_definition_location()
        c.update(symbol=mover.old_name, source=mover.source.path, line=line)
    return mover
move.create_move = recorded_create_move

for cls in (move.MoveGlobal, move.MoveModule, move.MoveMethod):
    cls.get_changes = refusing(cls.get_changes, case)
calculate = move.MoveGlobal._calculate_changes
def recorded_calculate(self, dest, *args, **kwargs):
    case()["resolved_dest"] = dest.path
    return calculate(self, dest, *args, **kwargs)
move.MoveGlobal._calculate_changes = recorded_calculate

remove = testutils.remove_project
def recorded_remove(project):
    c = cases.get(current[0])
    if c is not None and "before" in c:
        c["after"] = snapshot(project.address)
    remove(project)
testutils.remove_project = recorded_remove

for name in unittest.TestLoader().getTestCaseNames(t.MoveRefactoringTest):
    current[0] = name
    source = inspect.getsource(getattr(t.MoveRefactoringTest, name))
    cases[name] = {"name": name, "rope": "applies", "prefs": "prefs" in source}
    result = unittest.TestResult()
    t.MoveRefactoringTest(name).run(result)
    problems = result.errors + result.failures
    cases[name]["rope_test"] = "passed" if not problems and not result.skipped else (
        "skipped" if result.skipped else "failed: " + problems[0][1].splitlines()[-1])
json.dump(list(cases.values()), sys.stdout)
'''

CHECK_TIMEOUT = 300


def record(python, sdist):
    """Every test method of rope's movetest.py as a case."""
    with tempfile.TemporaryDirectory(prefix="rope-move-recorder-") as tmp:
        script = pathlib.Path(tmp) / "record.py"
        script.write_text(RECORDER)
        p = subprocess.run([str(python), str(script), str(sdist)], capture_output=True, text=True,
                           cwd=tmp, timeout=600)
    if p.returncode != 0:
        raise rs.SetupError(f"the recorder failed: {p.stderr[-1500:]}")
    return json.loads(p.stdout)


def scope(case):
    """(in scope, why not) of one case."""
    if case.get("rope_test", "").startswith(("failed", "skipped")):
        return False, f"rope's own test {case['rope_test']}"
    if case.get("helper") == "_move_to_attr" or case.get("mover") == "MoveMethod":
        return False, "MoveMethod (a method moved to an attribute's class)"
    if case.get("mover") == "MoveModule" or (case.get("resource") or {}).get("folder") or (
            "before" in case and case.get("offset") is None):
        return False, "MoveModule (a whole module, package or folder moved)"
    if case.get("prefs"):
        return False, "sets rope's import preferences (project.prefs)"
    if "before" not in case:
        return False, "no create_move"
    if case["rope"] == "applies" and case.get("mover") != "MoveGlobal":
        return False, f"rope's {case.get('mover')}"
    return True, ""


def name_at(text, offset):
    """The identifier at (or just before: rope takes `index(name) + 1`) an offset, and its
    1-based line and column."""
    word = lambda i: 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")  # noqa: E731
    if not word(offset) and word(offset - 1):
        offset -= 1
    start = offset
    while word(start - 1):
        start -= 1
    end = offset
    while word(end):
        end += 1
    line = text.count("\n", 0, start) + 1
    return text[start:end], line, start - (text.rfind("\n", 0, start) + 1) + 1


def destination(case):
    """The destination file as lancet is asked for it."""
    if case.get("resolved_dest"):
        return case["resolved_dest"]
    dest = case.get("dest") or {}
    if "path" in dest:
        return dest["path"] or "."
    if "module" in dest:
        return dest["module"].replace(".", "/") + ".py"
    return "destination_module.py"  # rope refused before any destination: any asks the same


def lancet_args(case):
    """The `lancet move` arguments for a case."""
    at_offset = name_at(case["before"][case["resource"]["path"]], case["offset"])
    if case.get("mover") == "MoveGlobal" and (case["resource"]["path"], at_offset[0]) != (
            case["source"], case["symbol"]):  # rope resolved a use to a definition elsewhere
        text = case["before"][case["source"]]
        line_text = text.splitlines()[case["line"] - 1]
        col = find_name(line_text, case["symbol"])
        name, at = case["symbol"], f"{case['source']}:{case['line']}:{col}"
    else:
        path = case["resource"]["path"]
        name, line, col = at_offset
        at = f"{path}:{line}:{col}"
    return ["move", name, "--at", at, "--to", destination(case)]


def find_name(line, name):
    """The 1-based column of `name` as a whole word in a definition line (after `def`/`class`
    when there is one)."""
    m = re.search(rf"\b(?:def|class)\s+({re.escape(name)})\b", line) or re.search(rf"\b({re.escape(name)})\b", line)
    return (m.start(1) if m else 0) + 1


def lay(root, files):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def git_repo(root, files):
    """A git repository holding `files`, committed."""
    lay(root, files)
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "before"]):
        subprocess.run(argv, cwd=root, check=True, env=env, capture_output=True)


def snapshot(root):
    files = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if p.is_file() and not {".git", ".lancet", "__pycache__"} & set(rel.parts):
            files[str(rel)] = p.read_text()
    return files


def git_clean(root):
    p = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root,
                       capture_output=True, text=True)
    return p.returncode == 0 and not [ln for ln in p.stdout.splitlines() if ".lancet" not in ln]


def equal(a, b):
    """rope_signature.py's rule over every file: the same set of files, each the same
    `ast.unparse` with import runs sorted."""
    if set(a) != set(b):
        return False
    try:
        return all(rs.normal(a[r]) == rs.normal(b[r]) for r in a if r.endswith(".py"))
    except SyntaxError:
        return False


def formatting_kind(a, b):
    """Which formatting an equal-but-not-identical pair differs in."""
    strip = lambda files: {r: "\n".join(ln for ln in t.splitlines() if ln.strip()) for r, t in files.items()}  # noqa: E731
    return "blank lines only" if strip(a) == strip(b) else "import order or grouping (and blank lines)"


def top_level_names(code):
    """Names a module defines itself (def, class, assignment), not imports."""
    names = set()
    for stmt in ast.parse(code).body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def pyright_errors(root, command):
    """basedpyright's errors on a tree (standard mode), keyed by file, rule and message."""
    (root / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "standard"}))
    p = subprocess.run(command + ["--outputjson"], cwd=root, capture_output=True, text=True, timeout=CHECK_TIMEOUT)
    (root / "pyrightconfig.json").unlink()
    doc = json.loads(p.stdout)
    return collections.Counter(
        (os.path.relpath(d.get("file", ""), root), d.get("rule", ""), d.get("message", ""))
        for d in doc.get("generalDiagnostics", []) if d.get("severity") == "error")


IMPORTER = r'''
import importlib, json, sys
out = {}
for m in sys.argv[1:]:
    try:
        importlib.import_module(m)
        out[m] = "ok"
    except BaseException as e:
        out[m] = type(e).__name__ + ": " + str(e)
print(json.dumps(out))
'''


def import_outcomes(root, files):
    """Each module's import outcome in a fresh interpreter per module (cycles and missing names
    show here); rope's tests hold tiny modules without side effects beyond prints."""
    out = {}
    for rel in sorted(files):
        if not rel.endswith(".py"):
            continue
        module = rel[:-3].replace("/", ".").removesuffix(".__init__")
        p = subprocess.run([sys.executable, "-c", IMPORTER, module], cwd=root, capture_output=True, text=True,
                           timeout=60, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        try:
            out.update(json.loads(p.stdout.splitlines()[-1]))
        except (json.JSONDecodeError, IndexError):
            out[module] = f"exit {p.returncode}"
    return out


def first_difference(got, expected):
    for rel in sorted(set(got) | set(expected)):
        if got.get(rel) != expected.get(rel):
            diff = [ln for ln in difflib.unified_diff((expected.get(rel) or "").splitlines(),
                                                      (got.get(rel) or "").splitlines(), lineterm="", n=0)
                    if not ln.startswith(("---", "+++", "@@"))]
            return f"{rel}: rope/lancet " + " | ".join(diff[:6])
    return ""


def bound_by_imports(tree):
    """{name an import binds: the import's source} of a module's top-level imports."""
    out = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                out[a.asname or a.name.split(".")[0]] = ast.unparse(stmt)
        elif isinstance(stmt, ast.ImportFrom):
            for a in stmt.names:
                out[a.asname or a.name] = ast.unparse(stmt)
    return out


def explain(case, got, expected):
    """What lancet's different result does otherwise, in the words of the known kinds of
    difference: the file, and each kind found in it."""
    dest = destination(case)[:-3].replace("/", ".")
    words = []
    for rel in sorted(set(got) | set(expected)):
        a, b = got.get(rel), expected.get(rel)
        if a == b or not rel.endswith(".py") or a is None or b is None:
            continue
        ta, tb = ast.parse(a), ast.parse(b)
        kinds = []
        if sorted(map(ast.unparse, ta.body)) == sorted(map(ast.unparse, tb.body)):
            kinds.append("the same statements in another order")
        ours, theirs = ast.unparse(ta), ast.unparse(tb)
        if f"from {dest} import" in ours and f"import {dest}" in theirs and f"{dest}." in theirs:
            kinds.append(f"writes a from-import (`from {dest} import ...`: issue #39 keeps `from a import f` as `from b import f`, and uses left in the old module get one) "
                         f"where rope writes `import {dest}` and qualified uses")
        if re.search(r"^import [\w.]+ as \w+$", ours, re.M) and not re.search(r"^import [\w.]+ as", theirs, re.M):
            kinds.append("imports a dotted module under an alias (`import p.m as m`) where rope qualifies uses")
        used = {n.id for n in ast.walk(ta) if isinstance(n, ast.Name)}
        unused = sorted(stmt for name, stmt in bound_by_imports(ta).items() if name not in used
                        and stmt not in bound_by_imports(tb).values())
        if unused:
            kinds.append("leaves an import nothing uses: " + "; ".join(unused))
        words.append(f"{rel}: " + (", ".join(kinds) or "another difference"))
    return "; ".join(words)


def validity(case, got, expected, pyright):
    """Why lancet's different result is wrong, or None when it passes every check."""
    dest, source, name = destination(case), case["source"], case["symbol"]
    try:
        if dest not in got or name not in top_level_names(got[dest]):
            return f"{name} is not defined at module level in {dest}"
        if name in top_level_names(got.get(source, "")):
            return f"{name} is still defined in {source}"
    except SyntaxError as e:
        return f"does not parse: {e}"
    with tempfile.TemporaryDirectory(prefix="rope-move-check-") as tmp:
        ours, theirs = pathlib.Path(tmp, "lancet"), pathlib.Path(tmp, "rope")
        lay(ours, got)
        lay(theirs, expected)
        if pyright:
            fresh = pyright_errors(ours, pyright) - pyright_errors(theirs, pyright)
            if fresh:
                return "basedpyright: " + "; ".join(f"{f}: {m}" for f, _, m in list(fresh)[:3])
        a, b = import_outcomes(ours, got), import_outcomes(theirs, expected)
        worse = [f"{m}: {a[m]}" for m in a if a[m] != "ok" and b.get(m) == "ok"]
        if worse:
            return "import fails: " + "; ".join(worse[:3])
    return None


def judge(case, lancet, pyright):
    """The outcome of one in-scope case: (outcome, detail)."""
    args = lancet_args(case)
    command = "lancet " + " ".join(args)
    with tempfile.TemporaryDirectory(prefix="rope-move-case-") as tmp:
        root = pathlib.Path(tmp)
        git_repo(root, case["before"])
        for rel in case.get("empty_dirs", []):  # git keeps no empty folder: rope's `folder` destination
            (root / rel).mkdir(parents=True, exist_ok=True)
        p = subprocess.run([lancet, "-C", str(root)] + args + ["--json", "--no-checkpoint", "--no-fsync"],
                           capture_output=True, text=True, timeout=120)
        try:
            report = json.loads(p.stdout)
        except json.JSONDecodeError:
            report = {}
        error = report.get("error") or {}
        got = snapshot(root)
        clean = git_clean(root)
    refused = p.returncode in (1, 2) and report
    if case["rope"] == "refuses":
        if refused and clean:
            return "as rope", f"{command}: refused ({error.get('kind', '')}); rope: {case.get('why', '')}"
        if refused:
            return "wrong", f"{command}: refused ({error.get('kind', '')}) but the tree changed"
        return "wrong", f"{command}: exit {p.returncode} where rope refuses ({case.get('why', '')})"
    if refused:
        if not clean:
            return "wrong", f"{command}: refused ({error.get('kind', '')}) but the tree changed"
        return "refused", f"{command}: {error.get('kind', '')}: {str(error.get('detail', ''))[:200]}"
    if p.returncode != 0:
        return "wrong", f"{command}: exit {p.returncode}: {(p.stderr or p.stdout)[-300:]}"
    expected = case["after"]
    if got == expected:
        return "identical", command
    if equal(got, expected):
        return "equal", f"{command}: formatting: {formatting_kind(got, expected)}"
    why = validity(case, got, expected, pyright)
    if why:
        return "wrong", f"{command}: {why}; {first_difference(got, expected)}"
    return "valid", f"{command}: {explain(case, got, expected)} ({first_difference(got, expected)})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lancet")
    ap.add_argument("--cache", help="cache directory (default: $XDG_CACHE_HOME/lancet-corpus/rope)")
    ap.add_argument("--only", help="only the tests whose names match this glob")
    ap.add_argument("--cap", type=int, default=0, help="judge only the first N in-scope cases (CI)")
    ap.add_argument("--no-pyright", action="store_true", help="judge `valid` without basedpyright")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    ap.add_argument("--json", help="write every case's outcome here")
    ap.add_argument("--share-bar", type=float, default=BAR,
                    help="the identical-or-equal share that fails the run when missed (default: the "
                         "issue's 0.85; CI passes what lancet holds today, so a regression fails while "
                         "the bar is open)")
    args = ap.parse_args()
    lancet = str(pathlib.Path(args.lancet).resolve())
    cache = pathlib.Path(args.cache).resolve() if args.cache else rs.default_cache()
    try:
        python, sdist = rs.ensure_rope(cache)
        cases = record(python, sdist)
        pyright = None
        if not args.no_pyright:
            import rename_oracle as ro
            import rename_typecheck as rt
            pyright = rt.basedpyright_command(ro.cache_root(None))
    except (rs.SetupError, OSError, subprocess.TimeoutExpired) as e:
        rs.log(f"cannot run rope's tests: {e}")
        return 2
    except Exception as e:  # rename_oracle's SetupError: basedpyright could not be installed
        rs.log(f"cannot install basedpyright (try --no-pyright): {e}")
        return 2
    if args.only:
        cases = [c for c in cases if fnmatch.fnmatch(c["name"], args.only)]
    outcomes, out_of_scope = [], []
    for case in cases:
        ok, why = scope(case)
        if not ok:
            out_of_scope.append((case["name"], why))
            continue
        if args.cap and len(outcomes) == args.cap:
            continue
        outcome, detail = judge(case, lancet, pyright)
        outcomes.append({"name": case["name"], "rope": case["rope"], "outcome": outcome, "detail": detail})
    counts = collections.Counter(o["outcome"] for o in outcomes)
    print(f"rope {rs.ROPE} movetest.py: {len(cases)} tests, {len(cases) - len(out_of_scope)} in scope"
          f"{f' ({len(outcomes)} judged, --cap)' if args.cap else ''}, {len(out_of_scope)} out of scope")
    for why, n in sorted(collections.Counter(w for _, w in out_of_scope).items()):
        print(f"  out of scope: {n} x {why}")
    if args.verbose:
        for name, why in out_of_scope:
            print(f"  {'out':10} {name}: {why}")
    for o in outcomes:
        if args.verbose or o["outcome"] not in ("identical", "as rope"):
            print(f"  {o['outcome']:10} {o['name']}: {o['detail']}")
    applies = [o for o in outcomes if o["rope"] == "applies"]
    matched = sum(1 for o in applies if o["outcome"] in ("identical", "equal"))
    refuses = [o for o in outcomes if o["rope"] == "refuses"]
    as_rope = sum(1 for o in refuses if o["outcome"] == "as rope")
    ratio = matched / len(applies) if applies else 0.0
    print("  " + ", ".join(f"{k} {counts.get(k, 0)}" for k in
                           ("identical", "equal", "valid", "refused", "as rope", "wrong")))
    print(f"  identical or equal: {matched} of the {len(applies)} cases rope applies ({ratio:.0%}); "
          f"rope's refusals refused: {as_rope} of {len(refuses)}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"outcomes": outcomes, "out_of_scope": out_of_scope}, indent=1))
    failed = counts.get("wrong", 0) > 0 or ratio < args.share_bar or as_rope < len(refuses)
    print("FAIL" if failed else "PASS", f"(bar: {args.share_bar:.0%} identical or equal, 0 wrong, every refusal of rope's refused)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""`lancet signature` against rope's own tests: rope 1.15.2's change_signature_test.py (40 tests),
each turned into a case by running it under rope with its entry points recorded, then run through
lancet and judged against what rope wrote.

Usage: tests/corpus/rope_signature.py LANCET_BIN [--cache DIR] [--only GLOB] [-v] [--json OUT]

ROPE is LGPL-3.0+: nothing of it is in this repository. At run time its sdist is fetched from
PyPI (`pip download rope==1.15.2 --no-binary :all:`, for ropetest/) and rope installed into a
venv, both under CACHE (default $XDG_CACHE_HOME/lancet-corpus/rope, else
~/.cache/lancet-corpus/rope). Without the network and no cache, the runner stops (exit 2).

A CASE is one test method, run by unittest inside rope's venv with three seams wrapped:
`ChangeSignature.__init__` (the files before and the function's place: module and offset),
`ChangeSignature.get_changes` (the changers, read against rope's own DefinitionInfo as each
changer leaves it, so an index becomes a parameter's name; `resources`), and
`testutils.remove_project` (the files after, as rope left them). A RefactoringError at either
seam is "rope refuses".

SCOPE: in scope, a parameter added (ArgumentAdder: NAME, DEFAULT, VALUE, its index as @POS
unless it appends), removed (ArgumentRemover), reordered (ArgumentReorderer), and the cases rope
refuses (a non-function, a duplicate parameter). Out of scope: ArgumentNormalizer (lancet never
rewrites a call it need not), ArgumentDefaultInliner, a reorder with automatic defaults
(`autodef`). `in_hierarchy` is not passed on: lancet always changes overrides with their base.

Each in-scope case runs `lancet -C COPY signature --at PATH:LINE:COL [PATHS (rope's
resources)] CHANGES --json --no-checkpoint --no-fsync` and is judged:
  identical   every file byte for byte as rope left it
  equal       the same `ast.unparse(ast.parse(...))` per file (import blocks sorted)
  equivalent  the same but for calls of the function whose arguments bind to the same
              parameters under the new definition (lancet keeps an argument's keyword where rope
              makes it positional): not counted as identical or equal
  refused     lancet wrote nothing (exit 1 or 2), rope applied (its kind is listed)
  by contract refused because a parameter is added with neither a default nor a value, which
              the issue's contract refuses whether or not calls exist (rope adds it; where a call
              exists rope's result lacks the argument): listed, and left out of the bar's ratio
  as rope     rope refuses and lancet refused
  wrong       lancet wrote (exit 0) something else, or wrote where rope refuses

BAR (exit 1 when missed): at least 85% of the in-scope cases rope applies (less those refused by
contract) are identical or equal, no case is wrong, and every case rope refuses is refused. The
ratio over every case rope applies, and over every case in scope, is printed beside it.
"""

import argparse
import ast
import fnmatch
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROPE = "1.15.2"
BAR = 0.85

RECORDER = r'''
import copy, json, pathlib, sys, unittest
sys.path.insert(0, sys.argv[1])
import rope.base.exceptions
from rope.refactor import change_signature as cs
from ropetest import testutils
from ropetest.refactor import change_signature_test as t

cases = {}
current = [None]

def snapshot(root):
    files = {}
    for p in sorted(pathlib.Path(root).rglob("*")):
        if p.is_file() and ".ropeproject" not in p.parts and "__pycache__" not in p.parts:
            files[str(p.relative_to(root))] = p.read_text()
    return files

def describe(sig, changers):
    info = sig._definfo()
    ops = []
    for ch in changers:
        names = [n for n, _ in info.args_with_defaults]
        kind = type(ch).__name__
        if kind == "ArgumentRemover":
            i = ch.index
            if i < len(names):
                ops.append(["remove", names[i]])
            elif i == len(names) and info.args_arg:
                ops.append(["remove", info.args_arg])
            else:
                ops.append(["remove", info.keywords_arg])
        elif kind == "ArgumentAdder":
            ops.append(["add", {"name": ch.name, "default": ch.default, "value": ch.value,
                                "index": ch.index, "appends": ch.index >= len(names)}])
        elif kind == "ArgumentReorderer":
            if ch.autodef is not None:
                ops.append(["out", "a reorder with automatic defaults (autodef)"])
            else:
                ops.append(["reorder", [names[i] for i in ch.new_order]])
        else:
            ops.append(["out", kind])
        info = copy.deepcopy(info)
        try:
            ch.change_definition_info(info)
        except Exception:
            pass
    return ops

init = cs.ChangeSignature.__init__
def recorded_init(self, project, resource, offset):
    case = cases[current[0]]
    case.update(before=snapshot(project.address), path=resource.path, offset=offset)
    try:
        init(self, project, resource, offset)
    except rope.base.exceptions.RefactoringError as e:
        case.update(rope="refuses", why=str(e))
        raise
cs.ChangeSignature.__init__ = recorded_init

get_changes = cs.ChangeSignature.get_changes
def recorded_get_changes(self, changers, *args, **kwargs):
    case = cases[current[0]]
    in_hierarchy = kwargs.get("in_hierarchy", args[0] if args else False)
    resources = kwargs.get("resources", args[1] if len(args) > 1 else None)
    case.update(ops=describe(self, changers), in_hierarchy=bool(in_hierarchy),
                resources=None if resources is None else [r.path for r in resources])
    try:
        return get_changes(self, changers, *args, **kwargs)
    except rope.base.exceptions.RefactoringError as e:
        case.update(rope="refuses", why=str(e))
        raise
cs.ChangeSignature.get_changes = recorded_get_changes

remove = testutils.remove_project
def recorded_remove(project):
    case = cases.get(current[0])
    if case is not None and "before" in case:
        case["after"] = snapshot(project.address)
    remove(project)
testutils.remove_project = recorded_remove

for name in unittest.TestLoader().getTestCaseNames(t.ChangeSignatureTest):
    current[0] = name
    cases[name] = {"name": name, "rope": "applies"}
    result = unittest.TestResult()
    t.ChangeSignatureTest(name).run(result)
    problems = result.errors + result.failures
    cases[name]["rope_test"] = "passed" if not problems and not result.skipped else (
        "skipped" if result.skipped else "failed: " + problems[0][1].splitlines()[-1])
json.dump(list(cases.values()), sys.stdout)
'''


class SetupError(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_setup(argv, what):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise SetupError(f"{what} failed (exit {p.returncode}): {(p.stderr or p.stdout)[-600:]}")
    return p


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return pathlib.Path(base).resolve() / "lancet-corpus" / "rope"


def ensure_rope(cache):
    """rope's venv python and its sdist's directory (for ropetest/), fetched when missing."""
    sdist = cache / f"rope-{ROPE}"
    venv = cache / "venv"
    python = venv / "bin" / "python"
    if (cache / ".complete").exists() and python.exists() and (sdist / "ropetest").is_dir():
        return python, sdist
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    log(f"fetching rope {ROPE} (LGPL-3.0+, kept in {cache}, never in the repository)")
    run_setup([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
               "--no-deps", "--no-binary", ":all:", f"rope=={ROPE}", "-d", str(cache)],
              "pip download rope")
    archive = cache / f"rope-{ROPE}.tar.gz"
    with tarfile.open(archive) as tar:
        tar.extractall(cache, filter="data")
    archive.unlink()
    run_setup([sys.executable, "-m", "venv", str(venv)], "python3 -m venv")
    run_setup([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               f"rope=={ROPE}"], "pip install rope")
    (cache / ".complete").write_text("")
    return python, sdist


def record(python, sdist):
    """Every test method of rope's change_signature_test.py as a case."""
    with tempfile.TemporaryDirectory(prefix="rope-recorder-") as tmp:
        script = pathlib.Path(tmp) / "record.py"
        script.write_text(RECORDER)
        p = subprocess.run([str(python), str(script), str(sdist)], capture_output=True, text=True,
                           cwd=tmp, timeout=600)
    if p.returncode != 0:
        raise SetupError(f"the recorder failed: {p.stderr[-1500:]}")
    return json.loads(p.stdout)


def scope(case):
    """(in scope, why not) of one case."""
    if case.get("rope_test", "").startswith(("failed", "skipped")):
        return False, f"rope's own test {case['rope_test']}"
    if "before" not in case:
        return False, "no ChangeSignature"
    outs = [op[1] for op in case.get("ops", []) if op[0] == "out"]
    if outs:
        return False, ", ".join(sorted(set(outs)))
    return True, ""


def lancet_args(case):
    """The `lancet signature` arguments for a case."""
    text = case["before"][case["path"]]
    offset = case["offset"]
    # rope takes an offset just past a name as on it (`index("C") + 1` in `class C(`).
    word = lambda i: 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")  # noqa: E731
    if not word(offset) and word(offset - 1):
        offset -= 1
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    args = ["signature", "--at", f"{case['path']}:{line}:{column}"]
    args += case.get("resources") or []
    ops = case.get("ops")
    if not ops:  # rope refused before any change: any change asks lancet the same question
        ops = [["add", {"name": "lancet_probe", "default": "None", "value": None, "appends": True}]]
    for kind, payload in ops:
        if kind == "remove":
            args += ["--remove", payload]
        elif kind == "reorder":
            args += ["--reorder", ",".join(payload)]
        elif kind == "add":
            spec = payload["name"]
            if payload["default"] is not None:
                spec += f"={payload['default']}"
            if not payload["appends"]:
                spec += f"@{payload['index']}"
            if payload["value"] is not None:
                spec += f":{payload['value']}"
            args += ["--add", spec]
    return args + ["--json", "--no-checkpoint", "--no-fsync"]


def normal(code):
    """The file's `ast.unparse(ast.parse(...))`, each run of imports sorted."""
    tree = ast.parse(code)
    body, run = [], []
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            run.append(stmt)
            continue
        body += sorted(run, key=ast.unparse)
        run = []
        body.append(stmt)
    tree.body = body + sorted(run, key=ast.unparse)
    return ast.unparse(tree)


def bound_calls(code, function):
    """The file's AST with each call of `function` replaced by its binding to the definition's
    parameters (param=value, sorted): two files that differ only in how the calls pass their
    arguments come out the same."""
    tree = ast.parse(code)
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function]
    if len(defs) != 1:
        return ast.dump(tree)
    a = defs[0].args
    positional = [p.arg for p in a.posonlyargs + a.args]

    class Bind(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name != function or any(isinstance(x, ast.Starred) for x in node.args) or any(
                    k.arg is None for k in node.keywords):
                return node
            params = positional
            if isinstance(node.func, ast.Attribute) and params[:1] in (["self"], ["cls"]):
                params = params[1:]
            if len(node.args) > len(params):
                return node
            binding = {p: ast.unparse(v) for p, v in zip(params, node.args)}
            binding.update({k.arg: ast.unparse(k.value) for k in node.keywords})
            return ast.Call(func=node.func, args=[], keywords=[
                ast.keyword(arg=k, value=ast.Name(id=v)) for k, v in sorted(binding.items())])

    return ast.dump(Bind().visit(tree))


def judge(case, lancet):
    """The outcome of one in-scope case: (outcome, detail)."""
    with tempfile.TemporaryDirectory(prefix="rope-case-") as tmp:
        root = pathlib.Path(tmp)
        for rel, text in case["before"].items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        args = lancet_args(case)
        p = subprocess.run([lancet, "-C", str(root)] + args, capture_output=True, text=True, timeout=120)
        try:
            report = json.loads(p.stdout)
        except json.JSONDecodeError:
            report = {}
        kind = (report.get("error") or {}).get("kind", "")
        after = {rel: (root / rel).read_text() for rel in case["before"] if (root / rel).exists()}
    command = "lancet " + " ".join(args[:-3])
    if case["rope"] == "refuses":
        if p.returncode in (1, 2):
            return "as rope", f"{command}: refused ({kind}); rope: {case.get('why', '')}"
        return "wrong", f"{command}: exit {p.returncode} where rope refuses ({case.get('why', '')})"
    if p.returncode in (1, 2):
        detail = f"{command}: {kind}: {(report.get('error') or {}).get('detail', '')[:160]}"
        contract = any(kind_ == "add" and op["default"] is None and op["value"] is None
                       for kind_, op in case.get("ops", []))
        return ("by contract" if contract else "refused"), detail
    if p.returncode != 0:
        return "wrong", f"{command}: exit {p.returncode}: {p.stderr[-300:]}"
    expected = case["after"]
    if after == expected:
        return "identical", command
    try:
        if all(normal(after[r]) == normal(expected[r]) for r in expected if r.endswith(".py")):
            return "equal", command
        function = report.get("signature", {}).get("function", "").rsplit(".", 1)[-1].rsplit(":", 1)[-1]
        if all(bound_calls(after[r], function) == bound_calls(expected[r], function)
               for r in expected if r.endswith(".py")):
            diff = [r for r in expected if after[r] != expected[r]]
            return "equivalent", f"{command}: {diff[0]}: lancet {after[diff[0]]!r} rope {expected[diff[0]]!r}"
    except SyntaxError as e:
        return "wrong", f"{command}: does not parse: {e}"
    diff = [r for r in expected if after.get(r) != expected[r]]
    return "wrong", f"{command}: {diff[0]}: lancet {after.get(diff[0])!r} rope {expected[diff[0]]!r}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lancet")
    ap.add_argument("--cache", help="cache directory (default: $XDG_CACHE_HOME/lancet-corpus/rope)")
    ap.add_argument("--only", help="only the tests whose names match this glob")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    ap.add_argument("--json", help="write every case's outcome here")
    args = ap.parse_args()
    lancet = str(pathlib.Path(args.lancet).resolve())
    cache = pathlib.Path(args.cache).resolve() if args.cache else default_cache()
    try:
        python, sdist = ensure_rope(cache)
        cases = record(python, sdist)
    except (SetupError, OSError, subprocess.TimeoutExpired) as e:
        log(f"cannot run rope's tests: {e}")
        return 2
    if args.only:
        cases = [c for c in cases if fnmatch.fnmatch(c["name"], args.only)]
    outcomes = []
    out_of_scope = []
    for case in cases:
        ok, why = scope(case)
        if not ok:
            out_of_scope.append((case["name"], why))
            continue
        outcome, detail = judge(case, lancet)
        outcomes.append({"name": case["name"], "rope": case["rope"], "outcome": outcome, "detail": detail})
    counts = {}
    for o in outcomes:
        counts[o["outcome"]] = counts.get(o["outcome"], 0) + 1
    print(f"rope {ROPE} change_signature_test.py: {len(cases)} tests, {len(outcomes)} in scope, "
          f"{len(out_of_scope)} out of scope")
    reasons = {}
    for _, why in out_of_scope:
        reasons[why] = reasons.get(why, 0) + 1
    for why, n in sorted(reasons.items()):
        print(f"  out of scope: {n} x {why}")
    for o in outcomes:
        if args.verbose or o["outcome"] not in ("identical", "equal", "as rope"):
            print(f"  {o['outcome']:10} {o['name']}: {o['detail']}")
    applies = [o for o in outcomes if o["rope"] == "applies"]
    matched = sum(1 for o in applies if o["outcome"] in ("identical", "equal"))
    judged = [o for o in applies if o["outcome"] != "by contract"]
    refuses = [o for o in outcomes if o["rope"] == "refuses"]
    as_rope = sum(1 for o in refuses if o["outcome"] == "as rope")
    ratio = matched / len(judged) if judged else 0.0
    print("  " + ", ".join(f"{k} {counts.get(k, 0)}" for k in
                           ("identical", "equal", "equivalent", "refused", "by contract", "as rope", "wrong")))
    print(f"  identical or equal: {matched} of the {len(judged)} cases rope applies that lancet's contract "
          f"allows ({ratio:.0%}); {matched} of all {len(applies)} rope applies "
          f"({matched / max(len(applies), 1):.0%}), {matched} of all {len(outcomes)} in scope "
          f"({matched / max(len(outcomes), 1):.0%}); rope's refusals refused: {as_rope} of {len(refuses)}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"outcomes": outcomes, "out_of_scope": out_of_scope}, indent=1))
    failed = counts.get("wrong", 0) > 0 or ratio < BAR or as_rope < len(refuses)
    print("FAIL" if failed else "PASS", f"(bar: {BAR:.0%} identical or equal, 0 wrong, every refusal of rope's refused)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

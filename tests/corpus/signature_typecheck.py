#!/usr/bin/env python3
"""Does the project still check after `lancet signature`? The type checker decides: functions of
real projects, chosen by a seeded rule, each get one change of their parameters in a fresh copy
of the project, and the copy is checked again.

Usage: tests/corpus/signature_typecheck.py LANCET_BIN [--project NAME[,NAME]] [--per-project N]
         [--seed S] [-j N] [-v] [--json OUT] [--cache DIR]

PROJECTS and checkers are rename_typecheck.py's (rename_oracle.py's pinned sources, laid out once
in its cache): requests 2.32.3 and flask 3.0.3, checked with `python3 -m compileall` and
basedpyright in "standard" mode; @tanstack/query-core 5.59.0 and @tanstack/table-core 8.21.3,
checked with `tsc --noEmit`; the ethers v5 workspace (six @ethersproject packages importing each
other by name), checked with `tsc --noEmit` at its root. Per project a BASELINE: the unchanged copy checked once.

THE CHOICE (seeded, default seed 39): every `def` under src/ (module functions and methods,
nested ones too) with at least one parameter besides `self`/`cls`, shuffled by
random.Random(seed + project); the first N (default 24) each get the change of kind
i % 4 that applies to it, trying the next kinds in turn when one does not:
  add      `--add lancet_new=None:None` (after the ordinary parameters)
  remove   `--remove P`, P its last parameter its body does not use (else its last) that is not
           the receiver, `*args` or `**kwargs`
  rename   `--rename P=P_renamed`, P a parameter chosen by the seed
  reorder  `--reorder B,A` for two neighbouring ordinary parameters A, B that both have a
           default or both have none
TypeScript: every function of src/ (a workspace: of each package's src.ts/; not .d.ts or tests) declared on one line with plain
parameters (`function name(a: T, b = 1)`, `const name = (a: T) =>`), the same kinds: add
`--add lancetNew=0:0`, remove its last parameter, rename one to NAMERenamed, swap two neighbours
alike in having a default or not.
`lancet signature --at PATH:LINE:COL CHANGE -C COPY --json --no-checkpoint --no-fsync`, with
no --include-unresolved and no --leave-unresolved.

OUTCOMES per change:
  checks    lancet wrote (exit 0) and the checker finds no diagnostic the baseline lacks (a
            renamed parameter's new name read back as the old one)
  refused   lancet wrote nothing (exit 1 or 2) and the copy is byte for byte as before; its
            kind is kept
  broken    lancet wrote and the checker reports a diagnostic the baseline lacks, or it
            refused and the copy changed
  error     anything else (no JSON report, a checker that could not run)

Exit 1 when any change is broken or error.
"""

import argparse
import ast
import collections
import concurrent.futures as cf
import hashlib
import json
import os
import pathlib
import random
import re
import shutil
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import rename_oracle as ro  # noqa: E402
import rename_typecheck as rt  # noqa: E402

PROJECTS = [k for k, p in ro.PROJECTS.items() if p["lang"] in ("python", "typescript")]
KINDS = ["add", "remove", "rename", "reorder"]
# A TypeScript function on one line: `function name(params)` (exported, async, generic) or
# `const name = (params) =>`.
TS_FUNCTION = re.compile(
    r"^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*(?P<f>[A-Za-z_$][\w$]*)\s*(?:<[^>()]*>)?\((?P<fp>[^()]*)\)"
    r"|^\s*(?:export\s+)?const\s+(?P<c>[A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?\((?P<cp>[^()]*)\)\s*(?::[^=]*)?=>")
TS_PARAM = re.compile(r"^\s*(?P<name>[A-Za-z_$][\w$]*)\s*(?P<opt>\?)?\s*(?::(?P<type>[^=]*))?(?:=(?P<default>.*))?$")


def ts_sources(root, key):
    """The folders whose TypeScript a project's functions are chosen from: src/, or in a
    workspace each package's sources (packages/*/src.ts)."""
    proj = ro.PROJECTS[key]
    if "workspace" in proj:
        return [d for take in proj["take"] for d in sorted((root / "packages").glob(f"*/{take}"))]
    return [root / "src"]


def ts_functions(root, key):
    """Every one-line TypeScript function of the project's sources with plain parameters (no
    destructuring, no nested brackets): (path, line, column, names, defaults)."""
    out = []
    for path in sorted(p for d in ts_sources(root, key) for p in d.rglob("*.ts")):
        if path.name.endswith(".d.ts") or ".test." in path.name:
            continue
        rel = str(path.relative_to(root))
        for n, line in enumerate(path.read_text().splitlines(), 1):
            m = TS_FUNCTION.match(line)
            if not m:
                continue
            name, plist = (m["f"], m["fp"]) if m["f"] else (m["c"], m["cp"])
            params = [p for p in plist.split(",") if p.strip()]
            parsed = [TS_PARAM.match(p) for p in params]
            if not parsed or any(p is None or "<" in (p["type"] or "") for p in parsed):
                continue
            column = line.index(name, m.start("f") if m["f"] else m.start("c")) + 1
            out.append((rel, n, column, name, [p["name"] for p in parsed],
                        [bool(p["opt"] or p["default"]) for p in parsed]))
    return out


def ts_change_for(names, defaulted, kind, rng):
    """The change of `kind` for a TypeScript function, or None when it does not apply."""
    if kind == "add":
        return None if "lancetNew" in names else ["--add", "lancetNew=0:0"]
    if kind == "remove":
        return ["--remove", names[-1]]
    if kind == "rename":
        return ["--rename", f"{(p := rng.choice(names))}={p}Renamed"]
    pairs = [(names[i], names[i + 1]) for i in range(len(names) - 1) if defaulted[i] == defaulted[i + 1]]
    if not pairs:
        return None
    first, second = rng.choice(pairs)
    return ["--reorder", f"{second},{first}"]


def functions(root):
    """Every def under src/ with a parameter besides the receiver: (path, line, column, node)."""
    out = []
    for path in sorted((root / "src").rglob("*.py")):
        rel = str(path.relative_to(root))
        text = path.read_text()
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        lines = text.splitlines()
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            m = re.search(rf"\bdef\s+({re.escape(node.name)})\b", lines[node.lineno - 1])
            if not m:
                continue
            if params(node)[1:] or (params(node) and params(node)[0] not in ("self", "cls")):
                out.append((rel, node.lineno, m.start(1) + 1, node))
    return out


def params(node):
    a = node.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def change_for(node, kind, rng):
    """The change of `kind` for a def, or None when it does not apply."""
    a = node.args
    ordinary = a.posonlyargs + a.args
    receiver = ordinary[:1] if ordinary and ordinary[0].arg in ("self", "cls") else []
    named = [p.arg for p in ordinary[len(receiver):] + a.kwonlyargs]
    if kind == "add":
        if "lancet_new" in named:
            return None
        return ["--add", "lancet_new=None:None"]
    if kind == "remove":
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        unused = [p for p in named if p not in used]
        return ["--remove", (unused or named)[-1]] if named else None
    if kind == "rename":
        return ["--rename", f"{(p := rng.choice(named))}={p}_renamed"] if named else None
    if kind == "reorder":
        defaults = len(a.defaults)
        plain = a.posonlyargs + a.args
        has_default = [i >= len(plain) - defaults for i in range(len(plain))]
        pairs = [(plain[i].arg, plain[i + 1].arg) for i in range(len(receiver), len(plain) - 1)
                 if has_default[i] == has_default[i + 1] and i + 1 >= len(a.posonlyargs)
                 and i >= len(a.posonlyargs)]
        if not pairs:
            return None
        first, second = rng.choice(pairs)
        return ["--reorder", f"{second},{first}"]
    return None


def choose(root, key, count, seed):
    """The seeded choice of (path, line, column, change) for one project."""
    rng = random.Random(f"{seed}:{key}")
    if ro.PROJECTS[key]["lang"] == "typescript":
        found = ts_functions(root, key)
        rng.shuffle(found)
        chosen = []
        for path, line, column, name, names, defaulted in found:
            if len(chosen) == count:
                break
            for k in range(len(KINDS)):
                kind = KINDS[(len(chosen) + k) % len(KINDS)]
                change = ts_change_for(names, defaulted, kind, rng)
                if change:
                    chosen.append({"project": key, "path": path, "line": line, "column": column,
                                   "function": name, "kind": kind, "change": change})
                    break
        return chosen
    found = functions(root)
    rng.shuffle(found)
    chosen = []
    for i, (path, line, column, node) in enumerate(found):
        if len(chosen) == count:
            break
        for k in range(len(KINDS)):
            kind = KINDS[(len(chosen) + k) % len(KINDS)]
            change = change_for(node, kind, rng)
            if change:
                chosen.append({"project": key, "path": path, "line": line, "column": column,
                               "function": node.name, "kind": kind, "change": change})
                break
    return chosen


def digest(root):
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".lancet" not in p.parts:
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def change_and_check(lancet, root, case, tools, baseline, env, flags=()):
    res = dict(case)
    with tempfile.TemporaryDirectory(prefix="lancet-sigcheck-") as tmp:
        copy = rt.copy_project(root, tmp)
        before = digest(copy)
        argv = [lancet, "signature", "--at", f"{case['path']}:{case['line']}:{case['column']}",
                *case["change"], "-C", str(copy), "--json", "--no-checkpoint", "--no-fsync", *flags]
        rc, out, err = ro.run_proc(argv, ro.LANCET_TIMEOUT, env)
        report = ro.parse_report(out)
        if rc in (1, 2) and report is not None:
            if digest(copy) != before:
                return {**res, "outcome": "broken", "message": "refused, and the copy changed"}
            error = report.get("error") or {}
            return {**res, "outcome": "refused", "kind_refused": error.get("kind", ""),
                    "message": ro.report_message(report, err)[:300]}
        if rc != 0 or report is None:
            return {**res, "outcome": "error",
                    "message": f"lancet exit {rc}: {ro.report_message(report, err)[:300]}"}
        summary = report.get("signature") or {}
        res["calls"] = len(summary.get("calls") or [])
        res["definitions"] = len(summary.get("definitions") or [])
        lang = ro.PROJECTS[case["project"]]["lang"]
        try:
            after = rt.CHECKERS[lang](copy, tools)
        except RuntimeError as e:
            return {**res, "outcome": "error", "message": str(e)}
        if case["kind"] == "rename":
            old, new = case["change"][1].split("=")
            after = rt.normalized(after, old, new)
        fresh = after - baseline
        if fresh:
            shown = [f"{f}: {code} {msg}" for (f, code, msg) in list(fresh)[:5]]
            return {**res, "outcome": "broken", "new_diagnostics": shown}
        return {**res, "outcome": "checks"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet")
    ap.add_argument("--project", help="comma-separated projects (default: requests, flask, query-core, table-core, ethers)")
    ap.add_argument("--per-project", type=int, default=24, help="changes per project (default 24)")
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("--cache", help="cache directory (rename_oracle.py's)")
    ap.add_argument("--flags", default="", help="extra signature flags, space-separated (--include-unresolved)")
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
        tools = {}
        if "python" in langs:
            tools["python"] = rt.basedpyright_command(cache)
        if "typescript" in langs:
            tools["typescript"] = rt.tsc_command(cache)
        roots = {k: ro.lay_project(cache, k, empty_env) for k in keys}
    except ro.SetupError as e:
        ro.log(f"setup failed: {e}")
        sys.exit(2)
    cases = [c for k in keys for c in choose(roots[k], k, args.per_project, args.seed)]
    ro.log(f"signature typecheck: {len(cases)} changes in {', '.join(keys)} (seed {args.seed}; "
           f"{args.flags or 'default flags'})")
    baselines = {}
    for k in keys:
        with tempfile.TemporaryDirectory(prefix="lancet-sigcheck-base-") as tmp:
            try:
                baselines[k] = rt.CHECKERS[ro.PROJECTS[k]["lang"]](rt.copy_project(roots[k], tmp), tools)
            except RuntimeError as e:
                ro.log(f"setup failed: the baseline check of {k}: {e}")
                sys.exit(2)
        ro.log(f"  baseline {k}: {sum(baselines[k].values())} diagnostic(s)")
    env = dict(os.environ)
    results = []
    with cf.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        futs = [ex.submit(change_and_check, lancet, roots[c["project"]], c, tools, baselines[c["project"]], env,
                          args.flags.split()) for c in cases]
        for f in futs:
            r = f.result()
            results.append(r)
            if args.verbose or r["outcome"] in ("broken", "error"):
                what = f"{r['path']}:{r['line']} {r['function']} {' '.join(r['change'])}"
                extra = r.get("kind_refused") or r.get("message", "")
                if r["outcome"] == "checks":
                    extra = f"{r.get('definitions', 0)} definition(s), {r.get('calls', 0)} call(s)"
                ro.log(f"  {r['outcome']:8} {what}: {extra}".rstrip())
                for d in r.get("new_diagnostics", []):
                    ro.log(f"      new: {d[:200]}")
    outcomes = ["checks", "refused", "broken", "error"]
    ro.log()
    ro.log(f"{'project':12} {'changes':>7} " + " ".join(f"{o:>8}" for o in outcomes) + f" {'calls':>6}")
    total = collections.Counter()
    for k in keys:
        c = collections.Counter(r["outcome"] for r in results if r["project"] == k)
        calls = sum(r.get("calls", 0) for r in results if r["project"] == k and r["outcome"] == "checks")
        total.update(c)
        ro.log(f"{k:12} {sum(c.values()):7} " + " ".join(f"{c[o]:8}" for o in outcomes) + f" {calls:6}")
    ro.log(f"{'total':12} {sum(total.values()):7} " + " ".join(f"{total[o]:8}" for o in outcomes))
    by_kind = collections.Counter((r["kind"], r["outcome"]) for r in results)
    ro.log("by change: " + "; ".join(
        f"{k}: " + ", ".join(f"{n} {o}" for (kk, o), n in sorted(by_kind.items()) if kk == k) for k in KINDS))
    refused = collections.Counter(r.get("kind_refused", "") for r in results if r["outcome"] == "refused")
    if refused:
        ro.log("refused by kind: " + ", ".join(f"{n} {k}" for k, n in refused.most_common()))
    ro.log(f"signature typecheck: {total['checks']} check, {total['refused']} refused, {total['broken']} broken, "
           f"{total['error']} error ({time.monotonic() - t0:.0f} s)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    sys.exit(1 if total["broken"] or total["error"] else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""`lancet move` against TypeScript's own "Move to file" refactor: the moves move_typecheck.py
chooses on the TypeScript projects, each done by lancet and by TypeScript's LanguageService in
two fresh git copies, and the two results compared.

Usage: tests/corpus/tsserver_move.py LANCET_BIN [--project NAME[,NAME]] [--per-project N]
         [--seed S] [-j N] [-v] [--json OUT] [--cache DIR]

TYPESCRIPT is rename_oracle.py's (typescript 5.6.3 from npm, beside typescript-language-server,
in its cache); the projects are @tanstack/query-core 5.59.0 and @tanstack/table-core 8.21.3 as
rename_oracle.py lays them out, with their tsconfig.json. tests/corpus/ts_move_to_file.js asks
the LanguageService for the refactors it offers at the symbol's name (interactive ones included)
and, when "Move to file" is offered, applies its edits with the destination as target file (an
existing module, or a new one: the same choice as move_typecheck.py's). Lancet runs `lancet move
NAME --at PATH:LINE:COL --to DEST -C COPY --json --no-checkpoint --no-fsync`.

OUTCOMES per move (both sides judged by `git status` of their copy):
  agree        both applied, the same files changed, and every changed file is equal after
               ts_move_to_file.js's normalisation (TypeScript's printer; string literals
               re-quoted, named imports of one module in several declarations merged into one,
               runs of imports and the names inside import/export braces sorted): formatting
               only
  lancet right both applied and differ, and `tsc --noEmit` finds new errors (against the
               unchanged project) on tsserver's side and none on lancet's: a result that does not
               compile is not one to equal (the issue's bar is equality where both apply)
  comments     both applied, the same files changed, neither side breaks tsc, and the normalised
               texts differ only in where whole comment lines stand (the same comments on both
               sides, no comment lost): tsserver moves every comment between the
               previous statement and the declaration (a section heading such as `// Utils` with
               a blank line under it), lancet only those directly above it, with no blank line
               between (DESIGN.md's move contract; rope's test_moving_with_comment_prefix)
  differ       both applied and the changed files or their normalised texts differ otherwise:
               the detail names the files only one side changed and the first differing lines,
               and says which side `tsc --noEmit` finds new errors on
  only lancet  lancet applied; TypeScript did not offer the refactor (its reason)
  only tsserver  TypeScript applied; lancet refused (its kind)
  neither      both declined
  error        no JSON report from lancet, or lancet exited otherwise

A comparison, not a gate on agreement: exit 1 only on error, or when lancet changed the tree
while refusing.
"""

import argparse
import collections
import concurrent.futures as cf
import difflib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import move_typecheck as mt  # noqa: E402  (the moves are its choice)
import rename_oracle as ro  # noqa: E402
import rename_typecheck as rt  # noqa: E402

SCRIPT = HERE / "ts_move_to_file.js"
PROJECTS = [k for k, p in ro.PROJECTS.items() if p["lang"] == "typescript"]


def node(typescript, *argv):
    p = subprocess.run(["node", str(SCRIPT), str(typescript), *argv], capture_output=True, text=True,
                       timeout=rt.CHECK_TIMEOUT)
    if p.returncode != 0:
        raise RuntimeError(f"ts_move_to_file.js {argv[0]}: exit {p.returncode}: {p.stderr[-300:]}")
    return json.loads(p.stdout.splitlines()[-1])


def changed_files(copy):
    """The root-relative paths `git status` shows changed or new."""
    return sorted(line[3:].strip() for line in mt.changed(copy))


def new_errors(copy, tools, baseline):
    fresh = rt.check_typescript(copy, tools) - baseline
    return [f"{f}: {code} {msg}" for (f, code, msg) in fresh]


def first_difference(a, b):
    diff = [ln for ln in difflib.unified_diff((b or "").splitlines(), (a or "").splitlines(), lineterm="", n=0)
            if not ln.startswith(("---", "+++", "@@"))]
    return " | ".join(d[:160] for d in diff[:4])


def comments_placed_otherwise(a, b, files):
    """Whether lancet's texts `a` and tsserver's `b` differ only in where whole comment lines
    stand: every differing line a comment, and the same comments on both sides overall."""
    theirs, ours = collections.Counter(), collections.Counter()
    for f in files:
        diff = difflib.unified_diff((b[f] or "").splitlines(), (a[f] or "").splitlines(), lineterm="", n=0)
        for ln in diff:
            if ln.startswith(("---", "+++", "@@")):
                continue
            text = ln[1:].strip()
            if not text.startswith(("//", "/*", "*")):
                return False
            (theirs if ln.startswith("-") else ours)[text] += 1
    return theirs == ours


def compare(lancet, typescript, root, case, tools, baseline, env):
    res = dict(case)
    with tempfile.TemporaryDirectory(prefix="lancet-tsmove-") as tmp:
        ours = mt.git_copy(root, pathlib.Path(tmp, "lancet"))
        theirs = mt.git_copy(root, pathlib.Path(tmp, "tsserver"))
        argv = [lancet, "move", case["name"], "--at", f"{case['path']}:{case['line']}:{case['column']}",
                "--to", case["to"], "-C", str(ours), "--json", "--no-checkpoint", "--no-fsync"]
        rc, out, err = ro.run_proc(argv, ro.LANCET_TIMEOUT, env)
        report = ro.parse_report(out)
        ts = node(typescript, "move", str(theirs), case["path"], str(case["line"]), str(case["column"]), case["to"])
        lancet_files, ts_files = changed_files(ours), changed_files(theirs)
        if rc in (1, 2) and report is not None:
            kind = (report.get("error") or {}).get("kind", "")
            if lancet_files:
                return {**res, "outcome": "error", "message": f"lancet refused ({kind}) and changed {lancet_files}"}
            if ts["applied"]:
                return {**res, "outcome": "only tsserver", "message": f"lancet refused: {kind}: "
                        f"{ro.report_message(report, err)[:200]}"}
            return {**res, "outcome": "neither", "message": f"lancet: {kind}; tsserver: {ts['reason']}"}
        if rc != 0 or report is None:
            return {**res, "outcome": "error", "message": f"lancet exit {rc}: {ro.report_message(report, err)[:300]}"}
        if not ts["applied"]:
            return {**res, "outcome": "only lancet", "message": f"tsserver: {ts['reason']}"}
        files = sorted(set(lancet_files) | set(ts_files))
        a = node(typescript, "print", str(ours), *files)
        b = node(typescript, "print", str(theirs), *files)
        if lancet_files == ts_files and a == b:
            return {**res, "outcome": "agree", "files": len(files)}
        why = []
        if set(lancet_files) - set(ts_files):
            why.append(f"only lancet changed {sorted(set(lancet_files) - set(ts_files))}")
        if set(ts_files) - set(lancet_files):
            why.append(f"only tsserver changed {sorted(set(ts_files) - set(lancet_files))}")
        for f in files:
            if a[f] != b[f] and f in lancet_files and f in ts_files:
                why.append(f"{f}: tsserver/lancet {first_difference(a[f], b[f])}")
        ours_new, theirs_new = new_errors(ours, tools, baseline), new_errors(theirs, tools, baseline)
        why.append(f"tsc new errors: lancet {len(ours_new)}, tsserver {len(theirs_new)}"
                   + (f" (tsserver: {theirs_new[0][:200]})" if theirs_new else "")
                   + (f" (lancet: {ours_new[0][:200]})" if ours_new else ""))
        if theirs_new and not ours_new:
            outcome = "lancet right"
        elif (lancet_files == ts_files and not theirs_new and not ours_new
              and comments_placed_otherwise(a, b, files)):
            outcome = "comments"
        else:
            outcome = "differ"
        return {**res, "outcome": outcome, "message": "; ".join(why), "lancet_new_errors": len(ours_new),
                "tsserver_new_errors": len(theirs_new)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet")
    ap.add_argument("--project", help="comma-separated projects (default: query-core, table-core)")
    ap.add_argument("--per-project", type=int, default=24, help="moves per project (default 24, as move_typecheck.py)")
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("--cache", help="cache directory (rename_oracle.py's)")
    args = ap.parse_args()
    lancet = os.path.abspath(args.lancet)
    t0 = time.monotonic()
    keys = [k.strip() for k in args.project.split(",")] if args.project else PROJECTS
    cache = ro.cache_root(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    try:
        empty_env = ro.ensure_empty_env(cache)
        tools = {"typescript": rt.tsc_command(cache)}
        typescript = pathlib.Path(tools["typescript"][1]).parent.parent
        roots = {k: ro.lay_project(cache, k, empty_env) for k in keys}
    except ro.SetupError as e:
        ro.log(f"setup failed: {e}")
        sys.exit(2)
    cases = [c for k in keys for c in mt.choose(roots[k], k, args.per_project, args.seed)]
    ro.log(f"tsserver move: {len(cases)} moves in {', '.join(keys)} (seed {args.seed}), "
           f"typescript {json.loads((typescript / 'package.json').read_text())['version']}")
    baselines = {}
    for k in keys:
        with tempfile.TemporaryDirectory(prefix="lancet-tsmove-base-") as tmp:
            baselines[k] = rt.check_typescript(rt.copy_project(roots[k], tmp), tools)
    env = dict(os.environ)
    results = []
    with cf.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        futs = [ex.submit(compare, lancet, typescript, roots[c["project"]], c, tools, baselines[c["project"]], env)
                for c in cases]
        for f in futs:
            try:
                r = f.result()
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
                r = {"outcome": "error", "message": str(e), "project": "?", "path": "?", "line": 0, "name": "?",
                     "to": "?", "kind": "?"}
            results.append(r)
            if args.verbose or r["outcome"] not in ("agree",):
                what = f"{r['path']}:{r['line']} {r['name']} --to {r['to']}"
                ro.log(f"  {r['outcome']:13} {what}: {r.get('message', '')}".rstrip())
    outcomes = ["agree", "lancet right", "comments", "differ", "only lancet", "only tsserver", "neither", "error"]
    ro.log()
    ro.log(f"{'project':12} {'moves':>6} " + " ".join(f"{o:>13}" for o in outcomes))
    total = collections.Counter()
    for k in keys:
        c = collections.Counter(r["outcome"] for r in results if r["project"] == k)
        total.update(c)
        ro.log(f"{k:12} {sum(c.values()):6} " + " ".join(f"{c[o]:13}" for o in outcomes))
    ro.log(f"{'total':12} {sum(total.values()):6} " + " ".join(f"{total[o]:13}" for o in outcomes))
    differ = [r for r in results if r["outcome"] == "differ"]
    if differ:
        ro.log(f"differ: tsc finds new errors on lancet's side in {sum(1 for r in differ if r['lancet_new_errors'])}, "
               f"on tsserver's side in {sum(1 for r in differ if r['tsserver_new_errors'])} of {len(differ)}")
    if total["lancet right"]:
        ro.log(f"lancet right: {total['lancet right']} where both applied and tsc finds new errors on tsserver's side "
               f"alone (not a result to equal)")
    if total["comments"]:
        ro.log(f"comments: {total['comments']} equal but for a comment above the declaration with a blank line "
               f"under it, which tsserver moves and lancet leaves")
    ro.log(f"tsserver move: {total['agree']} agree, {total['lancet right']} lancet right, {total['comments']} comments, "
           f"{total['differ']} differ, {total['only lancet']} only lancet, "
           f"{total['only tsserver']} only tsserver, {total['neither']} neither, {total['error']} error "
           f"({time.monotonic() - t0:.0f} s)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    sys.exit(1 if total["error"] else 0)


if __name__ == "__main__":
    main()

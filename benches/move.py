#!/usr/bin/env python3
"""A move against a rename of the same symbol, over the CPython standard library (issue #39's
speed row: a move answers within the time of a rename).

For each function of FUNCTIONS (module functions of the stdlib with uses across it), the same
definition is named by position and both commands run on a copy of the stdlib (the Python that
runs this script, without site-packages, test/ and __pycache__), each `--dry-run --json
--leave-unresolved` (everything found, computed, gated and reported; nothing written, so every
run sees the same tree):

    lancet rename --at PATH:LINE:COL NAME_x
    lancet move   --at PATH:LINE:COL --to DIR/lancet_moved.py

(a new module beside the old one). Every figure is the median of --runs runs (default 5), the
commands interleaved run by run; CPU (user + system, the kernel's count for the process) and
wall are both given (benches/stdlib_pairs.py). BAR (issue #39): the move's CPU and wall medians
are at most the rename's, function by function (the two share the walk, scan and resolution;
the move's own work must fit in what the rename spends on its renamed files). With --before
BINARY the same pair runs with another build too, interleaved, and its ratios are printed
beside (a before/after comparison under one load). Exit 1 when a command fails or a row misses
the bar.

A TypeScript row does the same in @tanstack/query-core 5.59.0 (`matchMutation` of src/utils.ts
moved to a new src/matching.ts), taken from tests/corpus/rename_oracle.py's cache of fetched
projects (--cache as that script takes it); without it the row is skipped, saying so.

    python3 benches/move.py [--lancet target/release/lancet] [--runs 5] [--before OLD_BINARY]
"""

import argparse
import os
import pathlib
import re
import shutil
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from stdlib_pairs import copy_stdlib, load, pairs, place  # noqa: E402

TS_PROJECT, TS_FILE, TS_FUNCTION, TS_TO = "query-core-5.59.0", "src/utils.ts", "matchMutation", "src/matching.ts"
FUNCTIONS = [
    ("textwrap.py", "indent"),
    ("posixpath.py", "splitext"),
    ("json/__init__.py", "dumps"),
    ("shutil.py", "which"),
    ("string.py", "capwords"),
]
BAR = 1.0


def ts_project(cache, into):
    """The cached TypeScript project copied under `into` and the function's place, or None."""
    base = pathlib.Path(cache) if cache else pathlib.Path(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "lancet-corpus"
    src = base / "rename" / "projects" / TS_PROJECT
    if not (src / TS_FILE).exists():
        return None
    dest = into / "ts"
    shutil.copytree(src, dest, symlinks=True)
    for i, line in enumerate((dest / TS_FILE).read_text(encoding="utf-8").splitlines(), 1):
        m = re.match(rf"export function ({TS_FUNCTION})\b", line)
        if m:
            return dest, f"{TS_FILE}:{i}:{m.start(1) + 1}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lancet", default="target/release/lancet")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--before", help="another build of lancet, timed in the same runs")
    ap.add_argument("--cache", help="rename_oracle.py's cache of fetched projects (default: its own)")
    args = ap.parse_args()
    builds = {"": str(pathlib.Path(args.lancet).resolve())}
    if args.before:
        builds["before "] = str(pathlib.Path(args.before).resolve())
    rows, missed = [], []
    ts_note = None
    loads = [load()]
    with tempfile.TemporaryDirectory(prefix="lancet-move-bench-") as tmp:
        root = pathlib.Path(tmp)
        lib = copy_stdlib(root)
        cases = [(f"{rel}::{name}", root, place(lib, rel, name), name,
                  str(pathlib.PurePosixPath("lib", rel).parent / "lancet_moved.py")) for rel, name in FUNCTIONS]
        ts = ts_project(args.cache, root)
        if ts:
            cases.append((f"{TS_PROJECT} {TS_FILE}::{TS_FUNCTION} (TypeScript)", ts[0], ts[1], TS_FUNCTION, TS_TO))
        else:
            ts_note = f"TypeScript row skipped: {TS_PROJECT} is not in rename_oracle.py's cache (run it once)"
        for label, tree, at, name, to in cases:
            flags = ["--dry-run", "--json", "--leave-unresolved"]
            commands = {}
            for build, lancet in builds.items():
                commands[build + "rename"] = [lancet, "-C", str(tree), "rename", "--at", at, f"{name}_x"] + flags
                commands[build + "move"] = [lancet, "-C", str(tree), "move", "--at", at, "--to", to] + flags
            med, reports = pairs(commands, args.runs, tree)
            loads.append(load())
            ratios = {b: (med[b + "move"][1] / med[b + "rename"][1], med[b + "move"][0] / med[b + "rename"][0])
                      for b in builds}
            sites = len(reports["rename"]["rename"]["renamed"])
            moved = len(reports["move"]["move"]["sites"])
            rows.append((label, med["rename"], sites, med["move"], moved, ratios))
            if max(ratios[""]) > BAR:
                missed.append(f"{label} CPU {ratios[''][0]:.2f}x wall {ratios[''][1]:.2f}x")
    print(f"## move vs rename of the same function over the stdlib ({args.runs} runs each, medians; "
          f"load {min(loads):.1f}-{max(loads):.1f})\n")
    before = " | before: move / rename CPU, wall" if args.before else ""
    print("| function | rename CPU / wall | sites renamed | move CPU / wall | imports and uses updated "
          f"| move / rename CPU | wall{before} |")
    print("|---|---:|---:|---:|---:|---:|---:" + ("|---:" if args.before else "") + "|")
    for fn, (rw, rc), sites, (mw, mc), moved, ratios in rows:
        old = f" | {ratios['before '][0]:.2f}x, {ratios['before '][1]:.2f}x" if args.before else ""
        print(f"| {fn} | {rc:.3f} s / {rw:.3f} s | {sites} | {mc:.3f} s / {mw:.3f} s | {moved} "
              f"| {ratios[''][0]:.2f}x | {ratios[''][1]:.2f}x{old} |")
    if ts_note:
        print(f"\n{ts_note}")
    print(f"\nbar: move / rename <= {BAR}x per function, CPU and wall: "
          + ("PASS" if not missed else "FAIL " + ", ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

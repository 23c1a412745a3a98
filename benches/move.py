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
two commands interleaved run by run. BAR: the move's median is at most 1.25x the rename's,
function by function (the two do the same walk, scan and resolution; the move reads the moved
code's names and each importer's imports on top). Exit 1 when a command fails or a row misses
the bar.

    python3 benches/move.py [--lancet target/release/lancet] [--runs 5]
"""

import argparse
import json
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

FUNCTIONS = [
    ("textwrap.py", "indent"),
    ("posixpath.py", "splitext"),
    ("json/__init__.py", "dumps"),
    ("shutil.py", "which"),
    ("string.py", "capwords"),
]
BAR = 1.25


def copy_stdlib(into):
    src = pathlib.Path(sysconfig.get_paths()["stdlib"])
    dest = into / "lib"
    shutil.copytree(src, dest, symlinks=True,
                    ignore=shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__", "test"))
    return dest


def place(lib, rel, name):
    lines = (lib / rel).read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines, 1):
        m = re.match(rf"def ({re.escape(name)})\(", line)
        if m:
            return f"lib/{rel}:{i}:{m.start(1) + 1}"
    raise SystemExit(f"no `def {name}` at the top of {rel}")


def timed(argv, cwd):
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    try:
        report = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}, no report: {p.stderr[-400:]}")
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}: {report.get('message', '')[:400]}")
    return dt, report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lancet", default="target/release/lancet")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    lancet = str(pathlib.Path(args.lancet).resolve())
    rows, missed = [], []
    with tempfile.TemporaryDirectory(prefix="lancet-move-bench-") as tmp:
        root = pathlib.Path(tmp)
        lib = copy_stdlib(root)
        for rel, name in FUNCTIONS:
            at = place(lib, rel, name)
            to = str(pathlib.PurePosixPath("lib", rel).parent / "lancet_moved.py")
            commands = {
                "rename": [lancet, "-C", str(root), "rename", "--at", at, f"{name}_x"],
                "move": [lancet, "-C", str(root), "move", "--at", at, "--to", to],
            }
            times = {k: [] for k in commands}
            reports = {}
            for _ in range(args.runs):
                for k, argv in commands.items():
                    dt, reports[k] = timed(argv + ["--dry-run", "--json", "--leave-unresolved"], root)
                    times[k].append(dt)
            med = {k: statistics.median(v) for k, v in times.items()}
            ratio = med["move"] / med["rename"]
            sites = len(reports["rename"]["rename"]["renamed"])
            moved = len(reports["move"]["move"]["sites"])
            rows.append((f"{rel}::{name}", med["rename"], sites, med["move"], moved, ratio))
            if ratio > BAR:
                missed.append(f"{rel}::{name} {ratio:.2f}x")
    print(f"## move vs rename of the same function over the stdlib ({args.runs} runs each, medians)\n")
    print("| function | rename | sites renamed | move | imports and uses updated | move / rename |")
    print("|---|---:|---:|---:|---:|---:|")
    for fn, r, sites, s, moved, ratio in rows:
        print(f"| {fn} | {r:.3f} s | {sites} | {s:.3f} s | {moved} | {ratio:.2f}x |")
    print(f"\nbar: move / rename <= {BAR}x per function: " + ("PASS" if not missed else "FAIL " + ", ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

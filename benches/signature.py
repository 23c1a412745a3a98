#!/usr/bin/env python3
"""A signature change against a rename of the same function, over the CPython standard library
(issue #39's speed row: a signature change answers within the time of a rename).

For each function of FUNCTIONS (module functions of the stdlib with calls across it), the same
definition is named by position and both commands run on a copy of the stdlib (the Python that
runs this script, without site-packages, test/ and __pycache__), each `--dry-run --json
--leave-unresolved` (everything found, computed, gated and reported; nothing written, so every
run sees the same tree):

    lancet rename    --at PATH:LINE:COL NAME_x
    lancet signature --at PATH:LINE:COL --add lancet_x=None:None

Every figure is the median of --runs runs (default 5), the commands interleaved run by run; CPU
(user + system, the kernel's count for the process) and wall are both given
(benches/stdlib_pairs.py). BAR (issue #39): the signature change's CPU and wall medians are at
most the rename's, function by function (the two share the walk, scan and resolution; reading
each call's arguments must fit in what the rename spends on its renamed files). With --before
BINARY the same pair runs with another build too, interleaved, and its ratios are printed
beside. Exit 1 when a command fails or a row misses the bar.

    python3 benches/signature.py [--lancet target/release/lancet] [--runs 5] [--before OLD_BINARY]
"""

import argparse
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from stdlib_pairs import copy_stdlib, load, pairs, place  # noqa: E402

FUNCTIONS = [
    ("textwrap.py", "dedent"),
    ("shlex.py", "quote"),
    ("urllib/parse.py", "urlparse"),
    ("posixpath.py", "splitext"),
    ("json/__init__.py", "dumps"),
]
BAR = 1.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lancet", default="target/release/lancet")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--before", help="another build of lancet, timed in the same runs")
    args = ap.parse_args()
    builds = {"": str(pathlib.Path(args.lancet).resolve())}
    if args.before:
        builds["before "] = str(pathlib.Path(args.before).resolve())
    rows, missed = [], []
    loads = [load()]
    with tempfile.TemporaryDirectory(prefix="lancet-signature-bench-") as tmp:
        root = pathlib.Path(tmp)
        lib = copy_stdlib(root)
        for rel, name in FUNCTIONS:
            at = place(lib, rel, name)
            flags = ["--dry-run", "--json", "--leave-unresolved"]
            commands = {}
            for build, lancet in builds.items():
                commands[build + "rename"] = [lancet, "-C", str(root), "rename", "--at", at, f"{name}_x"] + flags
                commands[build + "signature"] = [lancet, "-C", str(root), "signature", "--at", at,
                                                 "--add", "lancet_x=None:None"] + flags
            med, reports = pairs(commands, args.runs, root)
            loads.append(load())
            ratios = {b: (med[b + "signature"][1] / med[b + "rename"][1],
                          med[b + "signature"][0] / med[b + "rename"][0]) for b in builds}
            sites = len(reports["rename"]["rename"]["renamed"])
            calls = len(reports["signature"]["signature"]["calls"])
            rows.append((f"{rel}::{name}", med["rename"], sites, med["signature"], calls, ratios))
            if max(ratios[""]) > BAR:
                missed.append(f"{rel}::{name} CPU {ratios[''][0]:.2f}x wall {ratios[''][1]:.2f}x")
    print(f"## signature vs rename of the same function over the stdlib ({args.runs} runs each, medians; "
          f"load {min(loads):.1f}-{max(loads):.1f})\n")
    before = " | before: signature / rename CPU, wall" if args.before else ""
    print("| function | rename CPU / wall | sites renamed | signature CPU / wall | calls updated "
          f"| signature / rename CPU | wall{before} |")
    print("|---|---:|---:|---:|---:|---:|---:" + ("|---:" if args.before else "") + "|")
    for fn, (rw, rc), sites, (sw, sc), calls, ratios in rows:
        old = f" | {ratios['before '][0]:.2f}x, {ratios['before '][1]:.2f}x" if args.before else ""
        print(f"| {fn} | {rc:.3f} s / {rw:.3f} s | {sites} | {sc:.3f} s / {sw:.3f} s | {calls} "
              f"| {ratios[''][0]:.2f}x | {ratios[''][1]:.2f}x{old} |")
    print(f"\nbar: signature / rename <= {BAR}x per function, CPU and wall: "
          + ("PASS" if not missed else "FAIL " + ", ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

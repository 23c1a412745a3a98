#!/usr/bin/env python3
"""What a call costs: lancet against `git apply` and `ast-grep` on the same work, measured in the
same run, pair by pair (A B A B ...), medians of the per-pair ratios (issue #37's table).

Rows:
  small       one small patch (one line of one file) in a 200-file git repository, defaults
  small-nofs  the same with --no-fsync
  small-100k  the same in a 100,000-file repository (benches/gen_tree.py)
  wide        a 200-file patch (a line in each) in the 200-file repository
  wide-100k   the same 200-file patch in the 100,000-file repository
  mod-100k    `lancet mod` rewriting the ~500 files of the 100k tree that call log_event
              (Python, TypeScript and Rust rules) against `ast-grep scan --update-all`
  undo-mod    `lancet undo` of that mod against the mod itself
(`python3 benches/scale.py --only rename` measures the stdlib rename against ast-grep.)

Each timed command starts from the same tree: a patch is taken back (and a mod's files put back
with `git checkout`) between runs, untimed. Bars (issue #37): small <= 2.0x (stretch 1.5x),
small-nofs <= 1.5x, small-100k <= 1.5x, wide and wide-100k <= 1.2x, mod-100k <= 1.3x, undo-mod
<= 1.0x of the mod.

Usage: percall.py [LANCET] [-n PAIRS] [--only ROW[,ROW]] [--trees DIR]
The trees are made once under --trees (default ~/.cache/lancet-bench); ast-grep is the mod
conformance corpus's pinned version (found, or installed into its cache). Python 3 standard library only; needs git.
"""
import argparse
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "corpus"))
import mod_conformance  # noqa: E402  (ast-grep at the corpus's pinned version)

BARS = {"small": 2.0, "small-nofs": 1.5, "small-100k": 1.5, "wide": 1.2, "wide-100k": 1.2,
        "mod-100k": 1.3, "undo-mod": 1.0}

RULES = """id: log-py
language: python
rule:
  pattern: log_event($$$A)
fix: emit_event($$$A)
---
id: log-ts
language: typescript
rule:
  pattern: log_event($$$A)
fix: emit_event($$$A)
---
id: log-rs
language: rust
rule:
  pattern: log_event($$$A)
fix: emit_event($$$A)
"""


def run(cmd, cwd=None, ok=(0,)):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True)
    if p.returncode not in ok:
        raise SystemExit(f"{cmd[0]} {cmd[1] if len(cmd) > 1 else ''} failed ({p.returncode}): "
                         f"{p.stderr[-600:]!r}{p.stdout[-600:]!r}")
    return p


def timed(cmd, cwd=None, ok=(0,)):
    start = time.perf_counter()
    run(cmd, cwd, ok)
    return time.perf_counter() - start


def tree(trees, files):
    """The generated tree of `files` files (made once)."""
    path = trees / f"tree-{files}"
    if not (path / ".git").is_dir():
        subprocess.run([sys.executable, str(HERE / "gen_tree.py"), str(path), "--files", str(files)],
                       check=True)
    return path


def patch_for(root, paths):
    """A unified diff changing the second line of each path (a trailing comment added)."""
    out = []
    for rel in paths:
        lines = (root / rel).read_text().splitlines()
        comment = "#" if rel.endswith(".py") else "//"
        old, new = lines[1], f"{lines[1]}  {comment} edited"
        out.append(f"--- a/{rel}\n+++ b/{rel}\n@@ -1,3 +1,3 @@\n {lines[0]}\n-{old}\n+{new}\n {lines[2]}\n")
    return "".join(out), None


def files_of(root, n):
    out = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        out.extend(os.path.relpath(os.path.join(dirpath, n), root) for n in sorted(names))
        if len(out) >= n:
            break
    return out[:n]


def pairs(n, a, b, reset):
    """Medians of a, b and of a/b over n pairs (after one warm-up pair)."""
    ta, tb, ratios = [], [], []
    for i in range(n + 1):
        reset()
        x = a()
        reset()
        y = b()
        if i:
            ta.append(x)
            tb.append(y)
            ratios.append(x / y)
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def patch_row(lancet, root, paths, n, extra):
    forward, _ = patch_for(root, paths)
    pristine = {rel: (root / rel).read_bytes() for rel in paths}
    with tempfile.TemporaryDirectory() as tmp:
        p = pathlib.Path(tmp) / "p.diff"
        p.write_text(forward)

        def reset():
            # Back to the pristine files (whichever tool wrote them), untimed.
            for rel, data in pristine.items():
                (root / rel).write_bytes(data)

        try:
            return pairs(
                n,
                lambda: timed([lancet, "apply", "-q", "-C", str(root), *extra, str(p)]),
                lambda: timed(["git", "apply", str(p)], cwd=root),
                reset,
            )
        finally:
            # The last timed command wrote the patch: the next row starts from the same tree.
            reset()


def mod_rows(lancet, ast_grep, root, n):
    with tempfile.TemporaryDirectory() as tmp:
        rule = pathlib.Path(tmp) / "rules.yml"
        rule.write_text(RULES)

        def reset():
            run(["git", "checkout", "-q", "--", "."], cwd=root)

        mod = [lancet, "mod", "-C", str(root), "--rule", str(rule), "--quiet"]
        row = pairs(n, lambda: timed(mod), lambda: timed([ast_grep, "scan", "--rule", str(rule),
                                                          "--update-all"], cwd=root), reset)
        undo, mods = [], []
        for i in range(n + 1):
            reset()
            m = timed(mod)
            u = timed([lancet, "undo", "-C", str(root)])
            if i:
                mods.append(m)
                undo.append(u)
        reset()
        ratios = [u / m for u, m in zip(undo, mods)]
        return row, (statistics.median(undo), statistics.median(mods), statistics.median(ratios))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet", nargs="?", default=str(HERE.parent / "target/release/lancet"))
    ap.add_argument("-n", type=int, default=10, help="pairs per row (default 10)")
    ap.add_argument("--only", default="", help="comma-separated rows")
    ap.add_argument("--trees", default=str(pathlib.Path.home() / ".cache/lancet-bench"))
    args = ap.parse_args()
    lancet = os.path.abspath(args.lancet)
    only = set(filter(None, args.only.split(",")))
    want = lambda row: not only or row in only  # noqa: E731
    trees = pathlib.Path(args.trees)
    trees.mkdir(parents=True, exist_ok=True)
    print(f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d')}, load {os.getloadavg()[0]:.1f}; medians of {args.n} pairs")
    rows = []
    small = tree(trees, 200)
    one = files_of(small, 1)
    if want("small"):
        rows.append(("small", "git apply", *patch_row(lancet, small, one, args.n, [])))
    if want("small-nofs"):
        rows.append(("small-nofs", "git apply", *patch_row(lancet, small, one, args.n, ["--no-fsync"])))
    if want("wide"):
        rows.append(("wide", "git apply", *patch_row(lancet, small, files_of(small, 200), args.n, [])))
    if any(want(r) for r in ("small-100k", "wide-100k", "mod-100k", "undo-mod")):
        big = tree(trees, 100_000)
        if want("small-100k"):
            rows.append(("small-100k", "git apply", *patch_row(lancet, big, files_of(big, 1), args.n, [])))
        if want("wide-100k"):
            rows.append(("wide-100k", "git apply", *patch_row(lancet, big, files_of(big, 200), args.n, [])))
        if want("mod-100k") or want("undo-mod"):
            cache = pathlib.Path.home() / ".cache" / "lancet-corpus" / "mod"
            cache.mkdir(parents=True, exist_ok=True)
            ast_grep = str(mod_conformance.find_ast_grep(cache, None))
            mod, undo = mod_rows(lancet, ast_grep, big, args.n)
            rows.append(("mod-100k", "ast-grep scan -U", *mod))
            rows.append(("undo-mod", "the mod", *undo))
    print(f"{'row':12} {'lancet':>10} {'peer':>10}  {'ratio':>7}  {'bar':>5}  peer")
    failed = False
    for name, peer, a, b, ratio in rows:
        ok = ratio <= BARS[name]
        failed |= not ok
        print(f"{name:12} {a * 1e3:8.1f}ms {b * 1e3:8.1f}ms  {ratio:6.2f}x  {BARS[name]:4.1f}x  {peer}"
              f"{'' if ok else '  OVER'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

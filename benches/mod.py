#!/usr/bin/env python3
"""`lancet mod` against `ast-grep --update-all` on the same rule and tree, measured in the same
run, pair by pair (A B A B ...): the CPython stdlib of this machine's Python with a Python rule,
and a TypeScript/TSX package from npm with a TS rule. Each run starts from a fresh copy of the
tree (the copy is not timed). Prints the median wall time of each and the median of the
per-pair ratios, for lancet's default (gate + checkpoint + fsync) and for
`--no-syntax-check --no-checkpoint --no-fsync`.

Targets (issue #27): default <= 1.3x ast-grep, and the bare mode <= 1.0x.

Usage: mod.py [LANCET] [--ast-grep PATH] [-n RUNS]
The TS tree and ast-grep come from the mod conformance corpus's cache
(python3 tests/corpus/mod_conformance.py fetches both).
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time

HOUSE = pathlib.Path(__file__).resolve().parents[1]
CACHE = pathlib.Path.home() / ".cache/lancet-corpus/mod"

PY_RULE = """id: print-to-log
language: python
rule:
  pattern: print($$$ARGS)
fix: log($$$ARGS)
"""
PY_RULE_NO_WORD = """id: print-to-log
language: python
rule:
  pattern:
    context: print($$$ARGS)
    selector: call
fix: log($$$ARGS)
"""
TS_RULE = """id: dual-qualified
language: typescript
rule:
  pattern: dual($$$ARGS)
fix: Function.dual($$$ARGS)
"""
EFFECT = ("effect", "3.10.0")


def stdlib_tree(into):
    """The stdlib's .py files (no tests or site-packages), copied once."""
    src = pathlib.Path(sysconfig.get_paths()["stdlib"])
    for path in src.rglob("*.py"):
        rel = path.relative_to(src)
        if rel.parts[0] in ("site-packages", "test", "idlelib", "lib2to3") or "tests" in rel.parts:
            continue
        dest = into / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    return into


def effect_tree():
    """effect's `src/`, from its npm tarball (fetched once into the cache)."""
    name, version = EFFECT
    dest = CACHE / "bench" / f"{name}-{version}"
    if not (dest / "src").is_dir():
        dl = CACHE / "bench" / "dl"
        dl.mkdir(parents=True, exist_ok=True)
        archive = dl / f"{name}-{version}.tgz"
        if not archive.exists():
            subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(dl),
                            f"{name}@{version}"], check=True, timeout=600)
        with tempfile.TemporaryDirectory(dir=dl) as tmp:
            subprocess.run(["tar", "xzf", str(archive), "-C", tmp], check=True)
            shutil.rmtree(dest, ignore_errors=True)
            shutil.move(str(pathlib.Path(tmp) / "package"), dest)
    return dest / "src"


def timed(command, cwd):
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0,):
        raise SystemExit(f"{command[0]} failed ({proc.returncode}): {proc.stderr[-400:]!r}{proc.stdout[-400:]!r}")
    return elapsed


def compare(name, tree, rule_text, lancet, ast_grep, runs, extra):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        rule = tmp / "rule.yml"
        rule.write_text(rule_text)
        ours, theirs, ratios = [], [], []
        for i in range(runs + 1):
            a, b = tmp / "a", tmp / "b"
            for d in (a, b):
                shutil.rmtree(d, ignore_errors=True)
                shutil.copytree(tree, d, symlinks=True)
                subprocess.run(["git", "init", "-q"], cwd=d)
            t_ours = timed([lancet, "mod", "-C", str(a), "--rule", str(rule), "--quiet", *extra], a)
            t_theirs = timed([ast_grep, "scan", "--rule", str(rule), "--update-all"], b)
            if i == 0:
                continue  # warm-up: page cache
            ours.append(t_ours)
            theirs.append(t_theirs)
            ratios.append(t_ours / t_theirs)
        label = " ".join(extra) or "default (gate + checkpoint + fsync)"
        print(f"{name:28} {label:45} lancet {statistics.median(ours):6.2f} s  ast-grep "
              f"{statistics.median(theirs):6.2f} s  ratio {statistics.median(ratios):.2f}x "
              f"(min {min(ratios):.2f}, max {max(ratios):.2f})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lancet", nargs="?", default=str(HOUSE / "target/release/lancet"),
                        type=lambda p: str(pathlib.Path(p).resolve()))
    parser.add_argument("--ast-grep", default=str(CACHE / "venv/bin/ast-grep"))
    parser.add_argument("-n", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stdlib = stdlib_tree(pathlib.Path(tmp) / "stdlib")
        files = sum(1 for _ in stdlib.rglob("*.py"))
        trees = [
            (f"CPython stdlib ({files} .py)", stdlib, PY_RULE),
            ("stdlib, pattern object", stdlib, PY_RULE_NO_WORD),
            (f"effect {EFFECT[1]} src (TS)", effect_tree(), TS_RULE),
        ]
        for name, tree, rule in trees:
            for extra in ([], ["--no-syntax-check", "--no-checkpoint", "--no-fsync"]):
                compare(name, tree, rule, args.lancet, args.ast_grep, args.n, extra)


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    main()

#!/usr/bin/env python3
"""`--test --bisect` on a real project: Flask's source distribution from PyPI and its own pytest
suite. A mod touches every Python and reStructuredText file of the tree (about 160): a harmless
comment appended to each, and in k of the Python modules `import flask` loads (k = 1, 2, 3,
chosen with a fixed seed) a planted break instead (a module-level raise: every test fails). For
each k, `lancet apply --test 'python -m pytest -x -q ...' --bisect` must hold back exactly the
planted files, write every other one, pass the tests on what it wrote, and stay within
k·⌈log2 N⌉ + 2 test runs; the undo must give back the tree before. Prints runs used against
that bound. A benchmark, not a timed test: exits 1 only when a check fails.

Usage: bisection.py [LANCET] [--k 1,2,3] [--quick] [--seed S] [--cache DIR]

The sources and the test environment are fetched with the registries' own clients, as
tests/corpus/gen_release_edits.py fetches its releases (`pip download --no-deps --no-binary
:all:` for the sdist), into the cache (default $XDG_CACHE_HOME/lancet-corpus/bisect): a virtual
environment with pytest (pinned: the suite predates pytest 9) and Flask's dependencies. Tests
that fail on the untouched tree in this environment are deselected first and listed.
--quick runs only tests/test_basic.py (the CI step: k = 1, 2 unless --k says otherwise).
"""
import argparse
import difflib
import json
import math
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HOUSE = pathlib.Path(__file__).resolve().parents[1]
FLASK = "3.1.3"
PYTEST = "8.3.5"
HARMLESS = {".py": "# lancet bisect benchmark: a harmless change\n",
            ".rst": ".. lancet bisect benchmark: a harmless change\n"}
BREAK = 'raise RuntimeError("lancet bisect benchmark: a planted break")\n'


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "lancet-corpus" / "bisect"


def sh(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def fetch(cache):
    """Flask's sdist unpacked, and a virtual environment to test it in."""
    src = cache / f"flask-{FLASK}"
    if not (src / ".complete").exists():
        dl = cache / "dl"
        dl.mkdir(parents=True, exist_ok=True)
        archive = dl / f"flask-{FLASK}.tar.gz"
        if not archive.exists():
            print(f"downloading flask {FLASK} (sdist)", file=sys.stderr)
            sh([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
                ":all:", f"flask=={FLASK}", "-d", str(dl)], timeout=600)
        if src.exists():
            shutil.rmtree(src)
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=".unpack-", dir=cache))
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")
        (tmp / f"flask-{FLASK}").rename(src)
        shutil.rmtree(tmp, ignore_errors=True)
        (src / ".complete").write_text("")
    venv = cache / "venv"
    python = venv / "bin" / "python"
    if not (venv / ".complete").exists():
        print(f"making a virtual environment with pytest {PYTEST} and flask {FLASK}'s dependencies",
              file=sys.stderr)
        shutil.rmtree(venv, ignore_errors=True)
        sh([sys.executable, "-m", "venv", str(venv)])
        sh([str(python), "-m", "pip", "install", "--quiet", f"pytest=={PYTEST}", f"flask=={FLASK}"],
           timeout=900)
        (venv / ".complete").write_text("")
    return src, python


def test_command(python, tests, deselect):
    """The --test command: the tree's own sources first on the path, no bytecode or cache
    written into the tree."""
    parts = [f"PYTHONPATH=src PYTHONDONTWRITEBYTECODE=1 {python} -m pytest -x -q",
             "-p no:cacheprovider", *tests, *(f"--deselect '{d}'" for d in deselect)]
    return " ".join(parts)


def environment_failures(root, python, tests):
    """Tests that fail on the untouched tree here (a missing optional dependency, a newer
    Werkzeug): deselected, so the untouched tree passes."""
    cmd = test_command(python, tests, []).replace(" -x ", " ") + " -rf"
    out = subprocess.run(["sh", "-c", cmd], cwd=root, capture_output=True, text=True).stdout
    return sorted(set(re.findall(r"^FAILED (\S+)", out, re.M)))


def loaded_modules(root, python):
    """The modules of src/flask that `import flask` loads: a break there fails every test."""
    code = ("import sys, os; sys.path.insert(0, 'src'); import flask; "
            "print('\\n'.join(sorted(os.path.relpath(m.__file__) for m in list(sys.modules.values()) "
            "if getattr(m, '__file__', None) and os.path.abspath(m.__file__).startswith("
            "os.path.abspath('src/flask')))))")
    out = sh([str(python), "-c", code], cwd=root, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    return [line for line in out.splitlines() if line.endswith(".py")]


def mod_files(root):
    """Every Python and reStructuredText file that ends with a newline, in path order."""
    out = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in HARMLESS and "__pycache__" not in p.parts:
            data = p.read_bytes()
            if data.endswith(b"\n"):
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                out.append(p.relative_to(root).as_posix())
    return out


def make_mod(root, files, culprits):
    """One unified diff: each file with a line appended, the culprits with a planted break."""
    out = []
    for rel in files:
        old = (root / rel).read_text(encoding="utf-8")
        added = BREAK if rel in culprits else HARMLESS[pathlib.Path(rel).suffix]
        new = old + added
        out.extend(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"a/{rel}", f"b/{rel}", n=3))
    return "".join(out).encode()


def tree_of(root):
    """Every file's bytes, lancet's state and bytecode aside."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".lancet" not in p.relative_to(root).parts
            and "__pycache__" not in p.parts}


def trial(lancet, src, python, tests, deselect, k, rng, work):
    """One k: plant, bisect, check. Returns a result line and the problems found."""
    root = work / f"flask-k{k}"
    shutil.copytree(src, root)
    (root / ".complete").unlink()
    files = mod_files(root)
    candidates = [f for f in loaded_modules(root, python) if f in files]
    culprits = sorted(rng.sample(candidates, k))
    edit = make_mod(root, files, culprits)
    before = tree_of(root)
    n = len(files)
    bound = k * math.ceil(math.log2(n)) + 2
    command = test_command(python, tests, deselect)
    started = time.time()
    proc = subprocess.run([lancet, "apply", "-C", str(root), "--json", "--format", "unified",
                           "--test", command, "--bisect", "--bisect-max-runs", str(bound + 8)],
                          input=edit, capture_output=True)
    took = time.time() - started
    problems = []
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return f"k={k}: no report", [proc.stdout.decode() + proc.stderr.decode()]
    b = (report.get("test") or {}).get("bisect") or {}
    runs = b.get("runs")
    if proc.returncode != 1 or report["status"] != "partial":
        problems.append(f"exit {proc.returncode}, status {report['status']}: {report['message'][:2000]}")
    if sorted(b.get("held_back", [])) != culprits:
        problems.append(f"held back {b.get('held_back')}, planted {culprits}")
    if runs is None or runs > bound:
        problems.append(f"{runs} runs, over the bound {bound}")
    if not (report.get("test") or {}).get("passed"):
        problems.append("the run on what was written did not pass")
    after = tree_of(root)
    for rel in files:
        changed = after[rel] != before[rel]
        if changed == (rel in culprits):
            problems.append(f"{rel}: {'written' if changed else 'not written'}")
    undo = subprocess.run([lancet, "undo", "-C", str(root)], capture_output=True)
    if undo.returncode != 0 or tree_of(root) != before:
        problems.append("the undo did not give back the tree before")
    shutil.rmtree(root, ignore_errors=True)
    line = (f"k={k}: N={n} files, planted {', '.join(culprits)}; held back "
            f"{', '.join(b.get('held_back', []))}; {runs} runs, bound k*ceil(log2 N)+2 = {bound}; "
            f"{took:.1f} s")
    return line, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lancet", nargs="?", default=str(HOUSE / "target/release/lancet"))
    ap.add_argument("--k", default=None, help="comma-separated numbers of planted breaks")
    ap.add_argument("--quick", action="store_true", help="only tests/test_basic.py; k = 1, 2")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--cache", type=pathlib.Path, default=default_cache())
    args = ap.parse_args()
    lancet = os.path.abspath(args.lancet)
    ks = [int(x) for x in (args.k or ("1,2" if args.quick else "1,2,3")).split(",")]
    args.cache.mkdir(parents=True, exist_ok=True)
    src, python = fetch(args.cache)
    tests = ["tests/test_basic.py"] if args.quick else ["tests"]
    deselect = environment_failures(src, python, tests)
    if deselect:
        print(f"deselected (failing on the untouched tree here): {', '.join(deselect)}")
    rng = random.Random(args.seed)
    failures = []
    with tempfile.TemporaryDirectory(prefix="lancet-bisect-") as tmp:
        for k in ks:
            line, problems = trial(lancet, src, python, tests, deselect, k, rng,
                                   pathlib.Path(tmp))
            print(line, flush=True)
            failures += [f"k={k}: {p}" for p in problems]
    for f in failures:
        print("FAILED", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The hybrid rename against the language server's own rename (issue #38's speed rows).

Over a copy of the CPython standard library (the Python running this, tests included, as
benches/scale.py copies it), the definition of `unittest.TestCase.assertEqual` is renamed to
`expect_equal`, each figure the median of --runs runs:

  lancet hybrid    `lancet rename --at lib/unittest/case.py:L:C expect_equal --dry-run --json`
                   with basedpyright-langserver on PATH (the default: lancet decides what it
                   can, the server is asked only about the sites lancet cannot decide, one
                   definition question per site; lancet starts the server each call, so every
                   call meets a cold server)
  basedpyright     its own `textDocument/rename` at the same place, from a client started
                   for the purpose (spawn, initialize, open the file, rename): the time to the
                   first answer with a cold server (which, before the server has read the
                   workspace, holds the opened file's edits alone), then the same request
                   again on the now warm server (the whole workspace's edits)

BAR (issue #38): the hybrid default's wall is at most basedpyright's time to its complete
answer from a cold start (spawn to the warm answer: both start from nothing and end with every
file's edits). The rows of `--include-unresolved` against ast-grep are benches/scale.py's
(`--only rename`).

basedpyright is the one tests/corpus/rename_oracle.py pins and caches (installed there when
missing: `--cache` as that script takes it); its client is that script's.

    python3 benches/hybrid.py [--lancet target/release/lancet] [--runs 3] [--cache DIR]
"""

import argparse
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "corpus"))
import rename_oracle as oracle  # noqa: E402
from stdlib_pairs import children_cpu, load  # noqa: E402

OLD, NEW = "assertEqual", "expect_equal"
ANSWER_TIMEOUT = 900  # s: a whole-stdlib rename by the server on a loaded machine
BAR = 1.0


def copy_stdlib(into):
    """The stdlib with its tests (where `assertEqual` is used), as benches/scale.py has it."""
    src = pathlib.Path(sysconfig.get_paths()["stdlib"])
    dest = into / "lib"
    shutil.copytree(src, dest, symlinks=False, ignore_dangling_symlinks=True,
                    ignore=shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__"))
    return dest


def definition(lib):
    """(path relative to the root, line, column: 1-based) of TestCase.assertEqual."""
    rel = "unittest/case.py"
    for i, line in enumerate((lib / rel).read_text(encoding="utf-8").splitlines(), 1):
        m = re.match(rf"    def ({OLD})\(", line)
        if m:
            return f"lib/{rel}", i, m.start(1) + 1
    raise SystemExit(f"no `def {OLD}` in {rel}")


def lancet_hybrid(lancet, root, place, env):
    """One hybrid rename: (wall, CPU, sites renamed, sites the server decided, exit code)."""
    path, line, col = place
    argv = [lancet, "-C", str(root), "rename", "--at", f"{path}:{line}:{col}", NEW,
            "--dry-run", "--json"]
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    cpu = children_cpu() - cpu0
    try:
        report = json.loads(p.stdout)
    except ValueError:
        raise SystemExit(f"lancet rename: exit {p.returncode}, no report: {p.stderr[-400:]}")
    summary = report.get("rename") or {}
    decided = sum(len(d.get("sites", [])) for d in summary.get("decided_by", []))
    return wall, cpu, len(summary.get("renamed", [])), decided, p.returncode, report


def server_rename(exe, root, place, env):
    """basedpyright's own rename, cold then warm: (cold wall to the first answer, of which
    initialize, warm wall, CPU of the server's whole run, edits in the answer)."""
    path, line, col = place
    texts = oracle.Texts(root)
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    srv = oracle.start_server("python", exe, root, env)
    t_init = time.perf_counter() - t0
    try:
        oracle.open_file(srv, texts, path)
        text = texts.line(path, line)
        pos = {"line": line - 1, "character": oracle.utf16_len(text[:col - 1])}
        doc = {"uri": oracle.path_uri(root / path)}
        params = {"textDocument": doc, "position": pos, "newName": NEW}
        first = srv.request("textDocument/rename", params, ANSWER_TIMEOUT)
        cold = time.perf_counter() - t0
        t1 = time.perf_counter()
        whole = srv.request("textDocument/rename", params, ANSWER_TIMEOUT)
        warm = time.perf_counter() - t1
    finally:
        srv.close()
    cpu = children_cpu() - cpu0
    return cold, t_init, warm, cpu, edits_in(first), edits_in(whole)


def edits_in(answer):
    """How many text edits a WorkspaceEdit holds."""
    edits = 0
    for change in (answer or {}).get("documentChanges") or []:
        edits += len(change.get("edits") or [])
    for es in ((answer or {}).get("changes") or {}).values():
        edits += len(es or [])
    return edits


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lancet", default="target/release/lancet")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cache", help="rename_oracle.py's cache (default: its own)")
    args = ap.parse_args()
    lancet = str(pathlib.Path(args.lancet).resolve())
    cache = oracle.cache_root(args.cache)
    exe = oracle.ensure_basedpyright(cache)
    bin_dir = oracle.link_bin(cache, {"basedpyright-langserver": exe})
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    loads = [load()]
    with tempfile.TemporaryDirectory(prefix="lancet-hybrid-bench-") as tmp:
        root = pathlib.Path(tmp)
        lib = copy_stdlib(root)
        place = definition(lib)
        ours, theirs = [], []
        for _ in range(args.runs):
            ours.append(lancet_hybrid(lancet, root, place, env))
            theirs.append(server_rename(exe, root, place, env))
            loads.append(load())
    med = lambda rows, i: statistics.median(r[i] for r in rows)  # noqa: E731
    last = ours[-1]
    servers = (last[5].get("rename") or {}).get("decided_by") or []
    named = ", ".join(f"{s.get('server')} {s.get('version', '')}".strip() for s in servers) or "none asked"
    complete = statistics.median(r[0] + r[2] for r in theirs)
    ratio = med(ours, 0) / complete
    print(f"## hybrid rename vs basedpyright's own, `{OLD}` -> `{NEW}` over the stdlib "
          f"({args.runs} runs, medians; load {min(loads):.1f}-{max(loads):.1f})\n")
    print("| what | wall | CPU | sites |")
    print("|---|---:|---:|---|")
    print(f"| lancet rename (hybrid default; exit {last[4]}) | {med(ours, 0):.2f} s | {med(ours, 1):.2f} s "
          f"| {last[2]} renamed, {last[3]} of them decided by the server ({named}) |")
    print(f"| basedpyright rename, cold server: time to first answer | {med(theirs, 0):.2f} s (initialize "
          f"{med(theirs, 1):.2f} s) | {med(theirs, 3):.2f} s (both answers) | {theirs[-1][4]} edits |")
    print(f"| basedpyright rename, the same request on the warm server | {med(theirs, 2):.2f} s | "
          f"| {theirs[-1][5]} edits |")
    print(f"| basedpyright rename, cold start to its complete answer | {complete:.2f} s | | |")
    ok = ratio <= BAR
    print(f"\nbar: lancet hybrid / basedpyright's complete rename from a cold start <= {BAR}x: {ratio:.2f}x "
          + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Bounded costs: inputs a model can send that once made lancet spend minutes holding the root's
lock, each answered within its bar. Every row builds a fresh tree in a temporary directory, runs
`lancet apply --json` once on it (defaults: syntax gate, checkpoint and fsync on), checks what
came back (the status or refusal kind the row expects, and nothing written when refused), and
prints the wall time against the row's bar. A benchmark, not a timed test: exits 1 when a row
is over its bar or its answer is not the expected one (every row runs all the same).

Rows (issue #35, and #42's gate on a file full of errors), each with the answer it must get:

  newlines    a 120 KB `new_string` of newlines (an old_string/new_string edit)    applied       <= 1 s
  sketch      a 1.1 MB lazy sketch (`content` with markers) over a 1.2 MB file     refused       <= 5 s
  sketchdp    a 2,400-line sketch changing every line (the alignment itself)       refused       <= 5 s
  html        14 deeply nested HTML files (15 MB) in one batch                     gate_timeout  <= 25 s
  multiedit   a MultiEdit of 12,000 exact edits on a 50,000-line file              applied       <= 3 s
  nomatch     a 12,000-line hunk matching nowhere in a 37 MB file of 8 near-copies no_match      <= 10 s
  errors      a one-line edit in a 1 MB Python file with 20,000 syntax errors      applied       <= 0.2 s

Usage: bounded.py [LANCET] [--only ROW[,ROW...]] [--keep DIR]   (LANCET defaults to target/release/lancet)
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HOUSE = pathlib.Path(__file__).resolve().parents[1]


def write(root, name, text):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def newlines(root):
    """An old_string/new_string edit whose new text is 120 KB of newlines."""
    write(root, "a.py", "x = 1\ny = 2\n")
    edit = {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 1" + "\n" * 120_000}
    return json.dumps(edit), "applied"


def body(i):
    return (f"def function_{i}(argument):\n"
            f"    value = argument * {i} + {i % 7}\n"
            f"    return value\n\n\n")


def sketch(root):
    """A 1.2 MB file rewritten as a 1.1 MB sketch: every function's parameter renamed, a block
    of them elided by a marker."""
    count = 12_000
    write(root, "big.py", "".join(body(i) for i in range(count)))
    kept = [body(i).replace("argument", "arg") for i in range(count)]
    kept[5_000:5_900] = ["# ... existing code ...\n\n\n"]
    edit = {"file_path": "big.py", "content": "".join(kept)}
    return json.dumps(edit), "placeholder"


def sketch_lines(root):
    """A 2,400-line file rewritten as a sketch that changes every line, a marker in the middle:
    within the alignment's size limit, every cell once asked for an edit distance."""
    old = [f"    value_{i} = compute_something_long({i}, {i * 3}, name=\"item_{i}\")\n"
           for i in range(2_400)]
    write(root, "table.py", "def f():\n" + "".join(old))
    new = [line.replace("long", "longer") for line in old]
    new[1_200:1_300] = ["    # ... existing code ...\n"]
    edit = {"file_path": "table.py", "content": "def f():\n" + "".join(new)}
    return json.dumps(edit), "placeholder"


def html(root):
    """14 HTML files, each about 1.07 MB of ever deeper nesting, written in one batch."""
    depth = 90_000
    page = "<html><body>" + "<div><span>" * depth + "x" + "</span></div>" * depth + "</body></html>\n"
    edits = []
    for n in range(14):
        write(root, f"page{n:02}.html", "<p>old</p>\n")
        edits.append({"file_path": f"page{n:02}.html", "content": page})
    return json.dumps(edits), "gate_timeout"


def multiedit(root):
    """12,000 exact edits, each of one line, on a 50,000-line file."""
    write(root, "data.py", "".join(f"value_{i:05} = {i}\n" for i in range(50_000)))
    edits = [{"old_string": f"value_{i:05} = {i}\n", "new_string": f"value_{i:05} = {i + 1}\n"}
             for i in range(0, 48_000, 4)]
    return json.dumps({"file_path": "data.py", "edits": edits}), "applied"


def nomatch(root):
    """8 near-copies of a 12,000-line block (lines of about 380 characters; the copies differ in
    a few lines), and a Codex patch whose 12,000-line hunk is the block with one character of
    every line changed: near every copy, equal to none."""
    def line(i, copy):
        words = " ".join(f"w{(i * 7 + k) % 997}" for k in range(60))
        tail = f" c{copy}" if i % 1_500 == copy * 100 else ""
        return f"    call_{i}({words}){tail}"[:380] + "\n"
    block = lambda copy: "".join(line(i, copy) for i in range(12_000))
    write(root, "huge.txt", "".join(block(c) for c in range(8)))
    hunk = "".join("-" + line(i, 9).replace("call_", "cal1_") for i in range(12_000))
    patch = f"*** Begin Patch\n*** Update File: huge.txt\n@@\n{hunk}+replaced\n*** End Patch\n"
    return patch, "no_match"


def errors(root):
    """A 1 MB Python file holding 20,000 syntax errors (one a line), edited on one line."""
    lines = [f"broken_{i} = = {i}\n" if i % 2 == 0 else f"fine_{i} = {i}\n" for i in range(40_000)]
    filler = "# " + "x" * 20 + "\n"
    text = "".join(lines) + filler * ((1_000_000 - sum(map(len, lines))) // len(filler))
    write(root, "errors.py", text)
    edit = {"file_path": "errors.py", "old_string": "fine_1 = 1\n", "new_string": "fine_1 = 2\n"}
    return json.dumps(edit), "applied"


# (name, bar in seconds, tree and edit); each builder returns the edit and what the answer must
# be: a status or a refusal kind.
ROWS = [
    ("newlines", 1.0, newlines),
    ("sketch", 5.0, sketch),
    ("sketchdp", 5.0, sketch_lines),
    ("html", 25.0, html),
    ("multiedit", 3.0, multiedit),
    ("nomatch", 10.0, nomatch),
    ("errors", 0.2, errors),
]


def snapshot(root):
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".lancet" not in p.parts and ".git" not in p.parts}


def run_row(lancet, name, build, keep):
    with tempfile.TemporaryDirectory(prefix=f"bounded-{name}-") as tmp:
        tmp = pathlib.Path(keep) / name if keep else pathlib.Path(tmp)
        root = tmp / "root"
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        edit, expect = build(root)
        before = snapshot(root)
        edit_file = tmp / "edit"
        edit_file.write_text(edit)
        if keep:
            print(f"{name}: {lancet} apply -C {root} --json {edit_file}", file=sys.stderr)
        started = time.monotonic()
        proc = subprocess.run([lancet, "apply", "-C", str(root), "--json", str(edit_file)],
                              capture_output=True, text=True)
        took = time.monotonic() - started
        try:
            report = json.loads(proc.stdout)
        except json.JSONDecodeError:
            return took, False, f"no JSON report (exit {proc.returncode}): {proc.stderr[:200]}"
        status = report.get("status")
        kind = (report.get("error") or {}).get("kind")
        if kind is None:
            kinds = {h.get("kind") for f in report.get("files", []) for h in f.get("hunks", [])}
            kinds |= {f.get("kind") for f in report.get("files", [])}
            kind = next((k for k in kinds if k), None)
        answer = status if status in ("applied", "already_applied") else f"{status}: {kind}"
        ok = expect is None or expect == status or expect == kind
        if status not in ("applied", "already_applied") and snapshot(root) != before:
            return took, False, f"{answer}, but the tree changed"
        return took, ok, answer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet", nargs="?", default=str(HOUSE / "target/release/lancet"))
    ap.add_argument("--only", help="comma-separated rows")
    ap.add_argument("--keep", metavar="DIR", help="build each row's tree and edit under DIR/ROW "
                    "and keep them (to profile a row)")
    args = ap.parse_args()
    if not shutil.which(args.lancet) and not pathlib.Path(args.lancet).exists():
        sys.exit(f"no lancet at {args.lancet} (cargo build --release)")
    only = set(args.only.split(",")) if args.only else None
    failed = False
    print(f"{'row':10} {'seconds':>8} {'bar':>6}  answer")
    for name, bar, build in ROWS:
        if only and name not in only:
            continue
        took, ok, answer = run_row(args.lancet, name, build, args.keep)
        verdict = "ok" if ok and took <= bar else ("OVER BAR" if ok else "WRONG ANSWER")
        failed |= verdict != "ok"
        print(f"{name:10} {took:8.2f} {bar:6.1f}  {verdict}: {answer}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

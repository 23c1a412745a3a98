#!/usr/bin/env python3
"""Line-anchored edits (`--format anchors`) built from real edits, applied after a real read.

Usage: tests/corpus/anchors.py LANCET_BIN [--release N] [-v] [--cache DIR]

Two sets, each case in a fresh temporary directory that is not a git repository:

RELEASE  the real hunks between pinned releases (tests/corpus/gen_release_edits.py's cases,
         generated into the cache on first use, as tests/corpus/run.py does): the first N
         (default 200, every hunk when N is 0) `clean` cases of the `unified` format, whose
         `@@ -a,b` header places the hunk in the released file. The file is written, read with
         `LANCET_BIN read --anchors --json` (which hands out the anchors and keeps the read),
         and the hunk is rendered as anchored edits on those anchors: its old lines (context
         and removed) replaced by its new lines, or, for a pure addition, inserted after the
         line before it. Expected: exit 0 and the next release's bytes for that hunk.
DRIFT    tests/corpus/rebase/cases (real formatter runs and edits between a read and the
         apply): the snapshot is written and read (anchors and sha256 from that read), the
         current bytes are written over it, and each hunk of the case's edit (`lancet parse`)
         is rendered as `@@ replace` of the snapshot lines its old text occupies (found once,
         exactly; a hunk whose old text is not found once, or is empty, skips the case), with
         `*** Edit Lines: PATH sha256 <the read's>`. Expected: as the case says (applied: the
         case's after bytes; conflict: refused, kind rebase_conflict).

Outcomes: applied-correct, refused-correctly, refused (a missed apply: safe, listed),
applied-wrong, error. Exit 1 on any applied-wrong or error. Also printed: the bytes a model sends
for the same release hunks as anchored edits, SEARCH/REPLACE blocks and Codex patches.
"""

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import rebase  # noqa: E402  (its runner, report reader and outcome rules are this one's)

HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def read_anchors(lancet, root, rel):
    """lancet's own read: (anchors per line, sha256)."""
    rc, out, err = rebase.run([lancet, "read", "-C", str(root), "--anchors", "--json", rel])
    if rc != 0:
        raise RuntimeError(f"read failed: {err.decode()[:200]}")
    view = json.loads(out)
    return [f"{l['line']}:{l['hash']}" for l in view["lines"]], view["sha256"]


def apply_and_classify(lancet, root, rel, text, expect, current, after):
    """Applies the anchored edit and classifies it by rebase.py's rules."""
    rc, out, err = rebase.run([lancet, "apply", "-C", str(root), "--format", "anchors", "--json",
                               "--no-checkpoint", "--no-fsync"], text.encode())
    f = root / rel
    got = f.read_bytes() if f.exists() else None
    case = {"expect": expect, "current": current, "after": after}
    return rebase.classify(case, rc, rebase.parse_report(out), got, err)


def release_cases(lancet, cache, limit):
    gen = [sys.executable, str(HERE / "gen_release_edits.py"), "-q"] + (["--cache", cache] if cache else [])
    p = subprocess.run(gen, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"gen_release_edits.py failed: {p.stderr[-400:]}")
    root = pathlib.Path(cache) if cache else pathlib.Path(
        os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "lancet-corpus"
    dirs = sorted((root / "cases").iterdir(), key=lambda d: d.stat().st_mtime)
    cases_dir = dirs[-1]
    by_id, chosen = {}, []
    for line in open(cases_dir / "cases.jsonl", encoding="utf-8"):
        c = json.loads(line)
        if c["category"] != "clean":
            continue
        by_id[c["id"]] = c
        if c["format"] == "unified" and not c["crlf"]:
            chosen.append(c)
    if limit:
        chosen = chosen[:limit]
    return chosen, by_id, cases_dir / "blobs"


def render_release(case, anchors):
    """The unified hunk as anchored edits on `anchors` (the read of the released file)."""
    lines = case["edit"].split("\n")
    start = next(i for i, l in enumerate(lines) if HEADER.match(l))
    m = HEADER.match(lines[start])
    a, b = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
    new = []
    for l in lines[start + 1:]:
        if l.startswith("\\"):
            return None  # "\ No newline at end of file": not a line edit
        if l.startswith(("+", " ")):
            new.append(l[1:])
        elif l == "":
            continue
    if b == 0:
        if a == 0:
            return f"@@ insert before {anchors[0]}\n" + "".join(x + "\n" for x in new) if anchors else None
        return f"@@ insert after {anchors[a - 1]}\n" + "".join(x + "\n" for x in new)
    rng = anchors[a - 1] if b == 1 else f"{anchors[a - 1]}..{anchors[a + b - 2]}"
    verb = "replace" if new else "delete"
    return f"@@ {verb} {rng}\n" + "".join(x + "\n" for x in new)


def run_release(lancet, cases, by_id, blobs, verbose):
    results, sizes = [], {"anchors": 0, "search-replace": 0, "patch": 0}
    for c in cases:
        before = (blobs / c["before"]).read_bytes()
        after = (blobs / c["after"]).read_bytes()
        with tempfile.TemporaryDirectory(prefix="lancet-anchors-") as tmp:
            root = pathlib.Path(tmp)
            f = root / c["path"]
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_bytes(before)
            anchors, sha = read_anchors(lancet, root, c["path"])
            body = render_release(c, anchors)
            if body is None:
                results.append((c["id"], "skipped", "no-final-newline hunk"))
                continue
            text = f"*** Edit Lines: {c['path']} sha256 {sha}\n{body}"
            outcome, why = apply_and_classify(lancet, root, c["path"], text, "applied", before, after)
        results.append((c["id"], outcome, why))
        base = c["id"].rsplit(":", 1)[0]
        sizes["anchors"] += len(text.encode())
        for fmt in ("search-replace", "patch"):
            twin = by_id.get(f"{base}:{fmt}")
            sizes[fmt] += len(twin["edit"].encode()) if twin else 0
        if verbose or outcome not in ("applied-correct",):
            print(f"  {outcome:17} {c['id']} {why}")
    return results, sizes


def snapshot_file(case_dir, stem):
    hits = sorted(case_dir.glob(f"{stem}.*"))
    return hits[0] if hits else None


def run_drift(lancet, verbose):
    results = []
    for case_dir in sorted((HERE / "rebase" / "cases").iterdir()):
        meta = tomllib.loads((case_dir / "case.toml").read_text())
        snap, cur = snapshot_file(case_dir, "snapshot"), snapshot_file(case_dir, "current")
        want_file = snapshot_file(case_dir, "after")
        snapshot, current = snap.read_bytes(), cur.read_bytes()
        _, parsed, _ = rebase.run([lancet, "parse", "--json", "--format", meta["format"],
                                   str(case_dir / "edit")])
        try:
            ops = json.loads(parsed)["ops"]
        except (json.JSONDecodeError, KeyError):
            results.append((case_dir.name, "skipped", "the edit does not parse"))
            continue
        hunks = [h for op in ops if op["kind"].get("op") == "update" for h in op["kind"]["hunks"]]
        if len(ops) != 1 or not hunks:
            results.append((case_dir.name, "skipped", "not one update"))
            continue
        snap_lines = snapshot.decode("utf-8").replace("\r\n", "\n").split("\n")
        with tempfile.TemporaryDirectory(prefix="lancet-anchors-") as tmp:
            root = pathlib.Path(tmp)
            f = root / meta["path"]
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_bytes(snapshot)
            anchors, sha = read_anchors(lancet, root, meta["path"])
            body, skip = [], ""
            for h in hunks:
                old = h["old"]
                at = [i for i in range(len(snap_lines) - len(old) + 1) if old and snap_lines[i:i + len(old)] == old]
                if len(at) != 1:
                    skip = "a hunk's old text is not found once in the read"
                    break
                i = at[0]
                last = min(i + len(old), len(anchors)) - 1
                rng = anchors[i] if last == i else f"{anchors[i]}..{anchors[last]}"
                new = h["new"]
                # A trailing empty old line past the file's last line is the final newline.
                body.append(f"@@ {'replace' if new else 'delete'} {rng}\n" + "".join(x + "\n" for x in new))
            if skip:
                results.append((case_dir.name, "skipped", skip))
                continue
            text = f"*** Edit Lines: {meta['path']} sha256 {sha}\n" + "".join(body)
            f.write_bytes(current)
            want = want_file.read_bytes() if want_file else None
            outcome, why = apply_and_classify(lancet, root, meta["path"], text, meta["expect"], current, want)
        results.append((case_dir.name, outcome, why))
        if verbose or outcome not in ("applied-correct", "refused-correctly"):
            print(f"  {outcome:17} drift/{case_dir.name} {why}")
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet")
    ap.add_argument("--release", type=int, default=200, help="release hunks to take (0: all)")
    ap.add_argument("--cache", help="the corpus cache (gen_release_edits.py's --cache)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    lancet = os.path.abspath(args.lancet)
    cases, by_id, blobs = release_cases(lancet, args.cache, args.release)
    release, sizes = run_release(lancet, cases, by_id, blobs, args.verbose)
    drift = run_drift(lancet, args.verbose)
    outcomes = ["applied-correct", "refused-correctly", "refused", "applied-wrong", "error", "skipped"]
    bad = 0
    for name, rows in (("release", release), ("drift", drift)):
        counts = {o: sum(1 for r in rows if r[1] == o) for o in outcomes}
        bad += counts["applied-wrong"] + counts["error"]
        print(f"{name:8} {len(rows):4} cases: " + ", ".join(f"{counts[o]} {o}" for o in outcomes))
    if sizes["anchors"]:
        print(f"bytes a model sends for the same {len(release)} release hunks: anchors {sizes['anchors']}, "
              f"search-replace {sizes['search-replace']} ({sizes['search-replace'] / sizes['anchors']:.2f}x), "
              f"patch {sizes['patch']} ({sizes['patch'] / sizes['anchors']:.2f}x)")
    ran = sum(1 for r in release + drift if r[1] != "skipped")
    print(f"anchors: {ran - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

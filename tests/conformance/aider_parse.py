#!/usr/bin/env python3
"""Aider's parse-only cases against `lancet parse`.

Usage: tests/conformance/aider_parse.py LANCET [--peers DIR] [-v]

Aider's cases with `"format": "parse-only"` (401 sections of its chat-history fixture plus 41
unit cases, in ../shared/peers/aider/cases/) give a model reply and the blocks aider reads in it:
`expected_blocks` = [[path, search, replace], ...], or `expected_error` when aider refuses the
reply. Each reply goes to `lancet parse --format search-replace --json` (`unified` for udiff
cases) on stdin. A case passes when lancet refuses exactly the replies aider refuses (exit 2)
and otherwise reads the same blocks in the same order: an Update hunk's old and new lines, each
line ending in a newline, or an empty search and the content for a block that creates a file.
Shell-command blocks (`expected_shell`) are not edits and are not compared.

Cases lancet reads differently on purpose are listed in tests/conformance/divergences.toml under
[aider-parse], with the reason, and count as skipped. Exit status 1 when fewer than FLOOR of the
cases that run pass, or when a listed divergence now passes (the list must stay honest).
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tomllib

FLOOR = 0.95
HERE = pathlib.Path(__file__).resolve().parent


def lines_text(lines):
    return "".join(line + "\n" for line in lines)


def blocks_of(batch):
    """lancet's operations as aider's [path, search, replace] blocks."""
    out = []
    for op in batch["ops"]:
        kind = op["kind"]
        if kind["op"] == "update":
            for hunk in kind["hunks"]:
                out.append([op["path"], lines_text(hunk["old"]), lines_text(hunk["new"])])
        elif kind["op"] in ("create", "append", "write"):
            out.append([op["path"], "", kind["content"]])
        else:
            out.append([op["path"], kind["op"], ""])
    return out


def run_case(lancet, case):
    fmt = "unified" if case.get("parse_format") == "udiff" else "search-replace"
    proc = subprocess.run(
        [lancet, "parse", "--format", fmt, "--json"],
        input=case["llm_output"].encode(),
        capture_output=True,
        timeout=60,
    )
    if case.get("expected_error"):
        if proc.returncode == 2:
            return None
        return f"aider refuses this reply ({case['expected_error'][:80]!r}); lancet exit {proc.returncode}"
    if proc.returncode != 0:
        return f"lancet exit {proc.returncode}: {proc.stdout.decode()[:300]}{proc.stderr.decode()[:300]}"
    got = blocks_of(json.loads(proc.stdout))
    want = [list(b) for b in case.get("expected_blocks") or []]
    if case.get("parse_format") == "udiff":
        # aider keeps each hunk's text; compare paths and the number of hunks per file.
        got_paths = [b[0] for b in got]
        want_paths = [b[0] for b in want]
        return None if got_paths == want_paths else f"paths {got_paths} != {want_paths}"
    if got == want:
        return None
    return f"blocks differ:\n  lancet: {json.dumps(got)[:600]}\n  aider:  {json.dumps(want)[:600]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet")
    ap.add_argument("--peers", default=str(HERE.parents[2] / "shared" / "peers"))
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    cases_dir = pathlib.Path(args.peers) / "aider" / "cases"
    paths = sorted(cases_dir.glob("*.json")) + sorted((cases_dir / "chat-history").glob("*.json"))
    cases = [json.loads(p.read_text()) for p in paths]
    cases = [c for c in cases if c.get("format") == "parse-only"]
    if not cases:
        sys.exit(f"no parse-only cases under {cases_dir}")
    divergences = tomllib.loads((HERE / "divergences.toml").read_text()).get("aider-parse", {})
    passed, failed, skipped, stale = 0, [], 0, []
    for case in cases:
        why = run_case(args.lancet, case)
        if case["name"] in divergences:
            skipped += 1
            if why is None:
                stale.append(case["name"])
            continue
        if why is None:
            passed += 1
        else:
            failed.append((case["name"], why))
    for name, why in failed:
        print(f"FAIL {name}: {why}" if args.verbose else f"FAIL {name}")
    for name in stale:
        print(f"STALE divergence (now passes; remove it): {name}")
    ran = passed + len(failed)
    share = passed / ran if ran else 0.0
    print(f"aider parse-only: {len(cases)} cases: {passed} passed, {len(failed)} failed, "
          f"{skipped} skipped (divergence); {share:.1%} of {ran} run cases (floor {FLOOR:.0%})")
    sys.exit(0 if share >= FLOOR and not stale else 1)


if __name__ == "__main__":
    main()

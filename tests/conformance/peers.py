#!/usr/bin/env python3
"""Run the other engines' JSON cases (opencode, gemini-cli, roo-code, cline, aider, and the
opt-in openai-agents: OpenAI's apply_patch operations) against a lancet binary and hold each
peer to the floor.

Usage: peers.py LANCET

Runs ../shared/peers/run-peer-cases.py with tests/conformance/divergences.toml. Each peer must
pass at least FLOOR of its cases that run (cases listed as divergences are skipped, each with
its reason). Prints each peer's figures, before and after divergences, and ends with
"N passed, N failed" (failed = peers below the floor plus failing cases).
"""
import re
import subprocess
import sys
from pathlib import Path

FLOOR = 0.95
here = Path(__file__).resolve().parent
lancet = str(Path(sys.argv[1]).resolve())
runner = here.parent.parent.parent / "shared/peers/run-peer-cases.py"
PEERS = ["opencode", "gemini-cli", "roo-code", "cline", "aider", "openai-agents"]
out = subprocess.run(
    [sys.executable, str(runner), "--lancet", lancet, "--divergences", str(here / "divergences.toml")]
    + [arg for peer in PEERS for arg in ("--peer", peer)],
    capture_output=True, text=True)
print(out.stdout, end="")
print(out.stderr, end="", file=sys.stderr)
rows = re.findall(r"^(\S+)\s+(\d+) cases: (\d+) passed, (\d+) failed, (\d+) skipped \((.*)\)$",
                  out.stdout, re.M)
if not rows:
    print("0 passed, 1 failed (no per-peer summary from the runner)")
    sys.exit(1)
below, failed_cases, passed_cases = [], 0, 0
for peer, _total, passed, failed, _skipped, why in rows:
    passed, failed = int(passed), int(failed)
    diverged = int(m.group(1)) if (m := re.search(r"divergence (\d+)", why)) else 0
    ran = passed + failed
    rate = passed / ran if ran else 1.0
    raw = passed / (ran + diverged) if ran + diverged else 1.0
    print(f"{peer:<12} {rate:6.1%} of {ran} run cases (floor {FLOOR:.0%}); "
          f"{raw:6.1%} counting the {diverged} divergences as failures")
    if rate < FLOOR:
        below.append(peer)
    failed_cases += failed
    passed_cases += passed
for peer in below:
    print(f"BELOW FLOOR {peer}")
print(f"{passed_cases} passed, {failed_cases + len(below)} failed")
sys.exit(1 if below or failed_cases else 0)

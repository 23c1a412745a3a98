#!/usr/bin/env python3
"""Run the Codex apply_patch conformance scenarios against a lancet binary.

Usage: codex.py LANCET [SCENARIO_RUNNER]

Every scenario runs. A failure listed in [codex-apply-patch] of divergences.toml is expected;
any other failure fails the run, and so does a listed divergence that now passes (a stale
entry). The last line is "N passed, N failed" where failed counts only unexpected results.
"""
import re
import subprocess
import sys
import tomllib
from pathlib import Path

here = Path(__file__).resolve().parent
lancet = str(Path(sys.argv[1]).resolve())
runner = sys.argv[2] if len(sys.argv) > 2 else str(
    here.parent.parent.parent / "shared/peers/codex-apply-patch/run-scenarios.sh")
divergent = tomllib.loads((here / "divergences.toml").read_text())["codex-apply-patch"]

out = subprocess.run([runner, "--stdin", lancet, "apply", "--format", "patch"],
                     capture_output=True, text=True).stdout
results = {m.group(2): m.group(1)
           for m in re.finditer(r"^(PASS|FAIL) ([^\s:]+)", out, re.M)}
if not results:
    print(out)
    print("0 passed, 1 failed (the scenario runner produced no results)")
    sys.exit(1)

unexpected, stale, passed, diverged = [], [], 0, 0
for name, verdict in sorted(results.items()):
    if name in divergent:
        if verdict == "FAIL":
            diverged += 1
        else:
            stale.append(name)
    elif verdict == "PASS":
        passed += 1
    else:
        unexpected.append(name)
for name in divergent:
    if name not in results:
        stale.append(name + " (no such scenario)")

for name in unexpected:
    print(f"UNEXPECTED FAIL {name}")
for name in stale:
    print(f"STALE DIVERGENCE {name}: it passes now; remove it from divergences.toml")
print(f"codex-apply-patch: {len(results)} scenarios, {passed} pass as the peer expects, "
      f"{diverged} diverge on purpose (tests/conformance/divergences.toml)")
print(f"{passed + diverged} passed, {len(unexpected) + len(stale)} failed")
sys.exit(1 if unexpected or stale else 0)

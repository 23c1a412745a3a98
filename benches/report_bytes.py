#!/usr/bin/env python3
"""Bytes a person or a model reads per report: every apply fixture (those without args/ or
read/) run through `lancet apply` in words, by default and with --brief, each on a fresh copy
of its before/ tree. Prints the median and total bytes for successes and refusals.

Usage: report_bytes.py [LANCET]   (default target/release/lancet)
"""
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

HOUSE = pathlib.Path(__file__).resolve().parents[1]


def run(binary, scenario, extra):
    edit = next(scenario.glob("edit.*"))
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp) / "root"
        if (scenario / "before").is_dir():
            shutil.copytree(scenario / "before", root, symlinks=True)
        else:
            root.mkdir()
        text = edit.read_bytes().replace(b"{{ROOT}}", str(root).encode())
        p = subprocess.run([binary, "apply", "-C", str(root), *extra], input=text, capture_output=True)
        return p.returncode, len(p.stdout) + len(p.stderr)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(HOUSE / "target/release/lancet")
    scenarios = [d for d in sorted((HOUSE / "fixtures").iterdir())
                 if d.is_dir() and list(d.glob("edit.*"))
                 and not (d / "args").exists() and not (d / "read").exists()]
    for name, extra in (("default", []), ("--brief", ["--brief"])):
        ok, refused = [], []
        for s in scenarios:
            code, size = run(binary, s, extra)
            (ok if code == 0 else refused).append(size)
        print(f"{name:8} applied {len(ok)}: median {statistics.median(ok):.0f} B, total {sum(ok)} B; "
              f"refused {len(refused)}: median {statistics.median(refused):.0f} B, total {sum(refused)} B")
    one = HOUSE / "fixtures" / "001_update_single_line_exact"
    print(f"one-line change (fixture 001): default {run(binary, one, [])[1]} B, --brief {run(binary, one, ['--brief'])[1]} B")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The gate's false-positive rate on real code: `lancet check` over the CPython standard library
of this machine's python3, against the language's own verdict (`compile()` of each file by that
python3, with lancet's target Python set to the same version).

A file the reference accepts and lancet flags is a false positive: 0 allowed (exit 1 otherwise).
A file the reference rejects and lancet accepts is a false negative: reported, not failed (the
precise parser checks the grammar, not the compiler's rules; `gate.external` adds those).

Usage: python3 tests/corpus/gate.py target/release/lancet [--limit N]
"""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile


def reference_rejects(files):
    """The files of `files` (absolute paths) that this python3's compile() rejects."""
    script = (
        "import sys\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        with open(name, 'rb') as f: compile(f.read(), name, 'exec', dont_inherit=True)\n"
        "    except (SyntaxError, ValueError):\n"
        "        print(name)\n"
    )
    rejected = set()
    for i in range(0, len(files), 500):
        out = subprocess.run([sys.executable, "-I", "-S", "-c", script, *files[i:i + 500]],
                             capture_output=True, text=True, check=True)
        rejected.update(line for line in out.stdout.splitlines() if line)
    return rejected


def main():
    lancet = os.path.abspath(sys.argv[1])
    limit = int(sys.argv[sys.argv.index("--limit") + 1]) if "--limit" in sys.argv else None
    stdlib = sysconfig.get_paths()["stdlib"]
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    with tempfile.TemporaryDirectory() as tmp:
        rels = []
        for dirpath, dirnames, filenames in os.walk(stdlib):
            dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__"))
            for name in sorted(filenames):
                if name.endswith(".py"):
                    rels.append(os.path.relpath(os.path.join(dirpath, name), stdlib))
        rels = rels[:limit] if limit else rels
        for rel in rels:
            dest = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(os.path.join(stdlib, rel), dest)
        with open(os.path.join(tmp, "lancet.toml"), "w") as f:
            f.write(f'[gate]\npython = "{version}"\nmax_file_bytes = 100_000_000\n')
        rejected = {os.path.relpath(p, tmp) for p in reference_rejects([os.path.join(tmp, r) for r in rels])}
        out = subprocess.run([lancet, "check", "-C", tmp, "--json"], capture_output=True, text=True)
        report = json.loads(out.stdout)
    flagged = {e["path"] for e in report["errors"]}
    unchecked = [u for u in report["unchecked"] if u.endswith(".py") or ".py (" in u]
    false_pos = sorted(flagged - rejected)
    false_neg = sorted(rejected - flagged)
    print(f"CPython {version} stdlib: {len(rels)} files; reference rejects {len(rejected)}; "
          f"lancet flags {len(flagged)}; unchecked {len(unchecked)}")
    print(f"false positives (reference accepts, lancet flags): {len(false_pos)}")
    for p in false_pos:
        first = next(e for e in report["errors"] if e["path"] == p)
        print(f"  {p}:{first['line']}:{first['column']}: {first['kind']} ({first['checker']})")
    print(f"false negatives (reference rejects, lancet accepts): {len(false_neg)}")
    for p in false_neg:
        print(f"  {p}")
    for u in unchecked[:20]:
        print(f"  unchecked: {u}")
    return 1 if false_pos else 0


if __name__ == "__main__":
    sys.exit(main())

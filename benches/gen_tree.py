#!/usr/bin/env python3
"""A large generated source tree for the per-call and mod benchmarks: N files (default 100,000),
half Python, 30% TypeScript, 20% Rust, in nested packages, seeded so every run makes the same
tree, committed to git once.

Usage: gen_tree.py DIR [--files N] [--seed S] [--no-git]

Each file is a small module in its language with a few functions, some of which call
`log_event(...)` (what benches/percall.py's mod rewrites), so a mod touches a known share of
files. Directories hold about 50 files each, three levels deep, as real projects do. Python 3
standard library only.
"""

import argparse
import os
import random
import subprocess

LANGUAGES = [("py", 0.5), ("ts", 0.3), ("rs", 0.2)]


def body(ext, rng, index, calls):
    """A module of about 20-40 lines in its language; `calls` of its functions call
    log_event."""
    out = []
    for f in range(rng.randint(3, 6)):
        name = f"f{index}_{f}"
        value = rng.randint(0, 1000)
        call = f < calls
        if ext == "py":
            out.append(f"def {name}(x, y={value}):")
            out.append(f"    total = x + y * {rng.randint(1, 9)}")
            if call:
                out.append(f"    log_event('{name}', total)")
            out.append("    return total")
            out.append("")
        elif ext == "ts":
            out.append(f"export function {name}(x: number, y: number = {value}): number {{")
            out.append(f"  const total = x + y * {rng.randint(1, 9)};")
            if call:
                out.append(f"  log_event('{name}', total);")
            out.append("  return total;")
            out.append("}")
            out.append("")
        else:
            out.append(f"pub fn {name}(x: i64, y: i64) -> i64 {{")
            out.append(f"    let total = x + y * {rng.randint(1, 9)} + {value};")
            if call:
                out.append(f"    log_event(\"{name}\", total);")
            out.append("    total")
            out.append("}")
            out.append("")
    return "\n".join(out) + "\n"


def generate(root, files, seed, with_calls=0.005):
    """Writes the tree; returns how many files call log_event."""
    rng = random.Random(seed)
    calling = 0
    for i in range(files):
        r = rng.random()
        ext = "py" if r < 0.5 else ("ts" if r < 0.8 else "rs")
        d = f"pkg{i // 2500:03d}/mod{(i // 50) % 50:02d}"
        os.makedirs(os.path.join(root, d), exist_ok=True)
        calls = 1 if rng.random() < with_calls else 0
        calling += calls
        with open(os.path.join(root, d, f"m{i}.{ext}"), "w") as f:
            f.write(body(ext, rng, i, calls))
    return calling


def git(root, *args):
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", *args],
                   cwd=root, check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--calls", type=float, default=0.005,
                    help="share of files that call log_event (default 0.005: 500 of 100k)")
    ap.add_argument("--no-git", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    calling = generate(args.dir, args.files, args.seed, args.calls)
    if not args.no_git:
        git(args.dir, "init", "-q", "-b", "main")
        git(args.dir, "add", "-A")
        git(args.dir, "commit", "-q", "-m", "generated")
    print(f"{args.files} files, {calling} calling log_event, in {args.dir}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Figures of the house: file sizes, the longest functions, `format!` calls (sentences composed
where they arise) per crate, and the items each crate's root names.

Usage: python3 benches/house.py [--items] [--check-architecture]

Sizes count production lines (above a file's `#[cfg(test)]`) of every tracked `.rs` file under
`crates/*/src`, `surfaces/*/src` and `src`. `--items` builds each library crate's rustdoc JSON (with
RUSTC_BOOTSTRAP=1, as rustdoc's JSON output is unstable) and counts the items a user can name
from its root: public modules and `pub use` followed (into the sibling crates too), each item
once, hidden modules left out. `--check-architecture` exits 1 when a production file is not
named in ARCHITECTURE.md (by its file name, by its stem in backticks where a folder's rooms are
listed by stem, or by its folder for a `mod.rs`), so the map cannot fall behind the house.
"""
import collections
import glob
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FN = re.compile(r"^(\s*)(pub(\([^)]*\))? )?(const )?(async )?(unsafe )?fn (\w+)")
KINDS = {"module", "struct", "enum", "trait", "function", "type_alias", "constant", "static",
         "macro", "union", "trait_alias"}
CRATES = ["lancet", "lancet-core", "lancet-process", "lancet-store", "lancet-syntax", "lancet-mcp"]


def production_files():
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "crates/*.rs", "surfaces/*.rs", "src/*.rs"],
                           capture_output=True, text=True, check=True).stdout.split()
    return [f for f in files if f.startswith("src/") or "/src/" in f]


def unnamed_in_architecture():
    """The production files ARCHITECTURE.md does not name."""
    text = open(os.path.join(ROOT, "ARCHITECTURE.md"), encoding="utf-8").read()
    missing = []
    for f in production_files():
        base = os.path.basename(f)
        if base == "mod.rs":
            folder = os.path.basename(os.path.dirname(f))
            named = f"{folder}/" in text or f"`{folder}`" in text
        else:
            named = base in text or f"`{base[:-3]}`" in text
        if not named:
            missing.append(f)
    return missing


def sizes():
    files = production_files()
    lines_of, functions, composed = {}, [], collections.Counter()
    for f in files:
        production = []
        for line in open(os.path.join(ROOT, f), encoding="utf-8").read().split("\n"):
            if line.startswith("#[cfg(test)]"):
                break
            production.append(line)
        lines_of[f] = len(production)
        composed[f.split("/src/")[0] if "/src/" in f else "src"] += sum(
            len(re.findall(r"\bformat!", line)) for line in production)
        for i, line in enumerate(production):
            m = FN.match(line)
            if m and not line.rstrip().endswith(";"):
                end = next((j for j in range(i + 1, len(production))
                            if production[j] == m.group(1) + "}"), None)
                if end is not None:
                    functions.append((end - i + 1, f"{f}:{m.group(7)}"))
    counts = sorted(lines_of.values())
    print(f"production files {len(counts)}, median {statistics.median(counts)} lines, "
          f"over 800: {sum(c > 800 for c in counts)}, over 700: {sum(c > 700 for c in counts)}")
    for f, n in sorted(lines_of.items(), key=lambda x: -x[1])[:5]:
        print(f"  {n:5} {f}")
    functions.sort(reverse=True)
    print(f"functions {len(functions)}, over 80 lines: {sum(n > 80 for n, _ in functions)}")
    for n, name in functions[:6]:
        print(f"  {n:5} {name}")
    # Sentences composed where they arise: `format!` calls in each crate's production code.
    print("format! calls in production code: " +
          ", ".join(f"{crate} {n}" for crate, n in sorted(composed.items())))


def items():
    # A target of its own: RUSTC_BOOTSTRAP makes some build scripts turn on nightly features,
    # and their output, cached in the shared target, would then fail the stable builds.
    target = os.path.join(ROOT, "target", "house-items")
    env = dict(os.environ, RUSTC_BOOTSTRAP="1", CARGO_TARGET_DIR=target)
    for crate in CRATES:
        subprocess.run(["cargo", "rustdoc", "-q", "-p", crate, "--lib", "--", "-Z",
                        "unstable-options", "--output-format", "json"],
                       cwd=ROOT, env=env, check=True, capture_output=True)
    docs = {c.replace("-", "_"): json.load(open(os.path.join(target, "doc", c.replace("-", "_") + ".json")))
            for c in CRATES}
    by_path = {tuple(e["path"]): (name, i) for name, d in docs.items()
               for i, e in d["paths"].items() if e["crate_id"] == 0}
    for name in docs:
        seen, kinds = set(), collections.Counter()

        def visit(crate, i):
            i = str(i)
            if (crate, i) in seen:
                return
            seen.add((crate, i))
            d = docs[crate]
            item = d["index"].get(i)
            if item is None:
                entry = d["paths"].get(i)
                if entry and tuple(entry["path"]) in by_path:
                    visit(*by_path[tuple(entry["path"])])
                else:
                    kinds["re-exported"] += 1
                return
            kind = next(iter(item["inner"]))
            if kind == "use":
                if item["inner"]["use"].get("id") is not None:
                    visit(crate, item["inner"]["use"]["id"])
                return
            if kind in KINDS:
                kinds[kind] += 1
            if kind == "module":
                for child in item["inner"]["module"]["items"]:
                    c = d["index"].get(str(child))
                    if c is None or c.get("visibility") == "public":
                        visit(crate, child)

        visit(name, docs[name]["root"])
        print(f"{name}: {sum(kinds.values())} items {dict(kinds)}")


if __name__ == "__main__":
    sizes()
    if "--check-architecture" in sys.argv[1:]:
        missing = unnamed_in_architecture()
        print(f"ARCHITECTURE.md names {len(production_files()) - len(missing)} of "
              f"{len(production_files())} production files")
        if missing:
            print("not named: " + ", ".join(missing))
            sys.exit(1)
    if "--items" in sys.argv[1:]:
        items()

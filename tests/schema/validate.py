#!/usr/bin/env python3
"""Validates what lancet prints against the JSON Schemas checked into schema/, with a validator
lancet did not write (Python's jsonschema): every fixture's --json report and MCP structured
content against schema/report.schema.json, `lancet parse --json` of every fixture's edit against
schema/batch.schema.json, the README's lancet.toml example against schema/config.schema.json,
and `lancet read --json` and `lancet log --json` on the demo against schema/read.schema.json and
schema/log.schema.json (a read's refusal and `recover --json` against the report's).

Usage: validate.py [LANCET_BINARY]   (default target/release/lancet)
Exit 0 when every document validates; prints each failure otherwise.
"""
import json
import pathlib
import subprocess
import sys
import shutil
import tempfile
import tomllib

import jsonschema

HOUSE = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = HOUSE / "fixtures"


def validator(name):
    schema = json.loads((HOUSE / "schema" / f"{name}.schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def load(path):
    """A snapshot, with the placeholder the fixture harness puts for a duration made a number."""
    return json.loads(path.read_text().replace("{{MS}}", "0"))


def check(v, doc, where, failures):
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:3]:
        failures.append(f"{where}: {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:200]}")
    return not errors


def readme_settings():
    """The settings examples of the README and docs/: their ```toml blocks that are lancet's own
    sections (not a host's `[mcp_servers]`)."""
    for page in [HOUSE / "README.md", *sorted((HOUSE / "docs").glob("*.md"))]:
        blocks = page.read_text().split("```toml\n")[1:]
        for i, block in enumerate(blocks):
            body = block.split("```", 1)[0]
            if "[mcp_servers" not in body:
                yield f"{page.relative_to(HOUSE)} toml block {i + 1}", body


def read_and_log(binary, failures):
    """`lancet read --json` (plain and with anchors) and `lancet log --json` on the demo, after
    an apply and an undo; returns how many documents were checked."""
    read, log, report = validator("read"), validator("log"), validator("report")
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp) / "demo"
        shutil.copytree(FIXTURES / "demo" / "before", root)
        edit = str(FIXTURES / "demo" / "edit.patch")
        for args in (["apply", edit], ["undo"], ["apply", edit]):
            subprocess.run([binary, args[0], "-C", str(root), *args[1:]], capture_output=True, check=True)
        checked = 0
        for args, v in (
            (["read", "--json", "app/greet.py"], read),
            (["read", "--json", "--anchors", "app/greet.py"], read),
            (["log", "--json"], log),
            # A read's refusal and a recovery with nothing to do are reports.
            (["read", "--json", "no/such/file.py"], report),
            (["recover", "--json"], report),
        ):
            run = subprocess.run([binary, args[0], "-C", str(root), *args[1:]], capture_output=True)
            if run.returncode not in (0, 1):
                failures.append(f"lancet {' '.join(args)} exited {run.returncode}: {run.stderr!r}")
                continue
            doc = json.loads(run.stdout)
            # apply, the undo (itself a checkpointed batch), apply again.
            if v is log and len(doc) != 3:
                failures.append(f"lancet log --json listed {len(doc)} checkpoints, not 3")
            check(v, doc, "lancet " + " ".join(args), failures)
            checked += 1
        return checked


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(HOUSE / "target/release/lancet")
    report, batch, config = validator("report"), validator("batch"), validator("config")
    failures = []
    counts = {"report.json": 0, "mcp.json": 0, "parse --json": 0, "settings": 0, "read/log": 0}

    for path in sorted(FIXTURES.rglob("report.json")):
        counts["report.json"] += 1
        check(report, load(path), path.relative_to(HOUSE), failures)
    for path in sorted(FIXTURES.rglob("mcp.json")):
        reply = load(path)
        content = reply.get("structuredContent")
        if content is None:
            continue  # an argument error: text only, no report
        counts["mcp.json"] += 1
        check(report, content, path.relative_to(HOUSE), failures)
    for path in sorted(FIXTURES.glob("*/edit.*")):
        run = subprocess.run([binary, "parse", "--json", str(path)], capture_output=True)
        if run.returncode != 0:
            continue  # malformed on purpose: its report is checked above
        counts["parse --json"] += 1
        check(batch, json.loads(run.stdout), path.relative_to(HOUSE), failures)
    for where, text in readme_settings():
        counts["settings"] += 1
        check(config, tomllib.loads(text), where, failures)
    counts["read/log"] += read_and_log(binary, failures)
    misspelt = {"gate": {"enable": True}}
    if config.is_valid(misspelt):
        failures.append("schema/config.schema.json accepts a misspelt key ([gate] enable)")

    for f in failures:
        print(f"INVALID {f}")
    print("validated: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + f"; {len(failures)} invalid")
    if counts["settings"] < 1:
        print("the lancet.toml example of docs/configuration.md was not found")
        return 1
    if counts["report.json"] < 200 or counts["mcp.json"] < 200 or counts["parse --json"] < 100:
        print("too few documents: the fixtures were not found")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

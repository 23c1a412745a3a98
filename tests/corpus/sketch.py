#!/usr/bin/env python3
"""Run lancet on the lazy-sketch corpus (tests/corpus/sketch/cases/) and check every outcome.

Usage: python3 tests/corpus/sketch.py LANCET_BIN [--only GLOB[,GLOB..]] [--json OUT] [-v]

A lazy sketch is the new version of a file, function or class in which the model elided the
unchanged parts with marker lines (`# ... existing code ...`, `// ... rest of the function
unchanged ...`, `/* ... */`). Each case directory holds `before.<ext>` (the file on disk), `edit`
(the edit text exactly as the model sends it), `case.toml` (format, path, expected outcome, why,
source) and, when the edit must apply, `after.<ext>` (the exact expected bytes). See
tests/corpus/sketch/README.md.

Each case runs in a fresh temporary directory that is not a git repository: `before.<ext>` is
written to `<tmp>/<path>` and the edit goes on stdin to

  LANCET_BIN apply -C <tmp> --format <format> [--path <path>  (format sketch only)]
             --json --no-checkpoint --no-fsync

(60 s timeout). The exit code, the JSON report and the file's bytes afterwards give the outcome:

  applied-correct     expected applied: exit 0 and the file's bytes == after.<ext>
  refused-correctly   expected refused: exit 1 and the file untouched
  refused             expected applied, lancet refused: exit 1 and the file untouched (counted, not a failure)
  applied-wrong       exit 0 but the bytes differ from after.<ext>; exit 0 where a refusal was
                      expected; the file changed although the exit code is not 0; files left
                      beside the edited one (other than lancet's .lancet/)
  error               any other exit code, a timeout, or stdout that is not a JSON report

Every case not correct is listed on one line (`outcome  case-id  reason`; for refusals the
report's first error kind and message), then the counts of the five outcomes per language (the
case id's prefix) and in total. `-v` lists the correct cases too. Exit status 1 when any case is
applied-wrong or error, or when fewer than 80% of the fragments expected to apply are
applied-correct, else 0.

A *fragment* is a whole-text sketch (format `sketch` or `whole`) that stands for a part of the
file: it neither begins at the file's start (its first line is a marker or the file's first line)
nor ends at its end (its last line is an unindented marker or the file's last line), on at least
one side. The runner decides this from the bytes, not from the case's name. The floor counts the
cases under `sketch/cases/`; `sketch/attack/` holds an attack pass's adversarial cases, which
count toward applied-wrong = 0 only.
"""

import argparse
import fnmatch
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter, defaultdict

HERE = pathlib.Path(__file__).resolve().parent
CASES = HERE / "sketch" / "cases"
#: Adversarial cases from an attack pass (a helper session hunting for wrong results): they count
#: toward applied-wrong = 0, but not toward the fragment floor, which measures ordinary shapes.
ATTACK = HERE / "sketch" / "attack"
OUTCOMES = ["applied-correct", "refused-correctly", "refused", "applied-wrong", "error"]
FAILING = {"applied-wrong", "error"}
FORMATS = {"sketch", "search-replace", "json", "patch", "whole"}
#: The share of fragments expected to apply that must be applied-correct.
FRAGMENT_FLOOR = 0.8
MARKER = re.compile(r"^\s*(#|//|/\*|\{/\*)\s*\.\.\.|^\s*(\.\.\.|\u2026)\s*$|^\s*(#|//)\s*(rest|existing)", re.I)
TIMEOUT = 60


# ---------------------------------------------------------------------------------- the cases


def load_cases(only):
    """Every case directory (sorted by id), each as a dict; `only` is a list of id globs."""
    cases = []
    dirs = [(p, "cases") for p in CASES.iterdir() if p.is_dir()]
    dirs += [(p, "attack") for p in ATTACK.iterdir() if p.is_dir()] if ATTACK.is_dir() else []
    for d, corpus_set in sorted(dirs, key=lambda x: x[0].name):
        cid = d.name
        if only and not any(fnmatch.fnmatchcase(cid, g) for g in only):
            continue
        with open(d / "case.toml", "rb") as f:
            meta = tomllib.load(f)
        for key in ("format", "path", "expect", "why"):
            if key not in meta:
                raise SystemExit(f"{cid}: case.toml has no `{key}`")
        if meta["format"] not in FORMATS:
            raise SystemExit(f"{cid}: unknown format {meta['format']!r}")
        if meta["expect"] not in ("applied", "refused"):
            raise SystemExit(f"{cid}: expect must be applied or refused, not {meta['expect']!r}")
        befores = sorted(d.glob("before.*"))
        afters = sorted(d.glob("after.*"))
        if len(befores) != 1:
            raise SystemExit(f"{cid}: want exactly one before.* file, found {len(befores)}")
        if meta["expect"] == "applied" and len(afters) != 1:
            raise SystemExit(f"{cid}: expect = applied needs exactly one after.* file")
        if meta["expect"] == "refused" and afters:
            raise SystemExit(f"{cid}: expect = refused must have no after.* file")
        cases.append({
            "id": cid,
            "lang": cid.split("-", 1)[0],
            "format": meta["format"],
            "path": meta["path"],
            "expect": meta["expect"],
            "why": meta["why"],
            "before": befores[0].read_bytes(),
            "after": afters[0].read_bytes() if afters else None,
            "edit": (d / "edit").read_bytes(),
        })
        cases[-1]["fragment"] = is_fragment(cases[-1])
        cases[-1]["set"] = corpus_set
    return cases


def is_fragment(case):
    """Whether a whole-text sketch stands for a part of the file (see the module's doc)."""
    if case["format"] not in ("sketch", "whole"):
        return False
    lines = case["edit"].decode("utf-8", "replace").replace("\r", "").split("\n")
    if case["format"] == "whole":
        lines = [l for l in lines if not l.startswith("```")][1:]
    body = [l for l in lines if l.strip()]
    old = [l for l in case["before"].decode("utf-8", "replace").replace("\r", "").split("\n") if l.strip()]
    if not body or not old:
        return False
    at_start = bool(MARKER.match(body[0])) or body[0].rstrip() == old[0].rstrip()
    at_end = (bool(MARKER.match(body[-1])) and not body[-1][:1].isspace()) or body[-1].rstrip() == old[-1].rstrip()
    return not (at_start and at_end)


# ---------------------------------------------------------------------------------- one run


def command(lancet, root, case):
    cmd = [lancet, "apply", "-C", str(root), "--format", case["format"]]
    if case["format"] == "sketch":
        cmd += ["--path", case["path"]]
    return cmd + ["--json", "--no-checkpoint", "--no-fsync"]


def run_case(lancet, case, workdir):
    """The case's outcome, a one-line reason, the exit code and the parsed report."""
    root = pathlib.Path(tempfile.mkdtemp(prefix="sk-", dir=workdir))
    try:
        target = root / case["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(case["before"])
        try:
            proc = subprocess.run(command(lancet, root, case), input=case["edit"], capture_output=True,
                                  timeout=TIMEOUT)
            rc, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = "timeout", b"", b""
        except OSError as e:
            rc, out, err = "cannot run", b"", str(e).encode()
        got = target.read_bytes() if target.is_file() else None
        stray = stray_files(root, target)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report = parse_report(out)
    outcome, reason = classify(case, rc, report, got, err, stray)
    return outcome, reason, rc, report


def parse_report(out):
    """The JSON report on stdout as a dict, or None when there is none or it does not parse."""
    try:
        report = json.loads(out.decode("utf-8")) if out.strip() else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return report if isinstance(report, dict) else None


def stray_files(root, target):
    """Files in the case's directory other than the edited one (lancet's .lancet/ aside)."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and p != target and ".lancet" not in p.relative_to(root).parts)


def classify(case, rc, report, got, err, stray=()):
    """Outcome and reason from the exit code, the report (None: missing or unparsable), the file's
    bytes afterwards (None: the file is gone) and any files left beside it."""
    before, want, expect = case["before"], case["after"], case["expect"]
    changed = got != before
    if rc == 0:
        if expect == "refused":
            what = "wrote" if changed else "reported success for"
            return "applied-wrong", f"exit 0: {what} an edit that must be refused ({status_of(report)})"
        if got is None:
            return "applied-wrong", "exit 0 but the file is gone"
        if got != want:
            if not changed:
                return "applied-wrong", f"exit 0 ({status_of(report)}) but the file is unchanged"
            return "applied-wrong", f"exit 0 but {first_difference(got, want)}"
        if stray:
            return "applied-wrong", f"left files beside the edited one: {', '.join(stray[:3])}"
        if report is None:
            return "error", "exit 0 with no JSON report on stdout"
        return "applied-correct", ""
    if rc == 1:
        if changed:
            return "applied-wrong", f"exit 1 ({status_of(report)}) but the file changed"
        if stray:
            return "applied-wrong", f"exit 1 but left files beside the edited one: {', '.join(stray[:3])}"
        if report is None:
            return "error", "exit 1 with no JSON report on stdout"
        if expect == "refused":
            return "refused-correctly", first_error(report)
        return "refused", first_error(report)
    if changed and got is not None and rc != "cannot run":
        return "applied-wrong", f"exit {rc} but the file changed"
    if got is None:
        return "applied-wrong", f"exit {rc} and the file is gone"
    text = first_error(report) if report else (err.decode("utf-8", "replace").strip().splitlines() or ["no output"])[0]
    return "error", f"exit {rc}: {text}"


def status_of(report):
    return f"status {report.get('status')}" if report else "no report"


def first_error(report):
    """`kind: message` of the report's first error, wherever the report puts it: `errors[]`, a
    file of `files[]` or one of its `hunks[]`, `error`, else the top-level `message`."""
    if not report:
        return "no report"
    candidates = []
    errors = report.get("errors")
    if isinstance(errors, list):
        candidates += [e for e in errors if isinstance(e, dict)]
    for f in report.get("files") or []:
        if not isinstance(f, dict):
            continue
        if f.get("kind") or f.get("error"):
            candidates.append(f)
        candidates += [h for h in f.get("hunks") or [] if isinstance(h, dict) and (h.get("kind") or h.get("error"))]
    if isinstance(report.get("error"), dict):
        candidates.append(report["error"])
    kind, msg = None, None
    for c in candidates:
        kind = c.get("kind")
        msg = c.get("message") or c.get("error")
        if kind or msg:
            break
    if not (kind or msg):
        msg = report.get("message")
    msg = " ".join(str(msg or "").split())
    if len(msg) > 160:
        msg = msg[:157] + "..."
    head = f"{kind}: " if kind else ""
    return (head + msg).strip(": ") or f"status {report.get('status')}"


def first_difference(got, want):
    g, w = got.split(b"\n"), want.split(b"\n")
    for i, (x, y) in enumerate(zip(g, w)):
        if x != y:
            return f"line {i + 1} is {short(x)}, want {short(y)}"
    if len(g) != len(w):
        return f"{len(g)} lines, want {len(w)} (first extra: {short((g + w)[min(len(g), len(w))])})"
    return "the bytes differ"


def short(b, n=60):
    s = b.decode("utf-8", "replace").rstrip("\r")
    return repr(s if len(s) <= n else s[:n - 3] + "...")


# ---------------------------------------------------------------------------------- main


def print_counts(results):
    by = defaultdict(Counter)
    for r in results:
        by[r["lang"]][r["outcome"]] += 1
    head = f"{'language':10} {'cases':>6} " + " ".join(f"{o:>17}" for o in OUTCOMES)
    print(head)
    print("-" * len(head))
    total = Counter()
    for lang in sorted(by):
        total.update(by[lang])
        print(f"{lang:10} {sum(by[lang].values()):6} " + " ".join(f"{by[lang][o]:17}" for o in OUTCOMES))
    print("-" * len(head))
    print(f"{'total':10} {sum(total.values()):6} " + " ".join(f"{total[o]:17}" for o in OUTCOMES))
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet", help="the lancet binary")
    ap.add_argument("--only", help="case id globs, comma-separated (e.g. 'py-*,go-01*')")
    ap.add_argument("--json", help="write every case's result here")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the correct cases too")
    args = ap.parse_args()

    lancet = os.path.abspath(args.lancet) if os.sep in args.lancet else shutil.which(args.lancet) or args.lancet
    cases = load_cases(args.only.split(",") if args.only else None)
    if not cases:
        raise SystemExit("no case selected")
    expects = Counter(c["expect"] for c in cases)
    print(f"sketch corpus: {len(cases)} cases ({expects['applied']} to apply, {expects['refused']} to refuse); "
          f"lancet: {lancet}", flush=True)

    workdir = tempfile.mkdtemp(prefix="lancet-sketch-")
    results = []
    try:
        for case in cases:
            outcome, reason, rc, report = run_case(lancet, case, workdir)
            results.append({"id": case["id"], "lang": case["lang"], "format": case["format"],
                            "fragment": case["fragment"], "set": case["set"],
                            "path": case["path"], "expect": case["expect"], "outcome": outcome,
                            "reason": reason, "exit": rc,
                            "status": report.get("status") if report else None})
            if outcome not in ("applied-correct", "refused-correctly") or args.verbose:
                print(f"{outcome:17}  {case['id']}  {reason}".rstrip(), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    print()
    total = print_counts(results)
    failed = sum(total[o] for o in FAILING)
    print(f"\n{total['applied-correct'] + total['refused-correctly']} correct, {total['refused']} refused "
          f"(expected applied), {failed} failed (applied-wrong or error)")
    for name in ("cases", "attack"):
        part = [r for r in results if r["set"] == name]
        if part:
            c = Counter(r["outcome"] for r in part)
            print(f"{name:7} {len(part):4} cases: " + ", ".join(f"{c[o]} {o}" for o in OUTCOMES))
    fragments = [r for r in results if r["fragment"] and r["expect"] == "applied" and r["set"] == "cases"]
    placed = sum(r["outcome"] == "applied-correct" for r in fragments)
    short_of_floor = bool(fragments) and placed < FRAGMENT_FLOOR * len(fragments)
    if fragments:
        print(f"fragments: {placed} of {len(fragments)} expected to apply are applied-correct "
              f"({100 * placed / len(fragments):.0f}%, floor {FRAGMENT_FLOOR:.0%})"
              + (" -- BELOW THE FLOOR" if short_of_floor else ""))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"lancet": lancet, "counts": {o: total[o] for o in OUTCOMES}, "results": results},
                      f, indent=1, ensure_ascii=False)
    return 1 if failed or short_of_floor else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `| head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)

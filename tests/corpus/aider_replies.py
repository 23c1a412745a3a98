#!/usr/bin/env python3
"""Real replies models wrote in aider sessions, applied by lancet and judged by the commits that
applied them (../shared/corpus/aider-replies, read in place, never copied here).

Usage: tests/corpus/aider_replies.py LANCET_BIN [--corpus DIR] [--only GLOB] [-j N] [--aider]
                                     [--cache DIR] [--json OUT] [-v]

Each case runs in a fresh temporary directory holding only its `files_before`; the reply goes to
`lancet apply --no-checkpoint --no-fsync --json` on stdin, exactly as written (prose, fences and
all; the format is detected). The touched files are then compared with `files_after` (byte for
byte, or after CRLF->LF and one final newline for `compare=normalized`), as the corpus README says:

  applied-correct  exit 0 and every touched file as the commit has it;
  refused          a nonzero exit and the tree unchanged: acceptable for `retry` and `already-applied`
                   (aider refused those too) and for `unopened-block` replies; a miss otherwise;
  applied-wrong    anything else (a wrong or partial write, exit 0 with nothing changed where the
                   commit changed something, a stray file, or the right tree with a nonzero exit).

The run prints the outcomes per category and per tag, and fails (exit 1) on any applied-wrong not
listed in tests/corpus/aider_replies_divergences.toml (each entry a case whose landed commit is
questionable ground truth, read by hand, with the reason). With --aider, the same cases also go
through Aider 0.86.2's own code (aider/coders/editblock_coder.py from the pinned wheel, fetched at
run time by aider_rules.py into the corpus cache), judged the same way, for comparison.
"""

import argparse
import concurrent.futures as cf
import fnmatch
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter, defaultdict

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE.parent.parent.parent / "shared" / "corpus" / "aider-replies"
DIVERGENCES = HERE / "aider_replies_divergences.toml"
OUTCOMES = ["applied-correct", "refused", "refused-wrongly", "applied-wrong"]


def normalized(text):
    if text is None:
        return None
    text = text.replace("\r\n", "\n")
    return text if text.endswith("\n") or text == "" else text + "\n"


def judge(case, code, root):
    """The outcome of a run that exited `code` and left `root`."""
    before, after = case["files_before"], case["files_after"]
    got = {}
    for path in case["paths"]:
        p = root / path
        got[path] = p.read_bytes().decode("utf-8", "replace") if p.is_file() else None
    known = set(case["paths"])
    stray = [str(p.relative_to(root)) for p in root.rglob("*")
             if p.is_file() and ".lancet" not in p.parts and str(p.relative_to(root)) not in known]
    same = (lambda a, b: normalized(a) == normalized(b)) if case["compare"] == "normalized" \
        else (lambda a, b: a == b)
    unchanged = all(got[p] == before.get(p) for p in case["paths"]) and not stray
    correct = all(same(got[p], after.get(p)) for p in case["paths"]) and not stray
    if code == 0 and correct:
        return "applied-correct"
    if code != 0 and unchanged:
        acceptable = case["category"] in ("retry", "already-applied") or "unopened-block" in case["tags"]
        return "refused" if acceptable else "refused-wrongly"
    return "applied-wrong"


def write_before(case, root):
    for path, text in case["files_before"].items():
        if text is None:
            continue
        p = root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))


def run_lancet(lancet, case, workdir):
    root = pathlib.Path(tempfile.mkdtemp(prefix="r-", dir=workdir)).resolve()
    try:
        write_before(case, root)
        proc = subprocess.run([lancet, "apply", "-C", str(root), "--no-checkpoint", "--no-fsync", "--json"],
                              input=case["reply_text"].encode("utf-8"), capture_output=True, timeout=120)
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            report = {}
        shutil.rmtree(root / ".lancet", ignore_errors=True)
        return judge(case, proc.returncode, root), report.get("message", proc.stderr.decode()[:300])
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------- aider's own rules

_aider = None


def _init_aider(wheel_root):
    global _aider
    import aider_rules
    _aider = aider_rules.load_editblock(pathlib.Path(wheel_root))


def run_aider(case, workdir):
    """Aider's Coder.apply_updates for the reply, every touched file in the chat."""
    import aider_rules
    m = _aider
    root = pathlib.Path(tempfile.mkdtemp(prefix="a-", dir=workdir)).resolve()
    try:
        write_before(case, root)
        # aider's prepare_to_edit makes the empty file a block creates before applying it.
        for path, text in case["files_before"].items():
            if text is None:
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).touch()
        coder = m.EditBlockCoder.__new__(m.EditBlockCoder)
        coder.root = str(root)
        coder.abs_fnames = {str(root / p) for p in case["paths"]}
        coder.io = aider_rules.AiderIO("platform")
        coder.fence = m.DEFAULT_FENCE
        coder.shell_commands = []
        coder.partial_response_content = case["reply_text"]
        try:
            edits = coder.get_edits()
            edits = coder.apply_edits_dry_run(edits)
            coder.apply_edits(edits)
            code = 0
        except ValueError:
            code = 1
        except Exception:
            code = 2
        return judge(case, code, root), ""
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _aider_one(args):
    case, workdir = args
    return case["case_id"], run_aider(case, workdir)


# ---------------------------------------------------------------------------- reporting


def table(title, results, cases, key):
    rows = defaultdict(Counter)
    for c in cases:
        for k in key(c):
            rows[k][results[c["case_id"]]] += 1
            rows["all"][results[c["case_id"]]] += 0
    total = Counter(results[c["case_id"]] for c in cases)
    lines = [f"{title:<28} {'cases':>6} " + " ".join(f"{o:>16}" for o in OUTCOMES)]
    for k in sorted(rows, key=lambda k: (-sum(rows[k].values()), k)):
        if k == "all":
            continue
        lines.append(f"{k:<28} {sum(rows[k].values()):>6} " + " ".join(f"{rows[k][o]:>16}" for o in OUTCOMES))
    lines.append(f"{'all':<28} {sum(total.values()):>6} " + " ".join(f"{total[o]:>16}" for o in OUTCOMES))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lancet")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--only", help="only the cases whose id matches this glob")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--aider", action="store_true", help="also run Aider 0.86.2's own rules")
    ap.add_argument("--cache", help="corpus cache (default: $XDG_CACHE_HOME/lancet-corpus)")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per case not applied-correct")
    args = ap.parse_args()
    lancet = os.path.abspath(args.lancet)
    corpus = pathlib.Path(args.corpus)
    if not (corpus / "cases").is_dir():
        print(f"aider-replies corpus not found at {corpus}")
        return 2
    cases = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((corpus / "cases").glob("*.json"))]
    if args.only:
        cases = [c for c in cases if fnmatch.fnmatch(c["case_id"], args.only)]
    divergences = tomllib.loads(DIVERGENCES.read_text()).get("case", []) if DIVERGENCES.exists() else []
    listed = {d["id"]: d["reason"] for d in divergences}
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="lancet-aider-replies-"))
    try:
        results, messages = {}, {}
        with cf.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for c, (outcome, message) in zip(cases, pool.map(lambda c: run_lancet(lancet, c, workdir), cases)):
                results[c["case_id"]] = outcome
                messages[c["case_id"]] = message
        print(f"aider-replies: {len(cases)} real replies from {corpus}")
        print(table("lancet, per category", results, cases, lambda c: [c["category"]]))
        print()
        print(table("lancet, per tag", results, cases, lambda c: c["tags"] or ["(none)"]))
        if args.aider:
            sys.path.insert(0, str(HERE))
            import aider_rules
            cache = pathlib.Path(args.cache) if args.cache else \
                pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "lancet-corpus"
            try:
                wheel = aider_rules.fetch_aider(cache)
            except aider_rules.Unavailable as e:
                print(f"\naider's own rules: not run ({e})")
            else:
                aider = {}
                with cf.ProcessPoolExecutor(max_workers=args.jobs, initializer=_init_aider,
                                            initargs=(str(wheel),)) as pool:
                    for cid, (outcome, _) in pool.map(_aider_one, [(c, workdir) for c in cases]):
                        aider[cid] = outcome
                print()
                print(table("aider 0.86.2, per category", aider, cases, lambda c: [c["category"]]))
        wrong = [c for c in cases if results[c["case_id"]] == "applied-wrong"]
        unlisted = [c for c in wrong if c["case_id"] not in listed]
        if args.verbose:
            for c in cases:
                if results[c["case_id"]] != "applied-correct":
                    print(f"  {c['case_id']} {c['category']:<16} {results[c['case_id']]:<16} "
                          f"{messages[c['case_id']][:160]!r}")
        for c in wrong:
            mark = "listed" if c["case_id"] in listed else "UNLISTED"
            print(f"applied-wrong ({mark}): {c['case_id']} {c['category']} {c['tags']}: "
                  f"{messages[c['case_id']][:200]!r}")
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(
                [{"id": c["case_id"], "category": c["category"], "tags": c["tags"],
                  "outcome": results[c["case_id"]]} for c in cases], indent=1))
        counts = Counter(results.values())
        print(f"aider-replies: {counts['applied-correct']} applied-correct, {counts['refused']} refused "
              f"(acceptable), {counts['refused-wrongly']} refused (expected applied), "
              f"{counts['applied-wrong']} applied-wrong ({len(unlisted)} unlisted)")
        return 1 if unlisted else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

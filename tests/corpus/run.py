#!/usr/bin/env python3
"""Run lancet on the release-edit corpus and check every outcome.

Usage: tests/corpus/run.py LANCET_BIN [--cache DIR] [--only CATEGORY[,..]] [--format F[,..]]
                           [--project P[,..]] [--id GLOB] [-j N] [--json OUT] [--max-list N]
                           [--compile-check] [--repro DIR]

The cases come from gen_release_edits.py (run first if the cache has none for the current
manifest). Each case runs in a fresh temporary directory that is not a git repository: the one
touched file is written there, the edit goes to
`LANCET_BIN apply -C DIR --format F --json --no-checkpoint --no-fsync --no-compile-check` on
stdin (the syntax gate stays on; --compile-check also runs the external compilers), and the
exit code, the JSON report and the file's bytes afterwards are compared with the case's
expected outcome:

  applied-correct   expected applied: exit 0, status applied, bytes == the expected file
  already-applied   expected already_applied (resent): exit 0, status already_applied, file untouched
  refused           expected refused: exit 1, file untouched
  refused-wrongly   an apply (or already_applied) was expected, lancet refused: exit 1, file untouched
  applied-wrong     applied but the bytes differ from the expected file; applied (or claimed
                    already_applied) where a refusal was expected; applied again a resent edit;
                    changed the file while refusing
  error             any other exit code (2 malformed, 4, a crash) or an unreadable report

Every applied-wrong and error case is listed with a one-line reason and a reproduction directory
(before/, edit.txt, expected/, got/, report.json, repro.sh). Those not listed in
tests/corpus/divergences.toml fail the run (exit 1). The last line is `N passed, N failed`.
"""

import argparse
import concurrent.futures as cf
import fnmatch
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter, defaultdict

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import gen_release_edits as gen  # noqa: E402

OUTCOMES = ["applied-correct", "already-applied", "refused", "refused-wrongly", "applied-wrong", "error"]
FAILING = {"applied-wrong", "error"}


def load_divergences():
    p = HERE / "divergences.toml"
    if not p.exists():
        return {}
    with open(p, "rb") as f:
        return tomllib.load(f).get("divergences", {})


def listed(divs, case_id):
    for pat, reason in divs.items():
        if pat == case_id or fnmatch.fnmatchcase(case_id, pat):
            return pat, reason
    return None


def short(s, n=70):
    s = s.rstrip("\n")
    return repr(s if len(s) <= n else s[: n - 3] + "...")


def first_difference(got, want):
    g, w = got.split("\n"), want.split("\n")
    for i, (x, y) in enumerate(zip(g, w)):
        if x != y:
            return f"line {i + 1}: got {short(x)}, want {short(y)}"
    if len(g) != len(w):
        return f"got {len(g)} lines, want {len(w)}"
    return "bytes differ (line endings?)"


def hunk_summary(report):
    tiers, kinds = [], []
    for f in report.get("files") or []:
        for h in f.get("hunks") or []:
            if h.get("tier"):
                tiers.append(h["tier"])
            if h.get("kind"):
                kinds.append(h["kind"])
        if f.get("kind"):
            kinds.append(f["kind"])
    if report.get("error"):
        kinds.append(str(report["error"].get("kind")))
    if (report.get("syntax") or {}).get("errors"):
        kinds.append("syntax_gate")
    return ",".join(dict.fromkeys(tiers)) or "-", ",".join(dict.fromkeys(kinds)) or "-"


class Runner:
    def __init__(self, lancet, blobs, workdir, extra_flags):
        self.lancet, self.blobs, self.workdir = lancet, blobs, workdir
        self.extra = extra_flags

    def blob(self, h, crlf):
        t = (self.blobs / h).read_bytes()
        return t.replace(b"\n", b"\r\n") if crlf else t

    def cmd(self, root, fmt):
        return [self.lancet, "apply", "-C", str(root), "--format", fmt, "--json", "--no-checkpoint", *self.extra]

    def run(self, case):
        before = self.blob(case["before"], case["crlf"])
        want = self.blob(case["after"], case["crlf"]) if case["after"] else None
        root = pathlib.Path(tempfile.mkdtemp(prefix="c-", dir=self.workdir))
        try:
            target = root / case["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(before)
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(self.cmd(root, case["format"]), input=case["edit"].encode(),
                                      capture_output=True, timeout=60)
                rc, out, err = proc.returncode, proc.stdout, proc.stderr
            except subprocess.TimeoutExpired:
                rc, out, err = "timeout", b"", b""
            dt = time.perf_counter() - t0
            got = target.read_bytes() if target.exists() else None
            stray = stray_files(root, target)
            try:
                report = json.loads(out) if out.strip() else {}
            except json.JSONDecodeError:
                report = {}
            outcome, reason = judge(case, rc, report, before, want, got, err, stray)
            res = {"id": case["id"], "category": case["category"], "format": case["format"],
                   "project": case["project"], "path": case["path"], "expect": case["expect"],
                   "outcome": outcome, "reason": reason, "exit": rc, "status": report.get("status"),
                   "tier": hunk_summary(report)[0], "kind": hunk_summary(report)[1],
                   "note": case["note"], "seconds": round(dt, 4)}
            if outcome in FAILING:
                res["_artifacts"] = (before, want, got, out, err)
            return res
        finally:
            shutil.rmtree(root, ignore_errors=True)


def stray_files(root, target):
    """Files in the case's directory other than the touched one (and lancet's .lancet/)."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and p != target and ".lancet" not in p.relative_to(root).parts)


def judge(case, rc, report, before, want, got, err, stray=()):
    """One case's outcome and reason from the engine's exit code, JSON report and the file's bytes
    before, expected and after, plus any stray file it left. Shared with aider_rules.py."""
    outcome, reason = classify(case, rc, report, before, want, got, err)
    if stray and outcome not in FAILING:
        outcome, reason = "applied-wrong", f"left stray files: {stray[:3]}"
    return outcome, reason


def classify(case, rc, report, before, want, got, err):
    status = report.get("status")
    expect = case["expect"]
    tier, kind = hunk_summary(report)
    unchanged = got == before
    if rc not in (0, 1) or not report:
        msg = (report.get("message") or err.decode("utf-8", "replace") or "").strip().splitlines()
        return "error", f"exit {rc}, status {status}: {msg[0][:140] if msg else 'no report'}"
    if rc == 1:
        if not unchanged:
            return "applied-wrong", f"exit 1 (status {status}) but the file changed"
        if expect == "refused":
            return "refused", ""
        return "refused-wrongly", f"refused ({kind})"
    # rc == 0
    if status == "already_applied":
        if not unchanged:
            return "applied-wrong", "status already_applied but the file changed"
        if expect == "already_applied":
            return "already-applied", ""
        if expect == "refused":
            return "applied-wrong", f"claimed already_applied (tier {tier}) for an edit that must be refused"
        return "applied-wrong", "claimed already_applied; nothing was written"
    if status != "applied":
        return "error", f"exit 0 with status {status}"
    if expect == "refused":
        what = "wrote" if not unchanged else "reported applied for"
        return "applied-wrong", f"{what} an edit that must be refused (tier {tier})"
    if expect == "already_applied":
        return "applied-wrong", f"applied a resent edit again (tier {tier})"
    if got == want:
        return "applied-correct", ""
    return "applied-wrong", f"applied (tier {tier}) but {first_difference(got.decode('utf-8', 'replace'), want.decode('utf-8', 'replace'))}"


def save_repro(base, res, case, lancet):
    before, want, got, out, err = res.pop("_artifacts")
    d = base / re.sub(r"[^A-Za-z0-9._-]+", "_", res["id"])
    if d.exists():
        shutil.rmtree(d)
    for sub, data in (("before", before), ("expected", want), ("got", got)):
        if data is not None:
            p = d / sub / case["path"]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
    (d / "edit.txt").write_text(case["edit"], encoding="utf-8")
    (d / "report.json").write_bytes(out + (b"\n--- stderr\n" + err if err else b""))
    (d / "case.json").write_text(json.dumps({k: v for k, v in res.items()}, indent=1, ensure_ascii=False))
    cmp = (f"cmp expected/{shlex.quote(case['path'])} \"$d/{case['path']}\" && echo same as expected"
           if want is not None else f"cmp before/{shlex.quote(case['path'])} \"$d/{case['path']}\" && echo untouched")
    (d / "repro.sh").write_text(
        "#!/bin/sh\n# " + res["id"] + "\ncd \"$(dirname \"$0\")\"\nd=$(mktemp -d)\ncp -r before/. \"$d\"\n"
        f"{shlex.quote(lancet)} apply -C \"$d\" --format {case['format']} --no-checkpoint < edit.txt; echo \"exit $?\"\n"
        f"{cmp}\n")
    return d


def print_failure_kinds(bad, what):
    """Per category, how the failing cases ended: `status/tier` and how many."""
    print(f"\napplied-wrong / error by category ({what}):")
    summary = defaultdict(Counter)
    for r in bad:
        summary[r["category"]][f"{r['status']}/{r['tier']}"] += 1
    for cat in gen.CATEGORIES:
        if cat in summary:
            print(f"  {cat:22} " + ", ".join(f"{k} {n}" for k, n in summary[cat].most_common()))


def print_table(results):
    by = defaultdict(Counter)
    for r in results:
        by[(r["category"], r["format"])][r["outcome"]] += 1
    cats = [c for c in gen.CATEGORIES if any(k[0] == c for k in by)]
    head = f"{'category':22} {'format':15} {'expect':16} {'cases':>6} " + " ".join(f"{o:>15}" for o in OUTCOMES)
    print(head)
    print("-" * len(head))
    tot = Counter()
    for c in cats:
        for f in gen.FORMATS:
            if (c, f) not in by:
                continue
            cnt = by[(c, f)]
            tot.update(cnt)
            print(f"{c:22} {f:15} {gen.CATEGORIES[c][0]:16} {sum(cnt.values()):6} "
                  + " ".join(f"{cnt[o]:15}" for o in OUTCOMES))
    print("-" * len(head))
    print(f"{'total':22} {'':15} {'':16} {sum(tot.values()):6} " + " ".join(f"{tot[o]:15}" for o in OUTCOMES))


def markdown_table(results):
    """category x format, each cell `correct / refused-wrongly / applied-wrong(+error)`."""
    by = defaultdict(Counter)
    for r in results:
        by[(r["category"], r["format"])][r["outcome"]] += 1
    lines = ["| category | expected | " + " | ".join(gen.FORMATS) + " |", "|---|---|" + "---|" * len(gen.FORMATS)]
    for c in gen.CATEGORIES:
        if not any((c, f) in by for f in gen.FORMATS):
            continue
        cells = []
        for f in gen.FORMATS:
            cnt = by.get((c, f))
            if not cnt:
                cells.append("")
                continue
            ok = cnt["applied-correct"] + cnt["already-applied"] + cnt["refused"]
            cells.append(f"{ok} / {cnt['refused-wrongly']} / {cnt['applied-wrong'] + cnt['error']}")
        lines.append(f"| {c} | {gen.CATEGORIES[c][0]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet")
    ap.add_argument("--cache", default=str(gen.default_cache()))
    ap.add_argument("--only", help="categories, comma-separated")
    ap.add_argument("--format", help="formats, comma-separated")
    ap.add_argument("--project", help="projects, comma-separated")
    ap.add_argument("--id", help="case id glob")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every case's result here")
    ap.add_argument("--max-list", type=int, default=100, help="applied-wrong cases listed (and saved) at most")
    ap.add_argument("--compile-check", action="store_true", help="let the gate run external compilers too")
    ap.add_argument("--markdown", action="store_true", help="also print the figures as a Markdown table (README)")
    ap.add_argument("--repro", default=None, help="where reproductions go (default /tmp/lancet-corpus-repro)")
    args = ap.parse_args()

    lancet = os.path.abspath(args.lancet) if os.sep in args.lancet else shutil.which(args.lancet) or args.lancet
    t0 = time.time()
    cases_dir = gen.generate(args.cache)
    stats = json.loads((cases_dir / "stats.json").read_text())
    want_cats = set(args.only.split(",")) if args.only else None
    if want_cats and want_cats - set(gen.CATEGORIES):
        raise SystemExit(f"unknown categories {sorted(want_cats - set(gen.CATEGORIES))}; known: {', '.join(gen.CATEGORIES)}")
    want_fmts = set(args.format.split(",")) if args.format else None
    want_proj = set(args.project.split(",")) if args.project else None
    cases = []
    with open(cases_dir / "cases.jsonl", encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            if want_cats and c["category"] not in want_cats:
                continue
            if want_fmts and c["format"] not in want_fmts:
                continue
            if want_proj and c["project"] not in want_proj:
                continue
            if args.id and not fnmatch.fnmatchcase(c["id"], args.id):
                continue
            cases.append(c)
    if not cases:
        raise SystemExit("no case selected")
    print(f"corpus: {stats['hunks_used']} real hunks from {len(stats['projects'])} projects "
          f"({', '.join(stats['languages'])}); {len(cases)} cases selected; lancet: {lancet}", flush=True)

    workdir = pathlib.Path(tempfile.mkdtemp(prefix="lancet-corpus-run-"))
    extra = ["--no-fsync"] + ([] if args.compile_check else ["--no-compile-check"])
    runner = Runner(lancet, cases_dir / "blobs", workdir, extra)
    by_id = {c["id"]: c for c in cases}
    results = []
    try:
        with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            for n, res in enumerate(ex.map(runner.run, cases, chunksize=16), 1):
                results.append(res)
                if sys.stderr.isatty() and n % 500 == 0:
                    print(f"  {n}/{len(cases)}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    print()
    print_table(results)
    if args.markdown:
        print("\ncells: correct / refused-wrongly / applied-wrong (+error)\n")
        print(markdown_table(results))

    divs = load_divergences()
    repro_base = pathlib.Path(args.repro or "/tmp/lancet-corpus-repro")
    bad = [r for r in results if r["outcome"] in FAILING]
    unlisted, accepted = [], []
    for r in bad:
        hit = listed(divs, r["id"])
        if hit:
            r["divergence"] = hit[1]
            accepted.append(r)
        else:
            unlisted.append(r)
    if bad:
        print_failure_kinds(bad, "lancet's status and tier")
        if repro_base.exists():
            shutil.rmtree(repro_base, ignore_errors=True)
        repro_base.mkdir(parents=True, exist_ok=True)
        print(f"\napplied-wrong / error cases not in divergences.toml: {len(unlisted)} "
              f"(reproductions under {repro_base})")
        # interleave the categories so that a short list still shows every kind of failure
        cat_index = {c: i for i, c in enumerate(gen.CATEGORIES)}
        fmt_index = {f: i for i, f in enumerate(gen.FORMATS)}
        hunk_rank = defaultdict(dict)
        keyed = []
        for r in unlisted:
            ranks = hunk_rank[r["category"]]
            rank = ranks.setdefault(r["id"].rsplit(":", 2)[0], len(ranks))
            keyed.append((rank, cat_index[r["category"]], fmt_index[r["format"]], len(keyed), r))
        unlisted = [k[-1] for k in sorted(keyed, key=lambda k: k[:4])]
        for r in unlisted[: args.max_list]:
            d = save_repro(repro_base, r, by_id[r["id"]], lancet)
            print(f"  {r['id']}  [{r['outcome']}] {r['reason']}; perturbed: {r['note'] or '-'}\n      repro: {d}/repro.sh")
        if len(unlisted) > args.max_list:
            print(f"  ... {len(unlisted) - args.max_list} more (--max-list, --json)")
        if accepted:
            print(f"listed in divergences.toml: {len(accepted)}")
    for r in results:
        r.pop("_artifacts", None)
    listed_ok = sorted({pat for pat in divs for r in results
                        if r["outcome"] not in FAILING and (pat == r["id"] or fnmatch.fnmatchcase(r["id"], pat))}
                       - {listed(divs, r["id"])[0] for r in accepted})
    if listed_ok:
        print(f"\nnote: {len(listed_ok)} divergences.toml entr(y/ies) no longer fail; remove them: {listed_ok[:10]}")

    secs = [r["seconds"] for r in results]
    print(f"\n{len(results)} cases in {time.time() - t0:.0f} s (-j {args.jobs}; lancet mean {1000 * sum(secs) / len(secs):.1f} ms a case)")
    skipped = sum(n for cat, reasons in stats["skipped"].items() if cat != "all"
                  and (not want_cats or cat in want_cats) for n in reasons.values())
    print(f"{skipped} case(s) of the selected categories skipped at generation as not well-defined "
          "(gen_release_edits.py prints why)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"lancet": lancet, "stats": stats, "results": results}, f, indent=1, ensure_ascii=False)
    failed = len(unlisted)
    print(f"{len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

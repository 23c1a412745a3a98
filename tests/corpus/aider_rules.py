#!/usr/bin/env python3
"""The release-edit corpus's SEARCH/REPLACE cases applied by Aider's own code, next to lancet.

Usage: tests/corpus/aider_rules.py [LANCET_BIN] [--cache DIR] [--only CATEGORY[,..]]
                                   [--project P[,..]] [--id GLOB] [-j N] [--json OUT]
                                   [--line-endings platform|lf|crlf] [--max-list N] [--markdown]

Aider is third-party code and is never committed: the pinned wheel (AIDER below) is fetched at run
time with `pip download --no-deps` into the corpus cache (CACHE/dl/pypi/aider-chat/, the cache
run.py and gen_release_edits.py use), checked against its pinned sha256 and unzipped under
CACHE/src/pypi/. Only aider/coders/editblock_coder.py is loaded, with stub modules for what it
imports and does not need to apply an edit (Coder, EditBlockPrompts, dump, utils).

Every `search-replace` case of the corpus goes through what aider runs on a model's reply for one
file added to the chat, with aider's own functions: EditBlockCoder.get_edits (parses the blocks
with find_original_update_blocks), apply_edits_dry_run, then EditBlockCoder.apply_edits, which
calls do_replace block after block on the file as the previous block left it and writes every
block that matched; a block that matches nowhere makes apply_edits raise, which is aider's
refusal (the blocks before it stay written). The file is read and written as aider's
InputOutput does (utf-8, text mode; `--line-endings` as aider's option, default `platform`, i.e.
LF on Linux). Each case runs in a fresh temporary directory and is classified by run.py's own
judge()/classify() (exit 0 + status applied, or exit 1 + status refused), so the outcomes mean
exactly what they mean for lancet.

With LANCET_BIN, lancet runs the same cases (as run.py does) and the run prints both tables side
by side, the applied-wrong totals of both, and the cases aider gets right and lancet wrong. The
run never fails: it exits 0 whatever the figures (also when aider cannot be downloaded).
"""

import argparse
import concurrent.futures as cf
import fnmatch
import hashlib
import importlib.util
import json
import multiprocessing
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import types
import zipfile
from collections import Counter, defaultdict

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True
import gen_release_edits as gen  # noqa: E402
import run as corpus  # noqa: E402  (run.py: judge/classify, the tables, lancet's Runner)

AIDER = {"name": "aider-chat", "version": "0.86.2",
         "wheel": "aider_chat-0.86.2-py3-none-any.whl",
         "sha256": "64f6a0c66c9f4633ad9f479bca3e64ebcba02b9da03c6b604b74a44736b2416e"}
FORMAT = "search-replace"
GOOD = {"applied-correct", "already-applied", "refused"}


class Unavailable(Exception):
    pass


# ---------------------------------------------------------------------------- aider, at run time


def fetch_aider(cache, quiet=False):
    """The unpacked wheel's root (it holds aider/), downloaded into the corpus cache when missing."""
    dl = cache / "dl" / "pypi" / AIDER["name"]
    dest = cache / "src" / "pypi" / f"{AIDER['name']}-{AIDER['version']}-wheel"
    if (dest / ".complete").exists():
        return dest
    dl.mkdir(parents=True, exist_ok=True)
    wheel = dl / AIDER["wheel"]
    if not wheel.exists():
        gen.log(quiet, f"  downloading {AIDER['name']} {AIDER['version']} (pypi wheel)")
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
               f"{AIDER['name']}=={AIDER['version']}", "-d", str(dl)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Unavailable(f"{' '.join(cmd)}: {e}")
        if proc.returncode != 0 or not wheel.exists():
            raise Unavailable(f"{' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}".rstrip())
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != AIDER["sha256"]:
        raise Unavailable(f"{wheel}: sha256 {digest}, pinned {AIDER['sha256']}")
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=".unzip-", dir=dest.parent))
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(tmp)
    tmp.rename(dest)
    (dest / ".complete").write_text("")
    return dest


def stub(name, package=None, **attrs):
    m = types.ModuleType(name)
    if package is not None:
        m.__path__ = [str(package)]
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


class CoderStub:
    """Stands for aider.coders.base_coder.Coder: the three path helpers apply_edits and get_edits
    call, as base_coder.py writes them (abs_root_path without its cache)."""

    def abs_root_path(self, path):
        return str((pathlib.Path(self.root) / path).resolve())  # utils.safe_abs_path

    def get_rel_fname(self, fname):
        try:
            return os.path.relpath(fname, self.root)
        except ValueError:
            return fname

    def get_inchat_relative_files(self):
        return sorted(set(self.get_rel_fname(f) for f in self.abs_fnames))


def load_editblock(root):
    """aider/coders/editblock_coder.py from the unpacked wheel, its unneeded imports stubbed."""
    pkg = root / "aider"
    aider = stub("aider", pkg, __version__=AIDER["version"])
    stub("aider.coders", pkg / "coders")
    stub("aider.coders.base_coder", Coder=CoderStub)
    stub("aider.coders.editblock_prompts", EditBlockPrompts=type("EditBlockPrompts", (), {}))
    stub("aider.dump", dump=lambda *a: None)
    # editblock_coder uses aider.utils only in its main() (chat-history replay), never to apply
    aider.utils = stub("aider.utils")
    spec = importlib.util.spec_from_file_location("aider.coders.editblock_coder",
                                                  pkg / "coders" / "editblock_coder.py")
    m = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = m
    spec.loader.exec_module(m)
    instrument(m)
    return m


# Which of aider's strategies matched each block, recorded by wrapping the module's functions
# (they call each other through the module's globals); results are passed through unchanged.
TIERS = []
_hit = {}


def instrument(m):
    def record(fn, tier):
        def wrapper(*a, **kw):
            res = fn(*a, **kw)
            if res:
                _hit.update(tier=tier, n=len(a[1]) if tier != "dotdotdots" else None)
            return res
        return wrapper

    m.perfect_replace = record(m.perfect_replace, "exact")
    m.replace_part_with_missing_leading_whitespace = record(
        m.replace_part_with_missing_leading_whitespace, "leading_whitespace")
    m.try_dotdotdots = record(m.try_dotdotdots, "dotdotdots")
    most_similar, do_replace, prep = m.replace_most_similar_chunk, m.do_replace, m.prep

    def replace_most_similar_chunk(whole, part, replace):
        res = most_similar(whole, part, replace)
        if res and _hit.get("n") is not None and _hit["n"] != len(prep(part)[1]):
            _hit["tier"] = "skip_leading_blank+" + _hit["tier"]
        return res

    def wrapped_do_replace(*a, **kw):
        _hit.clear()
        res = do_replace(*a, **kw)
        if res:
            TIERS.append(_hit.get("tier", "append"))
        return res

    m.replace_most_similar_chunk = replace_most_similar_chunk
    m.do_replace = wrapped_do_replace
    # find_similar_lines only writes the "Did you mean to match some of these actual lines" hint
    # of a refusal's message (SequenceMatcher over every window of the file: two thirds of the
    # run's time); what aider writes or refuses does not depend on it
    m.find_similar_lines = lambda search_lines, content_lines, threshold=0.6: ""


class AiderIO:
    """aider.io.InputOutput.read_text / write_text: utf-8, text mode, `--line-endings`."""

    def __init__(self, line_endings):
        self.encoding = "utf-8"
        self.newline = None if line_endings == "platform" else "\n" if line_endings == "lf" else "\r\n"
        self.errors = []

    def read_text(self, filename, silent=False):
        try:
            with open(str(filename), "r", encoding=self.encoding) as f:
                return f.read()
        except (OSError, UnicodeError) as e:
            if not silent:
                self.tool_error(f"{filename}: {e}")
            return None

    def write_text(self, filename, content):
        with open(str(filename), "w", encoding=self.encoding, newline=self.newline) as f:
            f.write(content)

    def tool_error(self, msg="", strip=True):
        self.errors.append(msg)


# ---------------------------------------------------------------------------- one case


class AiderRunner:
    def __init__(self, editblock, blobs, workdir, line_endings):
        self.m, self.blobs, self.workdir, self.line_endings = editblock, blobs, workdir, line_endings

    def blob(self, h, crlf):
        t = (self.blobs / h).read_bytes()
        return t.replace(b"\n", b"\r\n") if crlf else t

    def apply(self, root, target, reply):
        """aider's Coder.apply_updates for a reply touching the one file in the chat.
        Returns (exit code, report) in lancet's terms: 0 applied, 1 refused, 2 error."""
        coder = self.m.EditBlockCoder.__new__(self.m.EditBlockCoder)
        coder.root = str(root)
        coder.abs_fnames = {str(target)}
        coder.io = AiderIO(self.line_endings)
        coder.fence = self.m.DEFAULT_FENCE  # choose_fence picks it: no corpus file has a line starting with ```
        coder.shell_commands = []
        coder.partial_response_content = reply
        try:
            edits = coder.get_edits()
            if not edits:
                return 0, {"status": "no_edits"}
            edits = coder.apply_edits_dry_run(edits)
            # prepare_to_edit: the file is in the chat, so every edit is allowed (no git here)
            TIERS.clear()
            coder.apply_edits(edits)
        except ValueError as e:
            msg = str(e.args[0]) if e.args else ""
            if "SEARCH/REPLACE block" not in msg or "failed to match" not in msg:
                kind = "malformed"
            else:
                kind = "no_match"
                if "The REPLACE lines are already in" in msg:
                    kind += ",replace_already_present"
                if "were applied successfully" in msg:
                    kind += ",others_applied"
            return 1, {"status": "refused", "error": {"kind": kind, "message": msg.splitlines()[0][:200]},
                       "files": [{"hunks": [{"tier": t} for t in TIERS]}]}
        except Exception as e:  # aider would report "Exception while updating files"
            return 2, {"status": "error", "error": {"kind": type(e).__name__, "message": str(e)[:200]}}
        return 0, {"status": "applied", "files": [{"hunks": [{"tier": t} for t in TIERS]}]}

    def run(self, case):
        before = self.blob(case["before"], case["crlf"])
        want = self.blob(case["after"], case["crlf"]) if case["after"] else None
        root = pathlib.Path(tempfile.mkdtemp(prefix="a-", dir=self.workdir)).resolve()
        try:
            target = root / case["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(before)
            t0 = time.perf_counter()
            rc, report = self.apply(root, target, case["edit"])
            dt = time.perf_counter() - t0
            got = target.read_bytes() if target.exists() else None
            err = (report.get("error") or {}).get("message", "").encode()
            outcome, reason = corpus.judge(case, rc, report, before, want, got, err,
                                           corpus.stray_files(root, target))
            tier, kind = corpus.hunk_summary(report)
            return {"id": case["id"], "category": case["category"], "format": case["format"],
                    "project": case["project"], "path": case["path"], "expect": case["expect"],
                    "outcome": outcome, "reason": reason, "exit": rc, "status": report.get("status"),
                    "tier": tier, "kind": kind, "note": case["note"], "seconds": round(dt, 4)}
        finally:
            shutil.rmtree(root, ignore_errors=True)


_worker = None


def _init_worker(wheel_root, blobs, workdir, line_endings):
    global _worker
    _worker = AiderRunner(load_editblock(pathlib.Path(wheel_root)), pathlib.Path(blobs),
                          pathlib.Path(workdir), line_endings)


def _run_one(case):
    return _worker.run(case)


# ---------------------------------------------------------------------------- reporting


def cells(cnt):
    ok = cnt["applied-correct"] + cnt["already-applied"] + cnt["refused"]
    return ok, cnt["refused-wrongly"], cnt["applied-wrong"] + cnt["error"]


def side_by_side(aider, lancet, markdown=False):
    """Per category: correct / refused-wrongly / applied-wrong, aider then lancet."""
    a, l = defaultdict(Counter), defaultdict(Counter)
    for r in aider:
        a[r["category"]][r["outcome"]] += 1
    for r in lancet or []:
        l[r["category"]][r["outcome"]] += 1
    cats = [c for c in gen.CATEGORIES if c in a]
    ta, tl = Counter(), Counter()
    rows = []
    for c in cats:
        ta.update(a[c])
        tl.update(l[c])
        rows.append((c, gen.CATEGORIES[c][0], sum(a[c].values()), cells(a[c]), cells(l[c]) if lancet else None))
    rows.append(("total", "", sum(ta.values()), cells(ta), cells(tl) if lancet else None))
    out = []
    if markdown:
        out.append("| category | expected | cases | aider | lancet |")
        out.append("|---|---|---|---|---|")
        for c, e, n, ca, cl in rows:
            fmt = lambda x: " / ".join(map(str, x)) if x else ""  # noqa: E731
            out.append(f"| {c} | {e} | {n} | {fmt(ca)} | {fmt(cl)} |")
        return "\n".join(out)
    head = (f"{'category':22} {'expect':16} {'cases':>6}   {'aider: correct':>14} {'ref-wrongly':>11} "
            f"{'app-wrong':>9}   {'lancet: correct':>15} {'ref-wrongly':>11} {'app-wrong':>9}")
    out += [head, "-" * len(head)]
    for c, e, n, ca, cl in rows:
        if c == "total":
            out.append("-" * len(head))
        right = f"{cl[0]:15} {cl[1]:11} {cl[2]:9}" if cl else f"{'-':>15} {'-':>11} {'-':>9}"
        out.append(f"{c:22} {e:16} {n:6}   {ca[0]:14} {ca[1]:11} {ca[2]:9}   {right}")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lancet", nargs="?", help="a lancet binary to run on the same cases for comparison")
    ap.add_argument("--cache", default=str(gen.default_cache()))
    ap.add_argument("--only", help="categories, comma-separated")
    ap.add_argument("--project", help="projects, comma-separated")
    ap.add_argument("--id", help="case id glob")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--line-endings", choices=["platform", "lf", "crlf"], default="platform",
                    help="aider's --line-endings (default platform, as aider's)")
    ap.add_argument("--json", help="write every case's result (aider's, and lancet's) here")
    ap.add_argument("--max-list", type=int, default=30, help="cases listed at most per list")
    ap.add_argument("--markdown", action="store_true", help="also print the side-by-side table in Markdown")
    args = ap.parse_args()

    t0 = time.time()
    cache = pathlib.Path(args.cache)
    try:
        wheel_root = fetch_aider(cache)
        load_editblock(wheel_root)  # fail early, in this process, if the module does not load
    except Unavailable as e:
        print(f"aider's rules: skipped, aider {AIDER['version']} is not available: {e}")
        sys.exit(0)
    t_fetch = time.time() - t0
    cases_dir = gen.generate(cache)
    want_cats = set(args.only.split(",")) if args.only else None
    if want_cats and want_cats - set(gen.CATEGORIES):
        raise SystemExit(f"unknown categories {sorted(want_cats - set(gen.CATEGORIES))}")
    want_proj = set(args.project.split(",")) if args.project else None
    cases = []
    with open(cases_dir / "cases.jsonl", encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            if c["format"] != FORMAT or (want_cats and c["category"] not in want_cats) \
                    or (want_proj and c["project"] not in want_proj) \
                    or (args.id and not fnmatch.fnmatchcase(c["id"], args.id)):
                continue
            cases.append(c)
    if not cases:
        raise SystemExit("no case selected")
    lancet = None
    if args.lancet:
        lancet = os.path.abspath(args.lancet) if os.sep in args.lancet else shutil.which(args.lancet) or args.lancet
    print(f"aider {AIDER['version']} (editblock_coder.py from {wheel_root}), line endings "
          f"{args.line_endings}; {len(cases)} {FORMAT} cases; lancet: {lancet or 'not run (no LANCET_BIN)'}",
          flush=True)

    workdir = pathlib.Path(tempfile.mkdtemp(prefix="aider-corpus-run-"))
    try:
        t1 = time.time()
        init = (str(wheel_root), str(cases_dir / "blobs"), str(workdir), args.line_endings)
        if args.jobs > 1:
            ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
            with cf.ProcessPoolExecutor(args.jobs, mp_context=ctx, initializer=_init_worker, initargs=init) as ex:
                aider = list(ex.map(_run_one, cases, chunksize=32))
        else:
            _init_worker(*init)
            aider = [_run_one(c) for c in cases]
        t_aider = time.time() - t1
        lres, t_lancet = None, 0.0
        if lancet:
            t1 = time.time()
            runner = corpus.Runner(lancet, cases_dir / "blobs", workdir, ["--no-fsync", "--no-compile-check"])
            with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
                lres = list(ex.map(runner.run, cases, chunksize=16))
            for r in lres:
                r.pop("_artifacts", None)
            t_lancet = time.time() - t1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    print("\naider's own rules:\n")
    corpus.print_table(aider)
    print(f"\ncells: correct / refused-wrongly / applied-wrong (+error), {FORMAT} cases\n")
    print(side_by_side(aider, lres))
    if args.markdown:
        print()
        print(side_by_side(aider, lres, markdown=True))

    bad = [r for r in aider if r["outcome"] in corpus.FAILING]
    if bad:
        corpus.print_failure_kinds(bad, "aider's status and strategy")
        # interleave the categories so that a short list still shows every kind of failure
        per_cat = defaultdict(list)
        for r in bad:
            per_cat[r["category"]].append(r)
        bad = [r for k in range(max(map(len, per_cat.values())))
               for c in gen.CATEGORIES if k < len(per_cat[c]) for r in [per_cat[c][k]]]
        for r in bad[: args.max_list]:
            print(f"  {r['id']}  [{r['outcome']}] {r['reason']}; perturbed: {r['note'] or '-'}")
        if len(bad) > args.max_list:
            print(f"  ... {len(bad) - args.max_list} more (--max-list, --json)")

    wrong_a = len(bad)
    if lres is not None:
        by_id = {r["id"]: r for r in lres}
        wrong_l = sum(r["outcome"] in corpus.FAILING for r in lres)
        # aider right where lancet is wrong: lancet applied wrongly (or errored), or refused an
        # edit aider applied correctly
        better = [(a, by_id[a["id"]]) for a in aider if a["outcome"] in GOOD and a["id"] in by_id
                  and (by_id[a["id"]]["outcome"] in corpus.FAILING
                       or (by_id[a["id"]]["outcome"] == "refused-wrongly" and a["outcome"] == "applied-correct"))]
        worse = sum(1 for a in aider if a["outcome"] in corpus.FAILING and by_id.get(a["id"], {}).get("outcome") in GOOD)
        print(f"\ncases aider gets right and lancet wrong: {len(better)}; the reverse (lancet right, aider "
              f"applied wrongly): {worse}")
        if better:
            cnt = Counter((a["category"], l["outcome"]) for a, l in better)
            print("  " + ", ".join(f"{c} (lancet {o}) {n}" for (c, o), n in sorted(cnt.items())))
            for a, l in better[: args.max_list]:
                print(f"  {a['id']}  aider {a['outcome']} ({a['tier']}); lancet [{l['outcome']}] {l['reason']}; "
                      f"perturbed: {a['note'] or '-'}")
            if len(better) > args.max_list:
                print(f"  ... {len(better) - args.max_list} more (--max-list, --json)")
        print(f"\napplied-wrong (+error) on the {len(cases)} {FORMAT} cases: lancet {wrong_l}, aider {wrong_a}")
    else:
        print(f"\napplied-wrong (+error) on the {len(cases)} {FORMAT} cases: aider {wrong_a}; lancet not run "
              "(pass LANCET_BIN to compare)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"aider": AIDER["version"], "line_endings": args.line_endings, "lancet": lancet,
                       "results": {"aider": aider, "lancet": lres}}, f, indent=1, ensure_ascii=False)
    am = 1000 * sum(r["seconds"] for r in aider) / len(aider)
    print(f"{len(cases)} cases in {time.time() - t0:.0f} s (aider fetch {t_fetch:.1f} s, aider run {t_aider:.1f} s, "
          f"{am:.1f} ms a case" + (f"; lancet run {t_lancet:.0f} s" if lres is not None else "") + f"; -j {args.jobs})")
    sys.exit(0)


if __name__ == "__main__":
    main()

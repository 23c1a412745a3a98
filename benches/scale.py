#!/usr/bin/env python3
"""Scale benchmarks: lancet against its peers on the CPython standard library.

What it measures (every figure is the median of --runs timed runs, default 5; every ratio
compares figures taken in the same invocation of this script, with the tools interleaved run
by run so that drift hits all of them alike):

1. rename -- `assertEqual` -> `expect_equal` over a copy of the whole stdlib:
   `lancet rename` (syntax gate, git checkpoint and fsync on, as by default) against `fastmod`
   (fixed-string, accept-all) and `ast-grep` (pattern rewrite, update-all). After one run each
   result tree is compared with the pristine copy: files changed, occurrences of `expect_equal`
   introduced in code / comments / strings (classified with Python's `tokenize`), files that
   no longer tokenize, and files that compiled before but no longer do.
   Targets: lancet <= 2x fastmod, >= 10x faster than ast-grep, 0 comment/string changes,
   0 broken files.
2. diff -- one 2,000-file unified diff (`git diff` output, a comment line inserted in each file)
   applied by `lancet apply` (syntax gate, checkpoint and fsync on), `git apply` and GNU
   `patch -p1`. Every run's result is checked byte for byte against the expected files.
   Target: lancet / git apply <= 1.0x.
3. call -- per-call overhead: a one-hunk patch to one file of a 10-file git repository, applied
   20+ times by `lancet apply` (defaults) and by `git apply` (and Codex's `apply_patch` when it
   is on PATH), the file put back untimed between calls. Targets: <= 10 ms, <= 1.5x the peer.

The corpus is the stdlib of the Python that runs this script
(`sysconfig.get_paths()["stdlib"]`) copied without site-packages, dist-packages and
__pycache__ (regular files only, symlinks skipped) into a temporary directory and committed
to git once; each timed run works on a fresh `cp -a` of that template made outside the timed
region. If the stdlib holds fewer than 2,000 suitable .py files (3.11 has about 1,560), the
diff corpus gets a second copy of the .py files under `zz_copy2/` to reach 2,000 (said in
the output).

Peers missing from PATH are installed (`cargo install fastmod`, `pip install ast-grep-cli`);
a peer that cannot be had is reported as "unavailable", as is `lancet rename` while the
subcommand does not exist.

Run (from the repository root, after `cargo build --release`):

    python3 benches/scale.py [--lancet target/release/lancet] [--runs 5] [--only rename|diff|call]

A tool whose timed runs in one benchmark add up to --budget seconds (default 150) is not run
again there, so that one very slow tool cannot stretch the whole run; its row then says over
how many runs its median is.

Python 3 standard library only. Needs git and GNU patch. Exit status 1 if a timed command
failed unexpectedly or a result was wrong (the tables are printed all the same).
"""

import argparse
import hashlib
import io
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import tokenize
import warnings

SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__"}
STATE_DIRS = {".git", ".lancet"}  # never part of a result tree comparison
GIT_ID = ["-c", "user.name=b", "-c", "user.email=b@b"]
DIFF_FILES = 2000
DIFF_MIN_LINES = 20
MARK = "# lancet-bench"
RENAME_FROM, RENAME_TO = "assertEqual", "expect_equal"
FSTRING_MIDDLE = getattr(tokenize, "FSTRING_MIDDLE", None)  # Python >= 3.12


class BenchError(Exception):
    """A timed command failed or a result was wrong: the tool's row says FAILED."""


class Unavailable(Exception):
    """The tool (or the lancet subcommand) is not there: the row says unavailable."""


# ----------------------------------------------------------------------------- helpers


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def tail(data, lines=15):
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else (data or "")
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run(cmd, cwd=None, check=True, capture=True):
    """Untimed helper command; raises BenchError on failure when `check`."""
    p = subprocess.run(
        cmd,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    if check and p.returncode != 0:
        raise BenchError(
            f"command failed (exit {p.returncode}): {' '.join(map(str, cmd))}\n{tail(p.stderr)}"
        )
    return p


def timed(cmd, cwd=None, ok_codes=(0,), capture_stdout=True, timeout=1800):
    """Run `cmd`, return (seconds, CompletedProcess). Non-zero exit -> BenchError."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(
            cmd,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture_stdout else subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise BenchError(f"timed command ran over {timeout} s: {' '.join(map(str, cmd))}")
    dt = time.perf_counter() - t0
    if p.returncode not in ok_codes:
        raise BenchError(
            f"timed command exited {p.returncode}: {' '.join(map(str, cmd))}\n"
            f"--- stderr (tail) ---\n{tail(p.stderr)}\n--- stdout (tail) ---\n{tail(p.stdout)}"
        )
    return dt, p


def over_budget(args, spent):
    """True once a tool has had its --budget seconds (it keeps the runs it has)."""
    return bool(spent) and sum(spent) >= args.budget


def runs_note(args, spent):
    return "" if len(spent) >= args.runs else f" ({len(spent)} of {args.runs} runs: --budget)"


def median(xs):
    return statistics.median(xs) if xs else None


def fmt_s(x):
    return "n/a" if x is None else f"{x:.3f} s"


def fmt_ms(x):
    return "n/a" if x is None else f"{x * 1000:.2f} ms"


def fmt_ratio(x):
    return "n/a" if x is None else f"{x:.2f}x"


def table(headers, rows):
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def verdict(ok):
    return "met" if ok else "NOT met"


def sha(data):
    return hashlib.sha256(data).digest()


def walk_files(root):
    """Relative POSIX paths of the regular files under root, minus .git/.lancet at the top."""
    out = []
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel == ".":
            dirs[:] = [x for x in dirs if x not in STATE_DIRS]
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(os.path.relpath(p, root).replace(os.sep, "/"))
    return out


def read(root, rel):
    with open(os.path.join(root, rel), "rb") as fh:
        return fh.read()


# ----------------------------------------------------------------------------- machine & tools


def machine_info():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        nproc = len(os.sched_getaffinity(0))
    except AttributeError:
        nproc = os.cpu_count()
    return nproc, model, platform.python_version()


def version_of(cmd):
    try:
        p = subprocess.run(cmd + ["--version"], capture_output=True, timeout=30)
        text = (p.stdout or p.stderr).decode("utf-8", "replace").strip().splitlines()
        return text[0] if text else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def find_fastmod(install=True):
    cand = shutil.which("fastmod")
    home = os.path.expanduser("~/.cargo/bin/fastmod")
    if not cand and os.access(home, os.X_OK):
        cand = home
    if cand or not install:
        return cand
    if not shutil.which("cargo"):
        return None
    log("fastmod not found: cargo install fastmod (takes a minute) ...")
    p = subprocess.run(["cargo", "install", "fastmod"], capture_output=True)
    if p.returncode != 0:
        log("cargo install fastmod failed:\n" + tail(p.stderr))
    return shutil.which("fastmod") or (home if os.access(home, os.X_OK) else None)


def _is_ast_grep(path):
    # /usr/bin/sg is often newgrp(1): accept a binary only if it says it is ast-grep.
    try:
        p = subprocess.run([path, "--version"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 0 and b"ast-grep" in (p.stdout + p.stderr)


def _ast_grep_candidates():
    dirs = [sysconfig.get_path("scripts")]
    try:
        dirs.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    except KeyError:
        pass
    dirs.append(os.path.expanduser("~/.local/bin"))
    for name in ("ast-grep", "sg"):
        w = shutil.which(name)
        if w:
            yield w
        for d in dirs:
            if d:
                yield os.path.join(d, name)


def find_ast_grep(install=True):
    for c in _ast_grep_candidates():
        if os.access(c, os.X_OK) and _is_ast_grep(c):
            return c
    if not install:
        return None
    pip = [sys.executable, "-m", "pip", "install", "-q", "ast-grep-cli"]
    for extra in ([], ["--user"], ["--break-system-packages"]):
        log(f"ast-grep not found: {' '.join(pip + extra)} ...")
        p = subprocess.run(pip + extra, capture_output=True)
        if p.returncode == 0:
            break
        log(tail(p.stderr, 5))
    for c in _ast_grep_candidates():
        if os.access(c, os.X_OK) and _is_ast_grep(c):
            return c
    return None


def lancet_help(lancet, sub):
    """`lancet SUB --help` text, or None when the subcommand does not exist."""
    p = subprocess.run([lancet, sub, "--help"], capture_output=True)
    if p.returncode != 0:
        return None
    return p.stdout.decode("utf-8", "replace")


def is_usage_error(p):
    err = p.stderr.decode("utf-8", "replace")
    return p.returncode == 2 and ("unrecognized subcommand" in err or "Usage:" in err)


# ----------------------------------------------------------------------------- corpus


class Corpus:
    def __init__(self, scratch):
        self.scratch = scratch
        self.stdlib = sysconfig.get_paths()["stdlib"]
        self.template = os.path.join(scratch, "template")
        self.n = 0

    def build(self):
        log(f"copying {self.stdlib} (no site-packages/dist-packages/__pycache__) ...")
        count = 0
        for d, dirs, files in os.walk(self.stdlib):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            rel = os.path.relpath(d, self.stdlib)
            dst_dir = os.path.normpath(os.path.join(self.template, rel))
            os.makedirs(dst_dir, exist_ok=True)
            for f in files:
                src = os.path.join(d, f)
                if os.path.islink(src) or not os.path.isfile(src):
                    continue
                shutil.copy2(src, os.path.join(dst_dir, f))
                count += 1
        git_commit(self.template, init=True)
        log(f"template: {count} files, committed")
        self.count = count

    def fresh(self, template=None):
        """A fresh copy of a template (made untimed); the caller removes it with drop()."""
        self.n += 1
        dst = os.path.join(self.scratch, f"run{self.n}")
        run(["cp", "-a", template or self.template, dst])
        return dst

    @staticmethod
    def drop(path):
        shutil.rmtree(path, ignore_errors=True)


def git_commit(root, init=False):
    if init:
        run(["git", "init", "-q"], cwd=root)
    run(["git", "-c", "core.excludesFile=/dev/null", "add", "-A"], cwd=root)
    run(["git", *GIT_ID, "commit", "-qm", "base" if init else "more", "--no-verify"], cwd=root)


# ----------------------------------------------------------------------------- 1. rename


def classify(data):
    """Occurrences of RENAME_TO per token class, or None when tokenize fails."""
    counts = {"code": 0, "comment": 0, "string": 0, "other": 0}
    try:
        for tok in tokenize.tokenize(io.BytesIO(data).readline):
            n = tok.string.count(RENAME_TO)
            if not n:
                continue
            if tok.type == tokenize.COMMENT:
                counts["comment"] += n
            elif tok.type == tokenize.STRING or (FSTRING_MIDDLE and tok.type == FSTRING_MIDDLE):
                counts["string"] += n
            elif tok.type == tokenize.NAME:
                counts["code"] += n
            else:
                counts["other"] += n
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    return counts


def compiles(data, rel):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(data, rel, "exec", dont_inherit=True)
            return True
        except Exception:  # SyntaxError, ValueError (NUL bytes), RecursionError, ...
            return False


def rename_correctness(template, result, cache):
    """Compare result with template; `cache` keeps the template side's tokenize/compile."""
    before = set(walk_files(template))
    after = set(walk_files(result))
    changed = sorted(r for r in before & after if read(template, r) != read(result, r))
    changed += sorted((before ^ after))  # created or removed files count as changed too
    c = {"files": len(changed), "code": 0, "comment": 0, "string": 0, "non_py": 0,
         "untokenizable": 0, "broken": 0}
    for rel in changed:
        new = read(result, rel) if rel in after else b""
        old = read(template, rel) if rel in before else b""
        if not rel.endswith(".py"):
            c["non_py"] += new.count(RENAME_TO.encode()) - old.count(RENAME_TO.encode())
            continue
        if rel not in cache:
            cache[rel] = (classify(old), rel in before and compiles(old, rel))
        co, compiled_before = cache[rel]
        cn = classify(new)
        if cn is None:
            c["untokenizable"] += 1
        elif co is not None:
            for k in ("code", "comment", "string"):
                c[k] += cn[k] - co[k]
            c["code"] += cn["other"] - co["other"]
        else:  # tokenized after but not before: count everything as introduced
            for k in ("code", "comment", "string"):
                c[k] += cn[k]
        if compiled_before and not compiles(new, rel):
            c["broken"] += 1
    return c


def bench_rename(args, corpus, lancet, failures):
    tools = {}
    help_text = lancet_help(lancet, "rename")
    if help_text is None:
        tools["lancet"] = Unavailable("`lancet rename` does not exist yet")
    else:
        cmd = [lancet, "-C", "{root}", "rename", RENAME_FROM, RENAME_TO]
        # `self.assertEqual` is an attribute of whatever `self` is: lancet cannot tell by
        # syntax which class it belongs to and refuses to leave such sites undecided; like
        # ast-grep and fastmod, the benchmark renames them all.
        if "--include-unresolved" in help_text:
            cmd.append("--include-unresolved")
        # The stdlib defines `assertEqual` twice, unrelated (test/audit-tests.py and
        # test/test_patma.py): a bare name is refused `ambiguous` since #38; the peers rename
        # every definition, so the benchmark asks for all of them.
        if "--all-definitions" in help_text:
            cmd.append("--all-definitions")
        # lancet's own resolver, as the bar is stated: no language server asked.
        if "--no-lsp" in help_text:
            cmd.append("--no-lsp")
        if "--quiet" in help_text:
            cmd.append("--quiet")
        tools["lancet"] = cmd
        if "--no-compile-check" in help_text:
            # Informational (no target): without the per-file `python3 -m py_compile` runs.
            tools["lancet --no-compile-check (info)"] = cmd + ["--no-compile-check"]
    fm = find_fastmod()
    tools["fastmod"] = (
        [fm, "--accept-all", "--fixed-strings", RENAME_FROM, RENAME_TO, "{root}"]
        if fm else Unavailable("fastmod not installed and `cargo install fastmod` failed")
    )
    ag = find_ast_grep()
    tools["ast-grep"] = (
        [ag, "run", "-p", RENAME_FROM, "-r", RENAME_TO, "-l", "python", "-U", "{root}"]
        if ag else Unavailable("ast-grep not installed and `pip install ast-grep-cli` failed")
    )
    times = {t: [] for t in tools}
    correct, cache = {}, {}
    status = {t: (f"unavailable ({c})" if isinstance(c, Unavailable) else None)
              for t, c in tools.items()}
    commands = {t: (" ".join(map(str, c)).replace("{root}", "COPY") if isinstance(c, list)
                    else None) for t, c in tools.items()}
    for i in range(args.runs):
        for name, cmd in tools.items():
            if status[name] or over_budget(args, times[name]):
                continue
            root = corpus.fresh()
            try:
                argv = [root if a == "{root}" else a for a in cmd]
                # ast-grep exits 1 when nothing matched; there are matches here, so 0 only.
                try:
                    dt, _ = timed(argv, capture_stdout=name.startswith("lancet"))
                except BenchError as e:
                    if name.startswith("lancet") and "exited 2:" in str(e) and "Usage:" in str(e):
                        status[name] = "unavailable (usage error: subcommand missing?)"
                        continue
                    raise
                times[name].append(dt)
                log(f"rename run {i + 1}/{args.runs}: {name} {dt:.3f} s")
                if i == 0:
                    correct[name] = rename_correctness(corpus.template, root, cache)
            except BenchError as e:
                status[name] = "FAILED"
                failures.append(f"rename/{name}: {e}")
                log(f"ERROR rename/{name}: {e}")
            finally:
                corpus.drop(root)

    med = {t: median(v) for t, v in times.items()}
    rows = []
    for name in tools:
        c = correct.get(name)
        if status[name]:
            rows.append([name, status[name]] + [""] * 8)
            continue
        rows.append([name, fmt_s(med[name]) + runs_note(args, times[name]), c["files"], c["code"], c["comment"], c["string"],
                     c["non_py"], c["untokenizable"], c["broken"], commands[name]])
    lf = med["lancet"] / med["fastmod"] if med["lancet"] and med["fastmod"] else None
    al = med["ast-grep"] / med["lancet"] if med["lancet"] and med["ast-grep"] else None
    out = ["## rename: `assertEqual` -> `expect_equal` over the stdlib copy", ""]
    out.append(table(["tool", "median wall", "files changed", "in code", "in comments",
                      "in strings", "in non-.py files", "untokenizable after",
                      "broken (compiled before, not after)", "command"], rows))
    out.append("")
    out.append(f"ratio lancet/fastmod: {fmt_ratio(lf)}; ast-grep/lancet: {fmt_ratio(al)}")
    out.append("")
    lc = correct.get("lancet")
    targets = [
        ("lancet <= 2x fastmod", None if lf is None else lf <= 2.0),
        ("lancet >= 10x faster than ast-grep", None if al is None else al >= 10.0),
        ("lancet: 0 comment/string changes",
         None if lc is None else lc["comment"] == 0 and lc["string"] == 0),
        ("lancet: 0 broken files",
         None if lc is None else lc["broken"] == 0 and lc["untokenizable"] == 0),
    ]
    for label, ok in targets:
        out.append(f"- target {label}: " + ("not measured" if ok is None else verdict(ok)))
    return "\n".join(out)


# ----------------------------------------------------------------------------- 2. diff


def insertion_point(text, nlines):
    """1-based line after which a comment line can go without changing the program's syntax:
    the first line >= 10 that ends a logical line or a blank/comment line (tokenize NEWLINE /
    NL), so never inside a string or after a backslash continuation. Falls back to 10."""
    try:
        ends = set()
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL):
                ends.add(tok.start[0])
        for line in range(10, nlines):
            if line in ends:
                return line
    except (tokenize.TokenError, SyntaxError, IndentationError, ValueError):
        pass
    return 10


def pick_diff_files(root):
    picked = []
    for rel in walk_files(root):
        if not rel.endswith(".py"):
            continue
        data = read(root, rel)
        if b"\r" in data or b"\0" in data:
            continue  # LF-only text: keeps line-ending conventions out of the comparison
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if text.count("\n") < DIFF_MIN_LINES:
            continue
        picked.append(rel)
    return picked


def prepare_diff(corpus):
    """Returns (template, patch path, {rel: sha of expected bytes}, note)."""
    template = corpus.template
    note = ""
    picked = pick_diff_files(template)
    if len(picked) < DIFF_FILES:
        # Not enough .py files in this stdlib: extend a second template with copies.
        template = os.path.join(corpus.scratch, "template-diff")
        run(["cp", "-a", corpus.template, template])
        base_picked = list(picked)
        k = 2
        while len(picked) < DIFF_FILES:
            prefix = f"zz_copy{k}/"
            for rel in base_picked:
                dst = os.path.join(template, prefix + rel)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(os.path.join(corpus.template, rel), dst)
            git_commit(template)
            picked = pick_diff_files(template)
            k += 1
        note = (f"the stdlib has only {len(base_picked)} LF-only UTF-8 .py files of >= "
                f"{DIFF_MIN_LINES} lines: the diff corpus adds copies of them under "
                f"zz_copy2..{k - 1}/ (repo of {len(walk_files(template))} files)")
    picked = picked[:DIFF_FILES]
    work = corpus.fresh(template)
    expected = {}
    try:
        for rel in picked:
            text = read(work, rel).decode("utf-8")
            lines = text.splitlines(keepends=True)
            at = insertion_point(text, len(lines))
            nxt = next((ln for ln in lines[at:] if ln.strip()), "")
            indent = nxt[: len(nxt) - len(nxt.lstrip(" \t"))]
            if not lines[at - 1].endswith("\n"):
                lines[at - 1] += "\n"
            lines.insert(at, f"{indent}{MARK}\n")
            new = "".join(lines).encode("utf-8")
            with open(os.path.join(work, rel), "wb") as fh:
                fh.write(new)
            expected[rel] = sha(new)
        p = run(["git", "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff",
                 "--src-prefix=a/", "--dst-prefix=b/"], cwd=work)
        patch = os.path.join(corpus.scratch, "bench-2000.diff")
        with open(patch, "wb") as fh:
            fh.write(p.stdout)
        stat = run(["git", "diff", "--shortstat"], cwd=work).stdout.decode().strip()
        if f"{DIFF_FILES} files changed" not in stat:
            raise BenchError(f"generated diff does not touch {DIFF_FILES} files: {stat}")
    finally:
        corpus.drop(work)  # the equivalent of `git checkout -- .`: the edits go with the copy
    return template, patch, expected, note


def verify_tree(root, template, expected):
    """Raises BenchError unless root == template with the expected files replaced."""
    bad = [rel for rel, h in expected.items() if sha(read(root, rel)) != h]
    extra = set(walk_files(root)) - set(walk_files(template))
    if bad or extra:
        raise BenchError(
            f"result differs from the expected tree: {len(bad)} of {len(expected)} edited "
            f"files wrong (e.g. {bad[:3]}), {len(extra)} unexpected files (e.g. "
            f"{sorted(extra)[:3]})")


def bench_diff(args, corpus, lancet, failures):
    log("generating the 2,000-file diff ...")
    template, patch, expected, note = prepare_diff(corpus)
    size = os.path.getsize(patch)
    ahelp = lancet_help(lancet, "apply") or ""
    lcmd = [lancet, "-C", "{root}", "apply"] + (["--quiet"] if "--quiet" in ahelp else [])
    tools = {
        "lancet apply": (lcmd + [patch], None),
        "git apply": (["git", "apply", patch], "cwd"),
        "patch -p1": (["patch", "-p1", "-s", "-i", patch], "cwd"),
    }
    if not shutil.which("patch"):
        tools["patch -p1"] = None
    if "--no-compile-check" in ahelp:
        # Informational (no target): the default gate runs `python3 -m py_compile` once per
        # changed .py file; this row shows lancet without those external checks.
        tools["lancet apply --no-compile-check (info)"] = (
            lcmd + ["--no-compile-check", patch], None)
    times = {t: [] for t in tools}
    status = {t: (None if c else "unavailable (no `patch` on PATH)") for t, c in tools.items()}
    for i in range(args.runs):
        for name, spec in tools.items():
            if status[name]:
                continue
            cmd, cwd_mode = spec
            if over_budget(args, times[name]):
                continue
            root = corpus.fresh(template)
            try:
                argv = [root if a == "{root}" else a for a in cmd]
                dt, _ = timed(argv, cwd=root if cwd_mode else None,
                              capture_stdout=name.startswith("lancet"))
                verify_tree(root, template, expected)
                times[name].append(dt)
                log(f"diff run {i + 1}/{args.runs}: {name} {dt:.3f} s")
            except BenchError as e:
                status[name] = "FAILED"
                failures.append(f"diff/{name}: {e}")
                log(f"ERROR diff/{name}: {e}")
            finally:
                corpus.drop(root)
    med = {t: median(v) for t, v in times.items()}
    rows = []
    for name, spec in tools.items():
        shown = (" ".join(spec[0]).replace("{root}", "COPY").replace(patch, "PATCH")
                 if spec else "")
        if status[name]:
            rows.append([name, status[name], "", shown])
        else:
            rows.append([name, fmt_s(med[name]) + runs_note(args, times[name]), "yes", shown])
    r = (med["lancet apply"] / med["git apply"]
         if med["lancet apply"] and med["git apply"] else None)
    out = ["## diff: one unified diff touching 2,000 files", ""]
    out.append(f"patch: {len(expected)} files, {size / 1e6:.2f} MB (one comment line per file)")
    if note:
        out.append(f"note: {note}")
    out.append("")
    out.append(table(["tool", "median wall", "result == expected", "command (in COPY)"], rows))
    out.append("")
    out.append(f"ratio lancet/git apply: {fmt_ratio(r)}")
    out.append("")
    out.append("- target lancet <= 1.0x git apply: "
               + ("not measured" if r is None else verdict(r <= 1.0)))
    return "\n".join(out)


# ----------------------------------------------------------------------------- 3. call

CALL_SOURCE = [
    "\"\"\"Module {i} of the per-call benchmark.\"\"\"\n",
    "\n",
    "import os\n",
    "\n",
    "\n",
    "def value_{i}(x):\n",
    "    base = {i}\n",
    "    return base + x\n",
    "\n",
    "\n",
    "def name_{i}():\n",
    "    return os.path.basename(__file__)\n",
    "\n",
    "\n",
    "class Thing{i}:\n",
    "    def __init__(self):\n",
    "        self.count = 0\n",
    "\n",
    "    def bump(self):\n",
    "        self.count += 1\n",
    "        return self.count\n",
]


def bench_call(args, corpus, lancet, failures):
    root = os.path.join(corpus.scratch, "call")
    os.makedirs(os.path.join(root, "pkg"))
    for i in range(10):
        with open(os.path.join(root, "pkg", f"mod{i}.py"), "w") as fh:
            fh.write("".join(CALL_SOURCE).replace("{i}", str(i)))
    git_commit(root, init=True)
    target = os.path.join(root, "pkg", "mod3.py")
    with open(target, "rb") as fh:
        original = fh.read()
    lines = original.decode().splitlines(keepends=True)
    # One hunk: `base = 3` -> `base = 3 * 2`, three lines of context each side.
    new_lines = list(lines)
    new_lines[6] = "    base = 3 * 2\n"
    expected = "".join(new_lines).encode()
    unified = ("diff --git a/pkg/mod3.py b/pkg/mod3.py\n--- a/pkg/mod3.py\n+++ b/pkg/mod3.py\n"
               "@@ -4,7 +4,7 @@\n" + "".join(" " + ln for ln in lines[3:6])
               + "-" + lines[6] + "+" + new_lines[6] + "".join(" " + ln for ln in lines[7:10]))
    codex = ("*** Begin Patch\n*** Update File: pkg/mod3.py\n@@ def value_3(x):\n"
             "-" + lines[6] + "+" + new_lines[6] + "     return base + x\n*** End Patch\n")
    patch = os.path.join(corpus.scratch, "call.diff")
    with open(patch, "w") as fh:
        fh.write(unified)
    ahelp = lancet_help(lancet, "apply") or ""
    tools = {"lancet apply": [lancet, "-C", root, "apply"]
             + (["--quiet"] if "--quiet" in ahelp else []) + [patch],
             "git apply": ["git", "apply", patch]}
    if "--no-compile-check" in ahelp:
        # Informational (no target): the default gate also runs external checks such as
        # `python3 -m py_compile`, whose start-up can dominate a one-file call.
        tools["lancet apply --no-compile-check (info)"] = (
            tools["lancet apply"][:-1] + ["--no-compile-check", patch])
    ap = shutil.which("apply_patch")
    if ap:
        tools["codex apply_patch"] = [ap, codex]
    peer_note = ("vs codex apply_patch and git apply" if ap
                 else "codex apply_patch not available; vs git apply")
    n = max(20, 4 * args.runs)
    times = {t: [] for t in tools}
    status = {t: None for t in tools}

    def reset():
        with open(target, "wb") as fh:
            fh.write(original)

    for i in range(n + 1):  # the first round is a warm-up, not counted
        for name, cmd in tools.items():
            if status[name]:
                continue
            reset()
            try:
                dt, _ = timed(cmd, cwd=root, capture_stdout=name.startswith("lancet"))
                with open(target, "rb") as fh:
                    if fh.read() != expected:
                        raise BenchError("file content after the call is not the expected one")
                if i:
                    times[name].append(dt)
            except BenchError as e:
                status[name] = "FAILED"
                failures.append(f"call/{name}: {e}")
                log(f"ERROR call/{name}: {e}")
    reset()
    med = {t: median(v) for t, v in times.items()}
    peer = "codex apply_patch" if ap and med.get("codex apply_patch") else "git apply"
    r = med["lancet apply"] / med[peer] if med["lancet apply"] and med.get(peer) else None
    rows = []
    for name, cmd in tools.items():
        shown = " ".join(cmd).replace(patch, "PATCH").replace(root, "DIR")
        if name == "codex apply_patch":
            shown = f"{ap} '<*** Begin Patch text>'"
        rows.append([name, status[name] or fmt_ms(med[name]), len(times[name]), shown])
    out = [f"## call: per-call overhead, one one-hunk patch to one file ({peer_note})", ""]
    out.append(table(["tool", "median per call", "calls timed", "command (cwd DIR)"], rows))
    out.append("")
    out.append(f"ratio lancet/{peer}: {fmt_ratio(r)}")
    out.append("")
    lm = med["lancet apply"]
    out.append("- target lancet <= 10 ms per call: "
               + ("not measured" if lm is None else verdict(lm <= 0.010)))
    out.append(f"- target lancet <= 1.5x {peer}: "
               + ("not measured" if r is None else verdict(r <= 1.5)))
    return "\n".join(out)


# ----------------------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lancet", default="target/release/lancet", help="the lancet binary")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per tool (default 5)")
    ap.add_argument("--only", choices=["rename", "diff", "call"], help="run one benchmark")
    ap.add_argument("--budget", type=float, default=150.0,
                    help="seconds of timed work per tool per benchmark after which a slow tool "
                         "is not run again (its median is then over fewer runs; default 150)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    lancet = os.path.abspath(args.lancet)
    if not os.access(lancet, os.X_OK):
        sys.exit(f"error: no lancet binary at {lancet} (run `cargo build --release`)")
    for tool in ("git", "cp"):
        if not shutil.which(tool):
            sys.exit(f"error: `{tool}` is needed on PATH")

    nproc, model, pyver = machine_info()
    scratch = tempfile.mkdtemp(prefix="lancet-scale-")
    failures, sections = [], []
    started = time.perf_counter()
    try:
        corpus = Corpus(scratch)
        wanted = [args.only] if args.only else ["rename", "diff", "call"]
        if "rename" in wanted or "diff" in wanted:
            corpus.build()
        for name in wanted:
            fn = {"rename": bench_rename, "diff": bench_diff, "call": bench_call}[name]
            try:
                sections.append(fn(args, corpus, lancet, failures))
            except BenchError as e:  # setup failed (not a tool's timed run)
                failures.append(f"{name} (setup): {e}")
                sections.append(f"## {name}: FAILED during setup\n\n{e}")
    finally:
        if args.keep:
            log(f"scratch kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)

    tools = [("lancet", [lancet]), ("git", ["git"])]
    if shutil.which("patch"):
        tools.append(("patch", ["patch"]))
    if not args.only or args.only == "rename":
        fm, ag = find_fastmod(install=False), find_ast_grep(install=False)
        tools += [("fastmod", [fm])] if fm else []
        tools += [("ast-grep", [ag])] if ag else []
    print("# lancet scale benchmarks\n")
    print(f"- machine: {nproc} CPUs (nproc), {model}; Python {pyver} "
          f"({platform.system()} {platform.release()})")
    print(f"- corpus: {sysconfig.get_paths()['stdlib']} (site-packages, dist-packages, "
          "__pycache__ excluded)")
    print(f"- medians of {args.runs} run(s) per tool; total wall "
          f"{time.perf_counter() - started:.0f} s")
    print("- versions: " + "; ".join(f"{n}: {version_of(c)}" for n, c in tools))
    print()
    print("\n\n".join(sections))
    if failures:
        print("\n## FAILURES\n")
        for f in failures:
            print(f"- {f.splitlines()[0]}")
        log("\n".join(["", "FAILURES (full):"] + failures))
        sys.exit(1)


if __name__ == "__main__":
    main()

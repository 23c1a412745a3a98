#!/usr/bin/env python3
"""Generate the stale-edit rebase corpus: tests/corpus/rebase/cases/<NNN>-<lang>-<slug>/.

Usage: tests/corpus/rebase/make.py [--check LANCET_BIN] [--only GLOB] [--keep]

Each case is a file a model read (`snapshot`), the file as it is on disk when the model's edit
arrives (`current`: a formatter ran over the snapshot, or another agent / the user edited it), the
edit text written against the snapshot (`edit`, in one of lancet's five formats), and the
expected result (`after`) of lancet's rebase: the line-level 3-way merge with ancestor =
snapshot, ours = current, theirs = snapshot + edit. The oracle is `git merge-file -p current
snapshot edited`: a case expects `conflict` whenever git reports a conflict, else `applied` with
git's merged bytes as `after`. `edited` (snapshot + edit) is computed here, in Python, from the
same operations the edit text is rendered from — never by lancet.

Sources are real, messy-but-valid code, read from this machine (the data is committed; CI never
runs this script):
  Python      the CPython 3.11.7 standard library under /root/.pyenv/versions/3.11.7
  Rust        crates in ~/.cargo/registry/src (regex-automata 0.4.18, aho-corasick 1.1.5,
              futures-util 0.3.34, ignore 0.4.34: lancet's own dependency tree)
  JS / TS     `npm pack` of rxjs@7.8.1 (TypeScript src/), commander@12.1.0, npm@11.19.1 (JS),
              unpacked into ~/.cache/lancet-rebase-src
  Go          container/list of the Go 1.19 standard library (Debian's golang-go,
              /usr/lib/go-1.19/src)
and the formatters (generation only): black and ruff (`pip install black ruff`), prettier
(`npm install --prefix /tmp/fmt prettier`), rustfmt (~/.cargo/bin), gofmt (`apt-get install
golang-go`). Versions used for the committed data: see README.md. Each formatter runs with no
project configuration (from an empty directory, `--isolated` / `--no-config`), with the options
the case names. For Go, whose sources are gofmt-clean, the case un-formats a few regions first
(`x:=y`, lost alignment): that is the messy snapshot a user left.

Checks made for every case (the script stops on a failure):
  - the edit's old text (context and removed lines) occurs exactly once in the snapshot;
  - current differs from the snapshot (except `changed_by = "unchanged"`), edited too;
  - git merge-file's verdict equals the case's intent (the `expect` written in the case list; for
    the cases marked adjacent=True — changes with no or one unchanged line between — it was set
    to whatever git said, after reading the merge), and is the same under the myers, minimal,
    patience and histogram diff algorithms;
  - for an applied case, at least one unchanged line of the snapshot lies between each change of
    the other side and each change of the edit (except the identical-change and adjacent cases);
  - snapshot, current, edited and after all parse (python3's compile(), node --check, prettier,
    rustfmt, gofmt -e): messy-but-valid code only;
  - with --check LANCET_BIN: lancet (any version) applies the edit text to the snapshot alone and
    must produce exactly `edited` — a check that the rendered text says what the oracle assumed.

Writes cases/ afresh (removing case directories it no longer generates) and prints the counts
per format, language, changed_by and expectation.
"""

import argparse
import difflib
import fnmatch
import glob
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter

HERE = pathlib.Path(__file__).resolve().parent
CASES = HERE / "cases"
PYLIB = pathlib.Path("/root/.pyenv/versions/3.11.7/lib/python3.11")
CARGO_SRC = sorted(glob.glob(os.path.expanduser("~/.cargo/registry/src/*/")))
NPM_CACHE = pathlib.Path(os.path.expanduser("~/.cache/lancet-rebase-src"))
GOROOT_SRC = pathlib.Path("/usr/lib/go-1.19/src")
PRETTIER = os.environ.get("PRETTIER", "/tmp/fmt/node_modules/.bin/prettier")
RUSTFMT = os.environ.get("RUSTFMT", os.path.expanduser("~/.cargo/bin/rustfmt"))
FENCE_LANG = {"py": "python", "ts": "typescript", "js": "javascript", "rs": "rust", "go": "go"}
ALGOS = ["myers", "minimal", "patience", "histogram"]


# ----------------------------------------------------------------------------- sources


def py_src(name):
    return lambda: (PYLIB / name).read_text()


def rs_src(crate, rel):
    def load():
        for root in CARGO_SRC:
            p = pathlib.Path(root) / crate / rel
            if p.exists():
                return p.read_text()
        sys.exit(f"missing crate source {crate}/{rel} under ~/.cargo/registry/src")

    return load


def npm_src(spec, rel):
    def load():
        dest = NPM_CACHE / spec.replace("/", "_")
        if not (dest / "package").exists():
            dest.mkdir(parents=True, exist_ok=True)
            out = subprocess.run(["npm", "pack", spec, "--pack-destination", str(dest), "--silent"],
                                 capture_output=True, text=True, check=True).stdout.split()[-1]
            with tarfile.open(dest / out) as t:
                t.extractall(dest, filter="data")
        return (dest / "package" / rel).read_text()

    return load


def go_src(rel):
    return lambda: (GOROOT_SRC / rel).read_text()


# ----------------------------------------------------------------------------- formatters


def run_tool(argv, text):
    with tempfile.TemporaryDirectory() as d:  # no project configuration is found from here
        # bytes, not text=True: universal newlines would turn a formatter's CRLF into LF
        p = subprocess.run(argv, input=text.encode(), capture_output=True, cwd=d)
    if p.returncode != 0:
        sys.exit(f"{argv[0]} failed: {p.stderr.decode()[:400]}")
    return p.stdout.decode()


class Fmt:
    def __init__(self, name, argv):
        self.name, self.argv = name, argv

    def __call__(self, text, case):
        # formatters read and write bytes: hand them the snapshot as it is on disk
        return run_tool(self.argv(case), text)


def black(*opts):
    return Fmt("black", lambda c: ["black", "-q", *opts, "-"])


def ruff(*opts):
    return Fmt("ruff-format", lambda c: ["ruff", "format", "--isolated", *opts, "-"])


def prettier(*opts):
    return Fmt("prettier", lambda c: [PRETTIER, "--no-config", "--stdin-filepath",
                                      "x." + c.ext, *opts])


def rustfmt(*opts):
    return Fmt("rustfmt", lambda c: [RUSTFMT, "--edition", "2021", "--emit", "stdout", *opts])


def gofmt():
    return Fmt("gofmt", lambda c: ["gofmt"])


# ----------------------------------------------------------------------------- operations
# An operation names lines of the snapshot by an anchor: a substring that must occur in exactly
# one line (or ("text", k): the k-th line, 0-based, holding it). It resolves to (i, j, new):
# snapshot lines [i, j) become `new`.


def lines_of(text):
    return text.splitlines(keepends=True)


def as_lines(new):
    if isinstance(new, (list, tuple)):
        return [t if t.endswith("\n") else t + "\n" for t in new]
    return [t + "\n" for t in new.split("\n")] if new != "" else []


def find_line(lines, anchor):
    text, k = (anchor, None) if isinstance(anchor, str) else anchor
    hits = [i for i, t in enumerate(lines) if text in t]
    if k is None:
        if len(hits) != 1:
            raise ValueError(f"anchor {text!r} is on {len(hits)} lines: {[h + 1 for h in hits][:8]}")
        return hits[0]
    if k >= len(hits):
        raise ValueError(f"anchor {text!r} is on {len(hits)} lines, not {k + 1}")
    return hits[k]


class Op:
    ctx = None  # lines of context around the hunk (None: the default)

    def resolve(self, lines):
        raise NotImplementedError


class Sub(Op):
    """Replace `old` by `new` inside the anchor line (or the n lines from it), text-wise."""

    def __init__(self, anchor, old, new, n=1, count=1, ctx=None):
        self.anchor, self.old, self.new, self.n, self.count, self.ctx = anchor, old, new, n, count, ctx

    def resolve(self, lines):
        i = find_line(lines, self.anchor)
        block = "".join(lines[i:i + self.n])
        if block.count(self.old) < 1:
            raise ValueError(f"{self.old!r} not in {block!r}")
        return i, i + self.n, lines_of(block.replace(self.old, self.new, self.count))


class Rep(Op):
    """Replace the n lines starting at the anchor line (plus off) by `new` (text or lines)."""

    def __init__(self, anchor, new, n=1, ctx=None, off=0):
        self.anchor, self.new, self.n, self.ctx, self.off = anchor, new, n, ctx, off

    def resolve(self, lines):
        i = find_line(lines, self.anchor) + self.off
        return i, i + self.n, as_lines(self.new)


class Ins(Op):
    """Insert `new` after (or before) the anchor line; anchor 0 = the top, -1 = the end."""

    def __init__(self, anchor, new, before=False, ctx=None):
        self.anchor, self.new, self.before, self.ctx = anchor, new, before, ctx

    def resolve(self, lines):
        if self.anchor == 0:
            i = 0
        elif self.anchor == -1:
            i = len(lines)
        else:
            i = find_line(lines, self.anchor) + (0 if self.before else 1)
        return i, i, as_lines(self.new)


class Del(Op):
    """Delete the n lines starting at the anchor line (plus off)."""

    def __init__(self, anchor, n=1, ctx=None, off=0):
        self.anchor, self.n, self.ctx, self.off = anchor, n, ctx, off

    def resolve(self, lines):
        i = find_line(lines, self.anchor) + self.off
        return i, i + self.n, []


class Ops:
    """The other side's change as operations on the snapshot (an agent's or the user's edit)."""

    def __init__(self, *ops):
        self.ops = ops

    def __call__(self, text, case):
        return apply_ops(text, self.ops)


def resolved(lines, ops):
    rs = sorted((op.resolve(lines) + (op,) for op in ops), key=lambda r: (r[0], r[1]))
    for a, b in zip(rs, rs[1:]):
        if b[0] < a[1] or (b[0] == a[1] and a[0] == a[1] == b[0] == b[1]):
            raise ValueError(f"operations overlap at line {b[0] + 1}")
    return rs


def norm_lines(text):
    """The text's lines, each ending in a newline, and whether the last one had none."""
    lines = lines_of(text)
    missing = bool(lines) and not lines[-1].endswith("\n")
    if missing:
        lines[-1] += "\n"
    return lines, missing


def apply_ops(text, ops):
    """A missing final newline stays missing (the operations are written in whole lines)."""
    lines, missing = norm_lines(text)
    out, pos = [], 0
    for i, j, new, _ in resolved(lines, ops):
        out += lines[pos:i] + new
        pos = j
    out += lines[pos:]
    s = "".join(out)
    return s[:-1] if missing and s.endswith("\n") else s


# ----------------------------------------------------------------------------- hunks and rendering


def hunks(text, ops, default_ctx):
    """[(lo, hi, old_lines, new_lines)] with context, merged where windows touch; the old text of
    each is made unique in the snapshot by widening the context (up to 8 lines). A hunk that
    reaches the end of a file without a final newline has none on its last old and new line."""
    lines, missing = norm_lines(text)
    rs = resolved(lines, ops)
    out = []
    for i, j, new, op in rs:
        c = op.ctx if op.ctx is not None else default_ctx
        while True:
            lo, hi = max(0, i - c), min(len(lines), j + c)
            old = lines[lo:hi]
            if occurrences(lines, old) == 1 or c >= 8:
                break
            c += 1
        if occurrences(lines, old) != 1:
            raise ValueError(f"the old text at line {i + 1} is not unique even with 8 lines of context")
        out.append([lo, hi, [(i, j, new)]])
    merged = []
    for h in out:
        if merged and h[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], h[1])
            merged[-1][2] += h[2]
        else:
            merged.append(h)
    res = []
    for lo, hi, parts in merged:
        new, pos = [], lo
        for i, j, nl in parts:
            new += lines[pos:i] + nl
            pos = j
        new += lines[pos:hi]
        old = lines[lo:hi]
        if missing and hi == len(lines):
            assert new, "a hunk must not delete the last line of a file without a final newline"
            old = old[:-1] + [old[-1][:-1]]
            new = new[:-1] + [new[-1][:-1]]
        res.append((lo, hi, old, new))
    return res


def occurrences(lines, block):
    n = len(block)
    if n == 0:
        return 0
    return sum(1 for k in range(len(lines) - n + 1) if lines[k:k + n] == block)


def nl(t):
    return t if t.endswith("\n") else t + "\n"


def diff_lines(old, new):
    """(op, line) for a hunk: ' ' kept, '-' removed, '+' added (difflib, no junk heuristics)."""
    res = []
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            res += [(" ", t) for t in old[i1:i2]]
        else:
            res += [("-", t) for t in old[i1:i2]] + [("+", t) for t in new[j1:j2]]
    return res


def unified_line(op, t):
    return op + t if t.endswith("\n") else op + t + "\n\\ No newline at end of file\n"


def fence_for(text):
    n = 3
    while any(l.lstrip().startswith("`" * n) for l in text.split("\n")):
        n += 1
    return "`" * n


def render(case, snap_lf, edited_lf):
    fmt, path, lang = case.format, case.path, FENCE_LANG[case.lang]
    if fmt == "whole":
        f = fence_for(edited_lf)
        return f"{path}\n{f}{lang}\n{nl(edited_lf)}{f}\n"
    hs = hunks(snap_lf, case.edit, case.ctx)
    if fmt == "patch":
        out = ["*** Begin Patch\n", f"*** Update File: {path}\n"]
        for n, (lo, hi, old, new) in enumerate(hs):
            hdr = case.headers[n] if case.headers and case.headers[n] else ""
            out.append(f"@@ {hdr}\n" if hdr else "@@\n")
            out += [op + nl(t) for op, t in diff_lines(old, new)]
        out.append("*** End Patch\n")
        return "".join(out)
    if fmt == "unified":
        out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
        delta = 0
        for lo, hi, old, new in hs:
            out.append(f"@@ -{lo + 1},{len(old)} +{lo + 1 + delta},{len(new)} @@\n")
            out += [unified_line(op, t) for op, t in diff_lines(old, new)]
            delta += len(new) - len(old)
        return "".join(out)
    if fmt == "search-replace":
        blocks = []
        for lo, hi, old, new in hs:
            o, n_ = "".join(nl(t) for t in old), "".join(nl(t) for t in new)
            blocks.append(f"{path}\n```{lang}\n<<<<<<< SEARCH\n{o}=======\n{n_}>>>>>>> REPLACE\n```\n")
        return "\n".join(blocks)
    if fmt == "json":
        objs = []
        for lo, hi, old, new in hs:
            o, n_ = "".join(old), "".join(new)
            if o.endswith("\n") and n_.endswith("\n"):
                o, n_ = o[:-1], n_[:-1]
            objs.append({"path": path, "old_string": o, "new_string": n_})
        return json.dumps(objs[0] if len(objs) == 1 else objs, ensure_ascii=False, indent=1) + "\n"
    raise ValueError(fmt)


# ----------------------------------------------------------------------------- the oracle


def merge(current, snapshot, edited, algo=None):
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        for name, data in (("current", current), ("snapshot", snapshot), ("edited", edited)):
            (d / name).write_bytes(data)
        argv = ["git", "merge-file", "-p", "-q"] + (["--diff-algorithm", algo] if algo else [])
        p = subprocess.run(argv + ["current", "snapshot", "edited"], cwd=d, capture_output=True)
    if p.returncode < 0 or p.returncode > 127:
        sys.exit(f"git merge-file failed: {p.stderr.decode()}")
    return p.returncode, p.stdout


def changed_regions(a, b):
    """Ranges [i1, i2) of `a`'s lines that differ in `b` (an insertion is an empty range)."""
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [(i1, i2) for tag, i1, i2, _, _ in sm.get_opcodes() if tag != "equal"]


def min_gap(snapshot, current, edited):
    a = lines_of(snapshot)
    best = None
    for x1, x2 in changed_regions(a, lines_of(current)):
        for y1, y2 in changed_regions(a, lines_of(edited)):
            gap = y1 - x2 if x2 <= y1 else x1 - y2 if y2 <= x1 else -1
            if x1 == x2 == y1 == y2:
                gap = -1  # both insert at the same place
            best = gap if best is None else min(best, gap)
    return best


_SYNTAX_OK = {}


def syntax_error(lang, text):
    """None when the text parses in its language (checked with the language's own tools)."""
    key = (lang, text)
    if key in _SYNTAX_OK:
        return _SYNTAX_OK[key]
    err = None
    if lang == "py":
        try:
            compile(text, "x.py", "exec")
        except SyntaxError as e:
            err = f"line {e.lineno}: {e.msg}"
    else:
        with tempfile.TemporaryDirectory() as d:
            f = pathlib.Path(d) / f"x.{lang}"
            f.write_bytes(text.encode())
            argv = {"js": ["node", "--check", str(f)],
                    "ts": [PRETTIER, "--no-config", "--check", str(f)],
                    "rs": [RUSTFMT, "--edition", "2021", "--check", str(f)],
                    "go": ["gofmt", "-e", "-l", str(f)]}[lang]
            p = subprocess.run(argv, capture_output=True, text=True, cwd=d)
            # --check exits 1 for "would reformat" (fine) and 2 for a parse error
            bad = p.returncode not in (0, 1) if lang in ("ts", "rs") else p.returncode != 0
            if lang == "rs" and "error" in p.stderr:
                bad = True
            if bad:
                err = (p.stderr or p.stdout).strip().splitlines()[0][:160]
    _SYNTAX_OK[key] = err
    return err


def crlf(s):
    return s.replace("\r\n", "\n").replace("\n", "\r\n")


# ----------------------------------------------------------------------------- cases


class Case:
    """One case. lang: py ts js rs go; slug: the directory name's tail; src: a loader of the real
    source; path: the file's path in the temporary root (the edit names it); other: the change
    made between the read and the edit (a formatter, or Ops(...) for an agent's or the user's
    edit); edit: the model's operations on the snapshot, rendered in `format`; intend: the
    expected verdict (checked against git merge-file); why: one line for case.toml.
    changed_by: defaults to the formatter's name; crlf / no_final_newline: the snapshot's line
    ending style; ctx: context lines around each hunk (widened until the old text is unique);
    headers: Codex `@@` lines per hunk; prepare: a function over the source before everything
    (Go's un-formatting); identical: the edit repeats the other side's change (gap check off);
    adjacent: the two changes touch or nearly touch (gap check off, verdict as git says)."""

    def __init__(self, lang, slug, src, path, other, edit, format, intend, why,
                 changed_by=None, crlf=False, no_final_newline=False, ctx=2, headers=None,
                 prepare=None, identical=False, adjacent=False):
        self.lang, self.slug, self.src, self.path, self.other = lang, slug, src, path, other
        self.edit, self.format, self.intend, self.why = list(edit), format, intend, why
        self.changed_by = changed_by or (other.name if isinstance(other, Fmt) else None)
        assert self.changed_by, slug
        self.crlf, self.no_final_newline, self.ctx, self.headers = crlf, no_final_newline, ctx, headers
        self.prepare, self.identical, self.adjacent = prepare, identical, adjacent
        self.ext = path.rsplit(".", 1)[1]


CASELIST = []


def case(*a, **kw):
    CASELIST.append(Case(*a, **kw))


UNCHANGED = Ops()

# ----------------------------------------------------------------------------- the cases
# A case's number is its position in this list: add new cases at the end of their language's
# list only if renumbering the directories after them is fine (the data is regenerated whole).

# ---- Python -------------------------------------------------------------------------------
SCHED, QUEUE, CHUNK, LINECACHE = py_src("sched.py"), py_src("queue.py"), py_src("chunk.py"), py_src("linecache.py")
NETRC, HEAPQ, BISECT, SHELVE = py_src("netrc.py"), py_src("heapq.py"), py_src("bisect.py"), py_src("shelve.py")
TEXTWRAP, GETOPT, CMD, FNMATCH = py_src("textwrap.py"), py_src("getopt.py"), py_src("cmd.py"), py_src("fnmatch.py")
COPY, TABNANNY = py_src("copy.py"), py_src("tabnanny.py")

case("py", "black-far-function", SCHED, "sched/sched.py", black(), [
    Rep("self._queue.remove(event)", [
        "            try:",
        "                self._queue.remove(event)",
        "            except ValueError:",
        "                raise ValueError(f\"event {event!r} is not scheduled\") from None"]),
], "patch", "applied", "black rewrote the Event docstrings and run()'s tuple unpacking; the edit is in cancel()")

case("py", "black-same-line-comment", SCHED, "sched/sched.py", black(), [
    Sub("delayfunc(0)   # Let other threads run", "delayfunc(0)", "self.delayfunc(0)"),
], "json", "conflict", "black re-spaced the inline comment on the very line the edit changes")

case("py", "unchanged-docstring", SCHED, "sched/sched.py", UNCHANGED, [
    Sub("            return not self._queue", "not self._queue", "len(self._queue) == 0"),
], "search-replace", "applied", "nothing changed since the read: the edit applies as usual", changed_by="unchanged")

case("py", "black-seek-message", CHUNK, "iff/chunk.py", black(), [
    Sub("            raise RuntimeError", "RuntimeError", "RuntimeError(\"seek position out of range\")"),
], "search-replace", "applied", "black changed quotes in __init__ and read(); seek() is untouched")

case("py", "black-adjacent-line", CHUNK, "iff/chunk.py", black(), [
    Sub("        self.file = file", "self.file = file", "self.file = file  # the underlying stream"),
], "unified", "conflict", "the edit changes the line right after one black re-quoted (strflag = '<'): no unchanged line between, git reports a conflict",
     adjacent=True)

case("py", "ruff-getlines-entry", LINECACHE, "src/linecache.py", ruff(), [
    Sub(("            return cache[filename][2]", 0), "cache[filename][2]", "entry[2]"),
], "json", "applied", "ruff-format re-quoted getline() and checkcache(); the edit is in getlines()")

case("py", "ruff-requoted-condition", LINECACHE, "src/linecache.py", ruff(), [
    Sub(("if not filename or (filename.startswith('<')", 0),
        "(filename.startswith('<') and filename.endswith('>'))", "_is_pseudo(filename)"),
], "patch", "conflict", "ruff-format changed the quotes of the condition the edit rewrites")

case("py", "black-whole-put-message", QUEUE, "lib/queue.py", black(), [
    Sub(("raise ValueError(\"'timeout' must be a non-negative number\")", 0),
        "\"'timeout' must be a non-negative number\"", "f\"'timeout' must be a non-negative number, got {timeout!r}\""),
], "whole", "applied", "the model resent the whole file; black only changed docstring quotes, 10 lines away")

case("py", "black-docstring-quotes", QUEUE, "lib/queue.py", black(), [
    Sub(("'''Return the approximate size of the queue (not reliable!).'''", 0),
        "approximate size of the queue", "approximate number of items in the queue"),
], "json", "conflict", "black turned ''' into \"\"\" on the docstring line the edit rewords")

case("py", "black-repr-far", NETRC, "netrc/netrc.py", black(), [
    Rep("            rep += f\"\\tpassword {attrs[2]}\\n\"", [
        "            if attrs[2]:",
        "                rep += f\"\\tpassword {attrs[2]}\\n\""]),
], "unified", "applied", "black rewrote _parse() and the __main__ guard; __repr__ is untouched")

case("py", "same-region-authenticators", NETRC, "netrc/netrc.py",
     Ops(Rep("        if host in self.hosts:", [
         "        return self.hosts.get(host, self.hosts.get('default'))"], n=6)), [
    Sub("        elif 'default' in self.hosts:", "'default'", "\"default\"", n=2, count=2),
], "search-replace", "conflict", "another agent rewrote authenticators() the edit changes",
     changed_by="edit-same-region")

case("py", "black-two-hunks-between-inserted-blanks", HEAPQ, "heap/heapq.py", black(), [
    Rep('    """Fast version of a heappush followed by a heappop."""', [
        '    """Fast version of a heappush followed by a heappop.',
        '',
        '    Returns item itself when the heap is empty or item <= heap[0].',
        '    """']),
    Sub(("parentpos = (pos - 1) >> 1", 0), "(pos - 1) >> 1", "(pos - 1) // 2"),
], "patch", "applied", "black added blank lines between the functions and spaced n//2; both hunks keep clear of them")

case("py", "black-spaced-operator", HEAPQ, "heap/heapq.py", black(), [
    Sub(("    for i in reversed(range(n//2)):", 0), "reversed(range(n//2))", "range(n // 2 - 1, -1, -1)"),
], "search-replace", "conflict", "black wrote n//2 as n // 2 on the line the edit rewrites")

case("py", "black-blank-inserted-after-edit", HEAPQ, "heap/heapq.py", black(), [
    Rep(("    heap[pos] = newitem", 0), [
        "    heap[pos] = newitem",
        "    return pos"]),
], "json", "applied", "the edit appends a line to _siftdown(); black adds a second blank line, which git places after the existing blank: one unchanged line between, merges",
     adjacent=True)

case("py", "license-header-at-top", BISECT, "src/bisect.py",
     Ops(Ins(0, ["# SPDX-License-Identifier: PSF-2.0", "# Copyright (c) Python Software Foundation"])), [
    Rep("        lo = bisect_right(a, key(x), lo, hi, key=key)", [
        "        if key(x) is None:",
        "            raise TypeError(\"key(x) must not be None\")",
        "        lo = bisect_right(a, key(x), lo, hi, key=key)"]),
], "whole", "applied", "a tool put a license header at the very top; the model resent the whole file with a change in insort_right()",
     changed_by="insert-top")

case("py", "append-all-at-end", BISECT, "src/bisect.py",
     Ops(Ins(-1, ["", "__all__ = [\"bisect\", \"bisect_left\", \"bisect_right\", \"insort\", \"insort_left\", \"insort_right\"]"])), [
    Sub(("        raise ValueError('lo must be non-negative')", 1), "'lo must be non-negative'", "f'lo must be non-negative, got {lo}'"),
], "unified", "applied", "another agent appended __all__ at the end of the file; the edit is in bisect_left()",
     changed_by="append-end")

case("py", "edit-above-munge", TEXTWRAP, "text/textwrap.py",
     Ops(Rep("        if self.replace_whitespace:", [
         "        if self.replace_whitespace and text:"])), [
    Rep("        chunks = [c for c in chunks if c]", [
        "        chunks = list(filter(None, chunks))"]),
], "patch", "applied", "another agent changed _munge_whitespace() just above _split(), which the edit changes",
     changed_by="edit-above", headers=["def _split(self, text):"])

case("py", "edit-below-sentence-endings", TEXTWRAP, "text/textwrap.py",
     Ops(Rep("            if chunks[i+1] == \" \" and patsearch(chunks[i]):", [
         "            if chunks[i + 1] == \" \" and patsearch(chunks[i]):"])), [
    Rep("            text = text.expandtabs(self.tabsize)", [
        "            text = text.expandtabs(max(self.tabsize, 0))"]),
], "json", "applied", "another agent changed _fix_sentence_endings(), below the edited _munge_whitespace()",
     changed_by="edit-below")

case("py", "edit-far-gnu-getopt", GETOPT, "cli/getopt.py",
     Ops(Sub("def gnu_getopt(args, shortopts, longopts = []):", "longopts = []", "longopts=()")), [
    Rep("    if type(longopts) == type(\"\"):", [
        "    if isinstance(longopts, str):"]),
], "search-replace", "applied", "another agent changed gnu_getopt()'s signature, 44 lines below the edit in getopt()",
     changed_by="edit-far")

case("py", "identical-eof-spacing", CMD, "repl/cmd.py",
     Ops(Sub("        if line == 'EOF' :", "'EOF' :", "'EOF':")), [
    Sub("        if line == 'EOF' :", "'EOF' :", "'EOF':"),
], "patch", "applied", "the user made the very same fix the edit makes: both sides agree, git merges it",
     changed_by="identical-change", identical=True)

case("py", "same-line-unknown-syntax", CMD, "repl/cmd.py",
     Ops(Sub("        self.stdout.write('*** Unknown syntax: %s\\n'%line)", "'*** Unknown syntax: %s\\n'%line",
             "'*** Unknown syntax: %s\\n' % line")), [
    Sub("        self.stdout.write('*** Unknown syntax: %s\\n'%line)", "'*** Unknown syntax: %s\\n'%line",
        "f'*** Unknown syntax: {line!r}\\n'"),
], "unified", "conflict", "the user and the model rewrote the same line differently", changed_by="edit-same-region")

case("py", "deleted-block-edited", FNMATCH, "glob/fnmatch.py",
     Ops(Rep("    if os.path is posixpath:", [
         "    for name in names:",
         "        if match(os.path.normcase(name)):",
         "            result.append(name)"], n=9)), [
    Sub("        # normcase on posix is NOP. Optimize it away from the loop.", "NOP", "a no-op"),
], "json", "conflict", "another agent removed the posixpath fast path whose comment the edit rewords",
     changed_by="delete-region")

case("py", "adjacent-normcase", FNMATCH, "glob/fnmatch.py",
     Ops(Sub(("    pat = os.path.normcase(pat)", 0), "os.path.normcase(pat)", "os.path.normcase(os.fspath(pat))")), [
    Sub("    return fnmatchcase(name, pat)", "fnmatchcase(name, pat)", "_compile_pattern(pat)(name) is not None"),
], "search-replace", "conflict", "the other side changed the line right above the edited return line: adjacent, git reports a conflict",
     changed_by="edit-adjacent", adjacent=True)

case("py", "whole-requoted-line", COPY, "util/copy.py", ruff(), [
    Sub("error = Error   # backward compatibility", "error = Error   # backward compatibility",
        "error = Error   # deprecated alias, kept for backward compatibility"),
], "whole", "conflict", "ruff-format re-spaced the comment of the alias line the resent file rewords")

case("py", "crlf-edit-above", TABNANNY, "tools/tabnanny.py",
     Ops(Sub("        errprint(\"%r: I/O Error: %s\" % (file, msg))", "I/O Error", "I/O error")), [
    Rep("            if ' ' in file: file = '\"' + file + '\"'", [
        "            if ' ' in file:",
        "                file = '\"' + file + '\"'"]),
], "search-replace", "applied", "CRLF file: another agent changed an error message above the edited lines; CRLF is kept",
     changed_by="edit-above", crlf=True)

case("py", "no-eol-black-adds-newline", BISECT, "src/bisect.py", black("-S"), [
    Rep("            if x < a[mid]:", [
        "            if x < a[mid]:  # x goes left of mid"]),
], "patch", "applied", "no final newline: black -S added one (and a blank line); the edit in bisect_right() merges and the newline stays",
     no_final_newline=True)

case("py", "no-eol-edit-last-line", SHELVE, "store/shelve.py",
     Ops(Sub("            if self.writeback:\n", "self.writeback", "self.writeback is True", n=1)), [
    Sub("    return DbfilenameShelf(filename, flag, protocol, writeback)",
        "DbfilenameShelf(filename, flag, protocol, writeback)",
        "DbfilenameShelf(filename, flag, protocol, writeback=writeback)"),
], "unified", "applied", "no final newline: the edit changes the last line, another agent a line in __getitem__(); still no final newline",
     changed_by="edit-above", no_final_newline=True)

case("py", "black-S-setitem", SHELVE, "store/shelve.py", black("-S"), [
    Rep("        p = Pickler(f, self._protocol)", [
        "        p = Pickler(f, self._protocol, fix_imports=False)"]),
], "json", "applied", "black -S (no string normalization) joined the __init__ signatures and dropped tuple parens; __setitem__ is untouched")

case("py", "black-S-unpacking", SHELVE, "store/shelve.py", black("-S"), [
    Rep("        (key, value) = self.dict.set_location(key)", [
        "        (key, data) = self.dict.set_location(key)",
        "        f = BytesIO(data)"], n=2),
], "patch", "conflict", "black -S removed the parentheses of the unpacking the edit rewrites")

case("py", "black-hunk-ok-hunk-conflicts", QUEUE, "lib/queue.py", black(), [
    Sub("            self.unfinished_tasks += 1", "+= 1", "+= 1  # join() waits for this"),
    Sub(("        '''Put an item into the queue without blocking.", 0), "without blocking", "without ever blocking", n=1),
], "patch", "conflict", "two hunks: the first merges cleanly, the second rewords a docstring line black re-quoted; the whole edit conflicts")

case("py", "ruff-vs-black-region", LINECACHE, "src/linecache.py", ruff(), [
    Rep("                    [line + '\\n' for line in data.splitlines()],", [
        "                    data.splitlines(keepends=True),"]),
], "search-replace", "conflict", "ruff-format re-quoted the list comprehension and added a trailing comma after fullname")

case("py", "edit-deletes-black-changed", HEAPQ, "heap/heapq.py", black(), [
    Del("def _heappop_max(heap):", n=10),
], "unified", "conflict", "the edit deletes _heappop_max(), whose comment spacing black changed")

case("py", "crlf-black-keeps-crlf", CHUNK, "iff/chunk.py", black(), [
    Rep("        if pos < 0 or pos > self.chunksize:", [
        "        if not 0 <= pos <= self.chunksize:"]),
], "json", "applied", "CRLF file: black kept CRLF and changed quotes elsewhere; the edit in seek() merges, CRLF kept",
     crlf=True)

case("py", "insert-after-modified-line", GETOPT, "cli/getopt.py",
     Ops(Sub("        opt, optarg = opt[:i], opt[i+1:]", "opt[i+1:]", "opt[i + 1:]")), [
    Ins("        opt, optarg = opt[:i], opt[i+1:]", ["        optarg = optarg.strip()"]),
], "patch", "conflict", "the edit inserts a line right after the line the user re-spaced: an insertion next to a change conflicts in git",
     changed_by="edit-adjacent", adjacent=True)

case("py", "deleted-line-above-edit", GETOPT, "cli/getopt.py",
     Ops(Del("            optarg, optstring = optstring, ''")), [
    Sub(("            optarg = ''", 0), "optarg = ''", "optarg = ''  # no argument"),
], "json", "applied", "the user deleted a line; the edit changes a line two below it (an `else:` between): one unchanged line, merges",
     changed_by="edit-adjacent", adjacent=True)

# ---- TypeScript (rxjs 7.8.1 src, prettier --single-quote at the default width 80) -----------
RX = "rxjs@7.8.1"
SUBSCRIPTION = npm_src(RX, "src/internal/Subscription.ts")
SUBSCRIBER = npm_src(RX, "src/internal/Subscriber.ts")
SHARE = npm_src(RX, "src/internal/operators/share.ts")
MERGEINT = npm_src(RX, "src/internal/operators/mergeInternals.ts")
ASYNCACTION = npm_src(RX, "src/internal/scheduler/AsyncAction.ts")
PRETTIER_SQ = prettier("--single-quote")

case("ts", "prettier-unsubscribe-far", SUBSCRIPTION, "src/Subscription.ts", PRETTIER_SQ, [
    Rep("            errors = errors ?? [];", [
        "            errors ??= [];"]),
], "patch", "applied", "prettier wrapped three long lines at width 80; unsubscribe() has none of them")

case("ts", "prettier-wrapped-line", SUBSCRIPTION, "src/Subscription.ts", PRETTIER_SQ, [
    Sub("    return _parentage === parent || (Array.isArray(_parentage) && _parentage.includes(parent));",
        "_parentage.includes(parent)", "_parentage.indexOf(parent) >= 0"),
], "json", "conflict", "prettier broke _hasParent()'s return over four lines; the edit rewrites that line")

case("ts", "prettier-remove-parent", SUBSCRIPTION, "src/Subscription.ts", PRETTIER_SQ, [
    Rep("      arrRemove(_parentage, parent);", [
        "      arrRemove(_parentage, parent);",
        "      if (_parentage.length === 0) {",
        "        this._parentage = null;",
        "      }"]),
], "search-replace", "applied", "prettier wrapped _addParent() just above; the edit is inside _removeParent(), 8 lines below")

case("ts", "unchanged-whole", SUBSCRIPTION, "src/Subscription.ts", UNCHANGED, [
    Sub("export const EMPTY_SUBSCRIPTION = Subscription.EMPTY;", "Subscription.EMPTY",
        "Subscription.EMPTY as Subscription"),
], "whole", "applied", "nothing changed since the read: the resent file is written as is", changed_by="unchanged")

case("ts", "prettier-import-added-below-wrapped-import", SUBSCRIBER, "src/Subscriber.ts", PRETTIER_SQ, [
    Ins("import { captureError } from './util/errorContext';", [
        "import { errorContext } from './util/errorContext';"]),
], "unified", "applied", "prettier split the long NotificationFactories import (line 7); the edit adds an import after line 9")

case("ts", "prettier-whole-cast-line", SUBSCRIBER, "src/Subscriber.ts", PRETTIER_SQ, [
    Sub("        next: (observerOrNext ?? undefined) as (((value: T) => void) | undefined),",
        "(observerOrNext ?? undefined) as (((value: T) => void) | undefined)",
        "observerOrNext ?? undefined"),
], "whole", "conflict", "prettier dropped the extra parentheses of the cast the resent file removes differently")

case("ts", "prettier-adjacent-error-field", SUBSCRIBER, "src/Subscriber.ts", PRETTIER_SQ, [
    Sub("        error: error ?? undefined,", "error ?? undefined", "error || undefined"),
], "patch", "conflict", "the edit changes the line right below the cast prettier rewrote: adjacent, git reports a conflict",
     adjacent=True)

case("ts", "deleted-method-edited", SUBSCRIBER, "src/Subscriber.ts",
     Ops(Del(("  complete(): void {", 1), n=11, off=-1)), [
    Sub("        partialObserver.complete();", "partialObserver.complete();", "partialObserver.complete!();"),
], "search-replace", "conflict", "another agent deleted ConsumerObserver.complete(), the method the edit changes",
     changed_by="delete-region")

case("ts", "prettier-whole-handle-reset", SHARE, "src/operators/share.ts", PRETTIER_SQ, [
    Rep("  if (on === false) {", [
        "  if (!on) {"]),
], "whole", "applied", "prettier reflowed share()'s signature and destructuring; the resent file changes handleReset()")

case("ts", "prettier-destructuring", SHARE, "src/operators/share.ts", PRETTIER_SQ, [
    Sub("  const { connector = () => new Subject<T>(), resetOnError = true, resetOnComplete = true, resetOnRefCountZero = true } = options;",
        "resetOnRefCountZero = true }", "resetOnRefCountZero = true, debug = false }"),
], "search-replace", "conflict", "prettier broke the long destructuring over six lines; the edit adds a field to it")

case("ts", "prettier-buffer-loop", MERGEINT, "src/operators/mergeInternals.ts", PRETTIER_SQ, [
    Sub("              while (buffer.length && active < concurrent) {", "buffer.length && active < concurrent",
        "buffer.length > 0 && active < concurrent"),
], "json", "applied", "prettier wrapped executeSchedule(...) 6 lines below and the closing brackets; the loop head is untouched")

case("ts", "prettier-execute-far", ASYNCACTION, "src/scheduler/AsyncAction.ts", PRETTIER_SQ, [
    Rep("      return new Error('executing a cancelled action');", [
        "      return new Error(`executing a cancelled action (delay ${delay})`);"], ctx=1),
], "patch", "applied", "prettier wrapped the constructor and the *AsyncId signatures; execute() is untouched",
     headers=["public execute(state: T, delay: number): any {"])

case("ts", "prettier-request-id-body", ASYNCACTION, "src/scheduler/AsyncAction.ts", PRETTIER_SQ, [
    Sub("    return intervalProvider.setInterval(scheduler.flush.bind(scheduler, this), delay);",
        "scheduler.flush.bind(scheduler, this)", "() => scheduler.flush(this)"),
], "unified", "conflict", "prettier wrapped requestAsyncId()'s body, the line the edit rewrites")

case("ts", "edit-below-unsubscribe", ASYNCACTION, "src/scheduler/AsyncAction.ts",
     Ops(Sub("        this.id = this.recycleAsyncId(scheduler, id, null);", "null", "undefined")), [
    Sub("      errorValue = e ? e : new Error('Scheduled action threw falsy error');", "e ? e :", "e ||"),
], "json", "applied", "another agent changed unsubscribe(), below the edited _execute()", changed_by="edit-below")

SUBJECT = npm_src(RX, "src/internal/Subject.ts")

case("ts", "edit-deletes-prettier-wrapped", SUBSCRIPTION, "src/Subscription.ts", PRETTIER_SQ, [
    Del("  private _hasParent(parent: Subscription) {", n=10, off=-5),
], "patch", "conflict", "the edit deletes _hasParent() (and its doc comment), whose return line prettier wrapped")

case("ts", "crlf-prettier-crlf", SUBJECT, "src/Subject.ts", prettier("--single-quote", "--end-of-line", "crlf"), [
    Rep("        this.hasError = this.isStopped = true;", [
        "        this.isStopped = true;",
        "        this.hasError = true;"]),
], "search-replace", "applied", "CRLF file, prettier kept CRLF and wrapped Subject.create; the edit in error() merges",
     crlf=True)

case("ts", "both-add-import-same-place", SUBJECT, "src/Subject.ts",
     Ops(Ins("import { errorContext } from './util/errorContext';", ["import { noop } from './util/noop';"])), [
    Ins("import { errorContext } from './util/errorContext';", ["import { isFunction } from './util/isFunction';"]),
], "json", "conflict", "the other side and the edit each added a different import after the last one: same place, one conflict",
     changed_by="edit-same-region")

case("ts", "imports-one-line-apart", SUBJECT, "src/Subject.ts",
     Ops(Ins("import { ObjectUnsubscribedError } from './util/ObjectUnsubscribedError';", ["import { noop } from './util/noop';"])), [
    Ins("import { arrRemove } from './util/arrRemove';", ["import { isFunction } from './util/isFunction';"]),
], "unified", "applied", "the other side and the edit each added an import, with exactly one unchanged import line between them",
     changed_by="insert-top")

# ---- JavaScript (commander 12.1.0 with prettier's defaults: it uses single quotes; npm 11.19.1's
# standard style with prettier --no-semi --single-quote: `method (args)` loses its space) ------
OPTION = npm_src("commander@12.1.0", "lib/option.js")
ARGUMENT = npm_src("commander@12.1.0", "lib/argument.js")
VERSION = npm_src("npm@11.19.1", "lib/commands/version.js")
QUERY = npm_src("npm@11.19.1", "lib/commands/query.js")
PRETTIER_STD = prettier("--no-semi", "--single-quote")

case("js", "prettier-dual-options-far", OPTION, "lib/option.js", prettier(), [
    Rep("    const negativeValue = preset !== undefined ? preset : false;", [
        "    const negativeValue = preset ?? false;"]),
], "patch", "applied", "prettier's defaults turned every single-quoted string into double quotes; valueFromOption() has none")

case("js", "prettier-requoted-template-arg", OPTION, "lib/option.js", prettier(), [
    Sub("          `Allowed choices are ${this.argChoices.join(', ')}.`,", "join(', ')", "join(' | ')"),
], "json", "conflict", "prettier re-quoted the join(', ') the edit changes")

case("js", "ts-check-at-top", OPTION, "lib/option.js",
     Ops(Ins(0, ["// @ts-check", "'use strict';", ""])), [
    Sub("    this.flags = flags;", "this.flags = flags;", "this.flags = flags.trim();"),
], "unified", "applied", "another agent put // @ts-check and 'use strict' at the very top; the edit is in the constructor",
     changed_by="insert-top")

case("js", "prettier-std-change-body", VERSION, "lib/commands/version.js", PRETTIER_STD, [
    Sub(("    const prefix = this.npm.config.get('tag-version-prefix')", 0),
        "this.npm.config.get('tag-version-prefix')", "this.npm.config.get('tag-version-prefix') ?? 'v'"),
], "search-replace", "applied", "prettier removed the space before change()'s parameter list; the edit changes the second line of its body")

case("js", "prettier-std-signature", VERSION, "lib/commands/version.js", PRETTIER_STD, [
    Sub("  async list (results = {}) {", "results = {}", "results = {}, { json = false } = {}"),
], "patch", "conflict", "prettier rewrote `async list (results = {})` as `async list(results = {})`, the line the edit changes")

case("js", "prettier-std-first-body-line", VERSION, "lib/commands/version.js", PRETTIER_STD, [
    Sub(("    switch (args.length) {", 0), "switch (args.length) {", "switch (args.length) { // 0: list, 1: change"),
], "json", "conflict", "the edit changes the line right after exec()'s signature, which prettier rewrote: adjacent, git reports a conflict",
     adjacent=True)

case("js", "prettier-std-whole-location-rank", QUERY, "lib/commands/query.js", PRETTIER_STD, [
    Rep("  if (!node.location.includes('node_modules/.store/')) {", [
        "  if (!node.location.includes(`node_modules/.store/`)) {"]),
], "whole", "applied", "prettier rewrote the method signatures and a wrapped ternary; the resent file changes locationRank() at the top")

case("js", "append-export-edit-exec", QUERY, "lib/commands/query.js",
     Ops(Ins(-1, ["module.exports.QuerySelectorItem = QuerySelectorItem"])), [
    Sub("      path: resolve(this.npm.dir, '..'),", "resolve(this.npm.dir, '..')", "resolve(this.npm.dir, '..', '..')"),
], "search-replace", "applied", "another agent appended an export at the end; the edit is in exec()", changed_by="append-end")

case("js", "append-export-edit-last-line", QUERY, "lib/commands/query.js",
     Ops(Ins(-1, ["module.exports.QuerySelectorItem = QuerySelectorItem"])), [
    Rep("module.exports = Query", [
        "module.exports = Query",
        "module.exports.locationRank = locationRank"]),
], "unified", "conflict", "both sides appended a different line at the end of the file: one conflict", changed_by="append-end")

case("js", "identical-requote", ARGUMENT, "lib/argument.js",
     Ops(Sub("      case '<': // e.g. <required>", "'<'", "\"<\"")), [
    Sub("      case '<': // e.g. <required>", "'<'", "\"<\""),
], "json", "applied", "the user made the identical change the edit makes: git merges it once",
     changed_by="identical-change", identical=True)

case("js", "edit-far-list-workspaces", VERSION, "lib/commands/version.js",
     Ops(Sub("      const pkg = await readFile(pj, 'utf8').then(data => JSON.parse(data))",
             "readFile(pj, 'utf8').then(data => JSON.parse(data))", "readFile(pj, 'utf8').then(JSON.parse)")), [
    Rep(("        throw this.usageError()", 0), [
        "        throw this.usageError(`expected at most one argument, got ${args.length}`)"]),
], "unified", "applied", "another agent changed listWorkspaces(), 90 lines below the edited exec()", changed_by="edit-far")

case("js", "no-eol-prettier-adds-newline", ARGUMENT, "lib/argument.js", prettier(), [
    Rep("    this.argChoices = values.slice();", [
        "    this.argChoices = Array.from(values);"]),
], "patch", "applied", "no final newline: prettier added one (and re-quoted strings); the edit in choices() merges",
     no_final_newline=True)

case("js", "edit-same-region-human-name", ARGUMENT, "lib/argument.js",
     Ops(Sub("  return arg.required ? '<' + nameOutput + '>' : '[' + nameOutput + ']';",
             "'<' + nameOutput + '>' : '[' + nameOutput + ']'", "`<${nameOutput}>` : `[${nameOutput}]`")), [
    Rep("  const nameOutput = arg.name() + (arg.variadic === true ? '...' : '');", [
        "  const nameOutput = arg.name() + (arg.variadic ? '...' : '');",
        "",
        "  return arg.required ? `<${nameOutput}>` : `[${nameOutput}]`;"], n=3),
], "whole", "applied", "both sides rewrote the return line the same way; the resent file also changed the line above: git takes the shared change once",
     changed_by="edit-same-region", identical=True)

case("js", "edit-deletes-prettier-changed", VERSION, "lib/commands/version.js", PRETTIER_STD, [
    Del("  async listWorkspaces () {", n=15, off=-1),
], "json", "conflict", "the edit deletes listWorkspaces(), whose signature and readFile line prettier rewrote")

case("js", "insert-prefix-of-other-insert", OPTION, "lib/option.js",
     Ops(Ins("    this.implied = undefined;", ["    this.group = undefined;"])), [
    Ins("    this.implied = undefined;", ["    this.group = undefined;", "    this.helpGroupHeading = undefined;"]),
], "search-replace", "conflict", "both sides added fields at the same place; the edit's two lines begin with the other side's one: git does not merge a shared prefix, conflict",
     changed_by="edit-same-region", adjacent=True)

# ---- Rust (crates written for rustfmt.toml settings of their own — max_width 79, small
# heuristics Max — reformatted with rustfmt's defaults, edition 2021) -------------------------
LIMITED = rs_src("regex-automata-0.4.18", "src/meta/limited.rs")
REMAPPER = rs_src("aho-corasick-1.1.5", "src/util/remapper.rs")
AC_ERROR = rs_src("aho-corasick-1.1.5", "src/util/error.rs")
SPLIT = rs_src("futures-util-0.3.34", "src/stream/stream/split.rs")
PATHUTIL = rs_src("ignore-0.4.34", "src/pathutil.rs")

case("rs", "rustfmt-loop-far", LIMITED, "src/meta/limited.rs", rustfmt(), [
    Rep(("        if at == input.start() {", 0), [
        "        if at <= input.start() {"]),
], "patch", "applied", "rustfmt joined the wrapped `&&` conditions near the end of both functions; the loop is untouched")

case("rs", "rustfmt-joined-condition", LIMITED, "src/meta/limited.rs", rustfmt(), [
    Sub(("        && mat.map_or(false, |m| m.offset() > input.start())", 0),
        "mat.map_or(false, |m| m.offset() > input.start())", "mat.is_some_and(|m| m.offset() > input.start())"),
], "json", "conflict", "rustfmt joined the four-line condition into one line; the edit changes its second line")

case("rs", "rustfmt-two-hunks", LIMITED, "src/meta/limited.rs", rustfmt(), [
    Sub(("                \"reached position {at} which is before the previous literal \\", 1),
        "reached position {at}", "reached position {at} (min_start {min_start})"),
    Sub(("            return Err(MatchError::quit(byte, sp.start - 1));", 0), "sp.start - 1", "sp.start.saturating_sub(1)"),
], "unified", "applied", "two hunks in hybrid_try_search_half_rev() and dfa_eoi_rev(), between and below the conditions rustfmt joined")

case("rs", "rustfmt-remap-loop", REMAPPER, "src/util/remapper.rs", rustfmt(), [
    Rep("                let id = oldmap[self.idx.to_index(new_id)];", [
        "                let id = oldmap[self.idx.to_index(new_id)];",
        "                debug_assert_ne!(id, new_id, \"remap cycle must make progress\");"]),
], "search-replace", "applied", "rustfmt joined swap()'s signature and wrapped its last line; the edit is in remap()")

case("rs", "rustfmt-adjacent-swap-body", REMAPPER, "src/util/remapper.rs", rustfmt(), [
    Sub("        r.swap_states(id1, id2);", "r.swap_states(id1, id2);", "r.swap_states(id1, id2); // the states themselves"),
], "patch", "conflict", "the edit changes the line right above the one rustfmt wrapped: adjacent, git reports a conflict",
     adjacent=True)

case("rs", "no-eol-rustfmt-index-mapper", REMAPPER, "src/util/remapper.rs", rustfmt(), [
    Sub("        id.as_usize() >> self.stride2", "id.as_usize() >> self.stride2", "id.as_usize().wrapping_shr(self.stride2 as u32)"),
], "patch", "applied", "no final newline: rustfmt added it and rewrapped swap(); the edit is in IndexMapper::to_index()",
     no_final_newline=True)

case("rs", "rustfmt-overlapping-arm", AC_ERROR, "src/util/error.rs", rustfmt(), [
    Sub("                    \"match kind {:?} does not support overlapping searches\",",
        "does not support overlapping searches", "does not support overlapping searches (use Standard)"),
], "json", "applied", "rustfmt joined the write!() of the UnsupportedStream arm; the edit is in the next arm")

case("rs", "rustfmt-joined-constructor", AC_ERROR, "src/util/error.rs", rustfmt(), [
    Rep("        BuildError { kind: ErrorKind::StateIDOverflow { max, requested_max } }", [
        "        BuildError {",
        "            kind: ErrorKind::StateIDOverflow { max, requested_max },",
        "        }"]),
], "search-replace", "conflict", "rustfmt reflowed state_id_overflow() whole; the edit rewrites its body")

case("rs", "edit-above-whole-display", AC_ERROR, "src/util/error.rs",
     Ops(Ins(("    },", 2), [
         "    /// An error that occurs when the total size of the patterns is too big.",
         "    TooManyPatterns {",
         "        /// The number of patterns given.",
         "        len: usize,",
         "    },"])), [
    Sub("                    \"pattern {} with length {} exceeds \\", "pattern {} with length {} exceeds",
        "pattern {} of length {} exceeds"),
], "whole", "applied", "another agent added an ErrorKind variant above; the resent file rewords a Display message",
     changed_by="edit-above")

case("rs", "rustfmt-poll-ready", SPLIT, "src/stream/stream/split.rs", rustfmt(), [
    Rep("            ready!(self.as_mut().poll_lock_and_flush_slot(cx))?;", [
        "            let this = self.as_mut();",
        "            ready!(this.poll_lock_and_flush_slot(cx))?;"]),
], "patch", "applied", "rustfmt wrapped long lines in reunite(), poll_flush() and Display; poll_ready() is untouched")

case("rs", "rustfmt-display-message", SPLIT, "src/stream/stream/split.rs", rustfmt(), [
    Sub("        write!(f, \"tried to reunite a SplitStream and SplitSink that don't form a pair\")",
        "tried to reunite", "cannot reunite"),
], "unified", "conflict", "rustfmt wrapped the write!() the edit rewords")

case("rs", "rustfmt-test-adjacent", SPLIT, "src/stream/stream/split.rs", rustfmt(), [
    Sub("        let (sink1, stream1) = s1.split();", "s1.split()", "StreamExt::split(s1)"),
], "json", "conflict", "the edit changes the test line right after the struct literal rustfmt expanded: adjacent, git reports a conflict",
     adjacent=True)

case("rs", "identical-poll-close", SPLIT, "src/stream/stream/split.rs",
     Ops(Sub(("        ready!(Self::poll_flush_slot(inner.as_pin_mut(), &mut this.slot, cx))?;", 1),
             "ready!(Self::poll_flush_slot(inner.as_pin_mut(), &mut this.slot, cx))?;",
             "ready!(Self::poll_flush_slot(inner.as_pin_mut(), &mut this.slot, cx))?; // flush first")), [
    Sub(("        ready!(Self::poll_flush_slot(inner.as_pin_mut(), &mut this.slot, cx))?;", 1),
        "ready!(Self::poll_flush_slot(inner.as_pin_mut(), &mut this.slot, cx))?;",
        "ready!(Self::poll_flush_slot(inner.as_pin_mut(), &mut this.slot, cx))?; // flush first"),
], "unified", "applied", "the user made the very change the edit makes, in poll_close(): git merges it once",
     changed_by="identical-change", identical=True)

case("rs", "rustfmt-strip-prefix", PATHUTIL, "src/pathutil.rs", rustfmt(), [
    Sub("        if prefix.len() > path.len() || prefix != &path[0..prefix.len()] {",
        "prefix.len() > path.len() || prefix != &path[0..prefix.len()]", "!path.starts_with(prefix)"),
], "search-replace", "applied", "rustfmt joined is_file_name()'s call chain and file_name()'s signature; strip_prefix() is untouched")

case("rs", "rustfmt-signature", PATHUTIL, "src/pathutil.rs", rustfmt(), [
    Rep("pub(crate) fn file_name<'a, P: AsRef<Path> + ?Sized>(", [
        "pub(crate) fn file_name<'a, P>("], ctx=3),
    Sub(") -> Option<&'a OsStr> {", ") -> Option<&'a OsStr> {", ") -> Option<&'a OsStr>\nwhere\n    P: AsRef<Path> + ?Sized,\n{"),
], "patch", "conflict", "rustfmt put file_name()'s signature on one line; the edit moves its bound to a where clause")

case("rs", "unchanged-hidden-only", PATHUTIL, "src/pathutil.rs", UNCHANGED, [
    Rep("    if let Some(name) = file_name(path) {", [
        "    if let Some(name) = file_name(path) {",
        "        // `..` and `.` are filtered out by file_name"]),
], "unified", "applied", "nothing changed since the read: the edit applies as usual", changed_by="unchanged")

case("rs", "use-added-at-top", PATHUTIL, "src/pathutil.rs",
     Ops(Ins(0, ["use std::borrow::Cow;", ""])), [
    Sub("        name.as_encoded_bytes().starts_with(b\".\")", "starts_with(b\".\")", "first() == Some(&b'.')"),
], "json", "applied", "another agent added a use line at the very top; the edit is in is_hidden_path_only()",
     changed_by="insert-top")

case("rs", "test-appended-at-end", PATHUTIL, "src/pathutil.rs",
     Ops(Ins(-1, ["", "#[cfg(test)]", "mod more_tests {", "    #[test]", "    fn nothing() {}", "}"])), [
    Rep("        assert!(!is_hidden_path(Path::new(\"a/..\")));", [
        "        assert!(!is_hidden_path(Path::new(\"a/..\")));",
        "        assert!(!is_hidden_path(Path::new(\"\")));"]),
], "search-replace", "applied", "another agent appended a test module after the last line; the edit adds an assert 2 lines above the end",
     changed_by="append-end")

case("rs", "deleted-windows-imp", PATHUTIL, "src/pathutil.rs",
     Ops(Del(("    #[cfg(windows)]", 0), n=13, off=-1)), [
    Sub(("            if file::is_hidden(md.file_attributes() as u64) {", 0), "md.file_attributes() as u64",
        "u64::from(md.file_attributes())"),
], "whole", "conflict", "another agent deleted the Windows implementation of is_hidden_path() that the resent file changes",
     changed_by="delete-region")

case("rs", "same-line-hidden-only", PATHUTIL, "src/pathutil.rs",
     Ops(Sub("        name.as_encoded_bytes().starts_with(b\".\")", "starts_with(b\".\")", "starts_with(&[b'.'])")), [
    Sub("        name.as_encoded_bytes().starts_with(b\".\")", "name.as_encoded_bytes().starts_with(b\".\")",
        "name.to_string_lossy().starts_with('.')"),
], "json", "conflict", "another agent and the model rewrote the same line of is_hidden_path_only() differently",
     changed_by="edit-same-region")

case("rs", "edit-deletes-modified-impl", SPLIT, "src/stream/stream/split.rs",
     Ops(Sub("        self.lock.is_pair_of(&other.0)", "self.lock.is_pair_of(&other.0)", "BiLock::is_pair_of(&self.lock, &other.0)")), [
    Del("impl<S, Item> SplitSink<S, Item> {", n=7),
], "patch", "conflict", "the edit deletes SplitSink::is_pair_of(), which another agent changed", changed_by="edit-same-region")

case("rs", "identical-plus-adjacent-line", SPLIT, "src/stream/stream/split.rs",
     Ops(Sub("    let (a, b) = BiLock::new(s);", "let (a, b)", "let (read_half, write_half)")), [
    Rep("    let (a, b) = BiLock::new(s);", [
        "    let (read_half, write_half) = BiLock::new(s);",
        "    let read = SplitStream(read_half);",
        "    let write = SplitSink(write_half);"], n=3),
], "json", "conflict", "the user renamed the pair; the edit makes that same rename and changes the two lines right below it: one hunk that is not identical, conflict",
     changed_by="edit-adjacent", identical=True, adjacent=True)

# ---- Go (container/list of Go 1.19, gofmt-clean upstream: un-formatted in three places first,
# as a user might leave it; gofmt then restores those places) --------------------------------
LIST = go_src("container/list/list.go")


def mess_list(src):
    """Un-gofmt container/list: squeezed operators in Next(), lost alignment in List, spaces for
    tabs in Init()."""
    src = src.replace("\tif p := e.next; e.list != nil && p != &e.list.root {",
                      "\tif p:=e.next; e.list!=nil && p!=&e.list.root {")
    src = src.replace("\tlen  int     // current list length", "\tlen int // current list length")
    src = src.replace("\tl.root.next = &l.root\n\tl.root.prev = &l.root\n\tl.len = 0\n\treturn l\n",
                      "    l.root.next = &l.root\n    l.root.prev = &l.root\n    l.len = 0\n    return l\n")
    return src


case("go", "gofmt-move-far", LIST, "list/list.go", gofmt(), [
    Rep(("\tif e == at {", 0), [
        "\tif e == at || e.list != l {"]),
], "patch", "applied", "gofmt re-squeezed Next(), realigned List's fields and re-tabbed Init(); move() is untouched",
     prepare=mess_list)

case("go", "gofmt-squeezed-line", LIST, "list/list.go", gofmt(), [
    Sub("\tif p:=e.next; e.list!=nil && p!=&e.list.root {", "e.list!=nil", "e.list!=nil && e.list.len>0"),
], "json", "conflict", "gofmt spaced the operators of the line the edit changes", prepare=mess_list)

case("go", "gofmt-whole-push-back-list", LIST, "list/list.go", gofmt(), [
    Rep(("\tfor i, e := other.Len(), other.Front(); i > 0; i, e = i-1, e.Next() {", 0), [
        "\tif other == nil {",
        "\t\treturn",
        "\t}",
        "\tfor i, e := other.Len(), other.Front(); i > 0; i, e = i-1, e.Next() {"]),
], "whole", "applied", "the model resent the whole file with a change in PushBackList(); gofmt's fixes are far above",
     prepare=mess_list)

case("go", "gofmt-adjacent-init-signature", LIST, "list/list.go", gofmt(), [
    Sub("func (l *List) Init() *List {", "func (l *List) Init() *List {", "func (l *List) Init() *List { // also clears l"),
], "unified", "conflict", "the edit changes Init()'s signature line, right above the body lines gofmt re-indented: adjacent, git reports a conflict",
     prepare=mess_list, adjacent=True)

case("go", "edit-below-move-after", LIST, "list/list.go",
     Ops(Rep(("\tif e.list != l || e == mark || mark.list != l {", 1), [
         "\tif e == mark || e.list != l || mark.list != l {"])), [
    Rep(("\tl.move(e, mark.prev)", 0), [
        "\tl.move(e, mark.prev) // e goes right before mark"]),
], "search-replace", "applied", "another agent changed MoveAfter(), just below the edited MoveBefore()",
     changed_by="edit-below", prepare=mess_list)


# ----------------------------------------------------------------------------- build


def toml_str(s):
    return json.dumps(s, ensure_ascii=False)


def build(c, n, check_bin):
    src = c.src()
    if c.prepare:
        src = c.prepare(src)
    snap_lf = src.replace("\r\n", "\n")
    if c.no_final_newline:
        snap_lf = snap_lf.rstrip("\n")
    edited_lf = apply_ops(snap_lf, c.edit)
    if c.format == "whole":
        assert snap_lf.endswith("\n"), "whole edits always end the file with a newline"
    edit_text = render(c, snap_lf, edited_lf)
    snapshot = crlf(snap_lf) if c.crlf else snap_lf
    edited = crlf(edited_lf) if c.crlf else edited_lf
    # the other side: a formatter sees the bytes on disk; operations are written in LF lines
    if isinstance(c.other, Fmt):
        current = c.other(snapshot, c)
    else:
        current = c.other(snap_lf, c)
        current = crlf(current) if c.crlf else current
    name = f"{n:03d}-{c.lang}-{c.slug}"
    problems = []
    if c.changed_by == "unchanged":
        if current != snapshot:
            problems.append("current differs from the snapshot in an `unchanged` case")
    elif current == snapshot:
        problems.append("the other change changes nothing")
    if edited == snapshot:
        problems.append("the edit changes nothing")
    for what, text in (("snapshot", snapshot), ("current", current), ("edited", edited)):
        err = syntax_error(c.lang, text)
        if err:
            problems.append(f"{what} does not parse: {err}")
    sb, cb, eb = snapshot.encode(), current.encode(), edited.encode()
    verdicts = {}
    for algo in ALGOS:
        rc, out = merge(cb, sb, eb, algo)
        verdicts[algo] = (rc, out if rc == 0 else None)
    rc, merged = merge(cb, sb, eb)
    if len({v for v in verdicts.values()} | {(rc, merged if rc == 0 else None)}) != 1:
        problems.append("git merge-file's diff algorithms disagree: " +
                        ", ".join(f"{a}={v[0]}" for a, v in verdicts.items()))
    expect = "applied" if rc == 0 else "conflict"
    if c.intend != expect:
        problems.append(f"intended {c.intend}, git merge-file says {expect} ({rc} conflicts)")
    gap = min_gap(snapshot, current, edited)
    if expect == "applied" and not (c.identical or c.adjacent) and gap is not None and gap < 1:
        problems.append(f"applied, but a change of each side is {gap} lines apart (want >= 1)")
    if check_bin:
        got = lancet_apply(check_bin, c, snapshot, edit_text)
        if got != eb:
            problems.append(f"lancet applied the edit to the snapshot differently than `edited`: "
                            f"{first_diff(got, eb)}")
    if rc == 0:
        err = syntax_error(c.lang, merged.decode())
        if err:
            problems.append(f"after does not parse: {err}")
    if problems:
        print(f"{name}: " + "; ".join(problems), file=sys.stderr)
        return None
    return dict(name=name, snapshot=sb, current=cb, edit=edit_text.encode(), expect=expect,
                after=merged if rc == 0 else None, gap=gap, conflicts=rc)


def first_diff(got, want):
    if got is None:
        return "refused"
    g, w = got.split(b"\n"), want.split(b"\n")
    for k, (x, y) in enumerate(zip(g, w)):
        if x != y:
            return f"line {k + 1}: got {x[:60]!r}, want {y[:60]!r}"
    return f"got {len(g)} lines, want {len(w)}"


def lancet_apply(binary, c, snapshot, edit_text):
    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / c.path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(snapshot.encode())
        r = subprocess.run([binary, "apply", "-C", d, "--format", c.format, "--json", "--no-checkpoint",
                            "--no-fsync", "--no-syntax-check"], input=edit_text.encode(),
                           capture_output=True, timeout=60)
        return p.read_bytes() if r.returncode == 0 else None


def write_case(c, r):
    d = CASES / r["name"]
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    (d / f"snapshot.{c.ext}").write_bytes(r["snapshot"])
    (d / f"current.{c.ext}").write_bytes(r["current"])
    (d / "edit").write_bytes(r["edit"])
    if r["after"] is not None:
        (d / f"after.{c.ext}").write_bytes(r["after"])
    (d / "case.toml").write_text(
        f"format = {toml_str(c.format)}\n"
        f"path = {toml_str(c.path)}\n"
        f"changed_by = {toml_str(c.changed_by)}\n"
        f"expect = {toml_str(r['expect'])}\n"
        f"why = {toml_str(c.why)}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", metavar="LANCET_BIN", help="also apply each edit to its snapshot with lancet")
    ap.add_argument("--only", help="build only the cases whose directory name matches this glob")
    ap.add_argument("--keep", action="store_true", help="do not remove case directories not generated")
    args = ap.parse_args()
    results, failed = [], 0
    for n, c in enumerate(CASELIST, 1):
        name = f"{n:03d}-{c.lang}-{c.slug}"
        if args.only and not fnmatch.fnmatchcase(name, args.only):
            continue
        try:
            r = build(c, n, args.check)
        except ValueError as e:
            print(f"{name}: {e}", file=sys.stderr)
            r = None
        if r is None:
            failed += 1
            continue
        results.append((c, r))
    if failed:
        sys.exit(f"{failed} case(s) failed their checks; nothing written")
    CASES.mkdir(exist_ok=True)
    names = {r["name"] for _, r in results}
    if not args.only and not args.keep:
        for d in CASES.iterdir():
            if d.is_dir() and d.name not in names:
                shutil.rmtree(d)
    for c, r in results:
        write_case(c, r)
    for title, key in (("format", lambda c, r: c.format), ("language", lambda c, r: c.lang),
                       ("changed_by", lambda c, r: c.changed_by), ("expect", lambda c, r: r["expect"])):
        cnt = Counter(key(c, r) for c, r in results)
        print(f"{title:>10}: " + ", ".join(f"{k} {v}" for k, v in sorted(cnt.items())))
    print(f"{len(results)} cases written to {CASES}")


if __name__ == "__main__":
    main()

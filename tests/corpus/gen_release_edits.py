#!/usr/bin/env python3
"""Generate lancet edit cases from the real changes between adjacent releases of real projects.

Usage: tests/corpus/gen_release_edits.py [--cache DIR] [--force] [-q]

Third-party sources are downloaded at run time from the package registries, never committed:
every pair in tests/corpus/manifest.toml is fetched with the registry's own client
(`pip download --no-deps --no-binary :all:` for PyPI source distributions, `npm pack` for npm)
into the cache (default $XDG_CACHE_HOME/lancet-corpus, else ~/.cache/lancet-corpus), unpacked
there, and each changed source file is diffed between the two releases (difflib, 3 lines of
context). Every real hunk becomes edit cases in four formats (Codex patch, Aider
SEARCH/REPLACE, unified diff, JSON old_string/new_string) and several categories: the clean
hunk, presentation noise lancet must forgive, context drift, content errors in removed lines
that lancet must refuse, a stale edit whose new text stands elsewhere, and the clean edit resent.
See tests/corpus/README.md.

The cases go to CACHE/cases/<key>/ (key = hash of the manifest and of this script):
cases.jsonl (one case a line), blobs/<sha256> (file contents, stored once) and stats.json
(hunks per project, cases per category x format, skipped cases per reason). A second run with
the same key reuses them; --force regenerates.
"""

import argparse
import difflib
import fnmatch
import hashlib
import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from collections import Counter, defaultdict

HERE = pathlib.Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.toml"

FORMATS = ["patch", "search-replace", "unified", "json"]

# category -> (expected outcome, formats it is rendered in, what it is)
CATEGORIES = {
    "clean": ("applied", FORMATS, "the real hunk as is"),
    "clean_file": ("applied", FORMATS, "all real hunks of one file in one edit; result == the real new release's file"),
    "trailing_ws": ("applied", FORMATS, "trailing whitespace added to / removed from context and removed lines"),
    "reindent": ("applied", FORMATS, "the whole hunk dedented to column 0, or indented by 4 more spaces (a tab in tab files)"),
    "tabs_spaces": ("applied", FORMATS, "the edit's indentation written with tabs instead of the file's spaces (or the reverse)"),
    "curly_quotes": ("applied", FORMATS, "typographic quotes for straight ones in kept context lines"),
    "crlf_file": ("applied", FORMATS, "the file uses CRLF, the edit LF"),
    "stale_line_numbers": ("applied", ["unified"], "the @@ -a,b +c,d @@ numbers off by 5..50 lines"),
    "line_number_prefix": ("applied", ["json"], "every old_string line carries a read-view prefix `    12→`"),
    "edge_blank": ("applied", FORMATS, "a blank line added at an edge of the old text where the file has none, or an edge blank context line dropped"),
    "context_drift": ("applied", FORMATS, "one kept context line differs from the file by one token (the file's line must stay)"),
    "wrong_digit": ("refused", FORMATS, "one digit changed in a line the hunk removes"),
    "wrong_identifier": ("refused", FORMATS, "one identifier changed (to a similar one of the file) in a line the hunk removes"),
    "wrong_string": ("refused", FORMATS, "one string literal changed in a line the hunk removes"),
    "stale_already_applied": ("refused", FORMATS, "the removed lines are gone from the file and the new text stands elsewhere (at the end), not where the old text was"),
    "resent": ("already_applied", FORMATS, "the clean edit sent again to the file it produced"),
}

MAX_HUNK_LINES = 80          # old or new side
MAX_FILE_BYTES = 400_000
MAX_LINE_CHARS = 400          # longer lines: generated/minified, not source a model edits
CONTEXT = 3

PY_KEYWORDS = set("""False None True and as assert async await break class continue def del elif else except
finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self cls
match case type print len str int dict list set tuple bool object super isinstance""".split())
JS_KEYWORDS = set("""break case catch class const continue debugger default delete do else export extends false
finally for function if import in instanceof let new null return super switch this throw true try typeof var void
while with yield async await static get set of undefined interface type enum implements private protected public
readonly declare namespace module abstract any string number boolean never unknown keyof as is""".split())

SR_MARKER = re.compile(r"^\s*(<{5,9}|={5,9}|>{5,9}|-{5,9} SEARCH|\+{5,9} REPLACE)")
DEF_LINE = re.compile(
    r"^\s*((async\s+)?def\s+\w|class\s+\w|(export\s+)?(default\s+)?(async\s+)?function\b|"
    r"(export\s+)?(declare\s+)?(abstract\s+)?class\s+\w|(export\s+)?(declare\s+)?interface\s+\w|"
    r"(export\s+)?(declare\s+)?namespace\s+\w)"
)
IDENT = re.compile(r"(?<![\w$])[A-Za-z_][A-Za-z0-9_]*(?![\w$])")
STRING = re.compile(r"""(["'])((?:(?!\1)[^\\\n])*?[A-Za-z0-9](?:(?!\1)[^\\\n])*?)\1""")
QUOTE_MAP = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def log(quiet, *a):
    if not quiet:
        print(*a, file=sys.stderr, flush=True)


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "lancet-corpus"


def sha(b):
    return hashlib.sha256(b).hexdigest()


def stable_seed(*parts):
    return int.from_bytes(hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()[:8], "big")


# ---------------------------------------------------------------------------- download, unpack


def download(pair, version, cache, quiet):
    """Fetch one release into cache/dl with the registry's client; return the archive path."""
    dl = cache / "dl" / pair["registry"] / pair["name"]
    dl.mkdir(parents=True, exist_ok=True)
    stem_py = [f"{pair['name']}-{version}.tar.gz", f"{pair['name'].replace('-', '_')}-{version}.tar.gz"]
    stem_npm = f"{pair['name'].lstrip('@').replace('/', '-')}-{version}.tgz"
    want = stem_py if pair["registry"] == "pypi" else [stem_npm]
    for w in want:
        for p in dl.iterdir():
            if p.name.lower() == w.lower():
                return p
    log(quiet, f"  downloading {pair['name']} {version} ({pair['registry']})")
    if pair["registry"] == "pypi":
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
               f"{pair['name']}=={version}", "-d", str(dl)]
    elif pair["registry"] == "npm":
        cmd = ["npm", "pack", "--silent", f"{pair['name']}@{version}", "--pack-destination", str(dl)]
    else:
        raise SystemExit(f"manifest: unknown registry {pair['registry']!r}")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"download failed: {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    for w in want:
        for p in dl.iterdir():
            if p.name.lower() == w.lower():
                return p
    raise SystemExit(f"download of {pair['name']} {version} produced none of {want} in {dl}")


def unpack(archive, dest):
    """Unpack a .tar.gz/.tgz into dest, dropping its single top-level directory."""
    if (dest / ".complete").exists():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=".unpack-", dir=dest.parent))
    with tarfile.open(archive) as tf:
        tf.extractall(tmp, filter="data")
    tops = list(tmp.iterdir())
    root = tops[0] if len(tops) == 1 and tops[0].is_dir() else tmp
    root.rename(dest)
    shutil.rmtree(tmp, ignore_errors=True)
    (dest / ".complete").write_text("")
    return dest


def source_files(root, include):
    out = {}
    for p in root.rglob("*"):
        if not p.is_file() or p.name == ".complete":
            continue
        rel = p.relative_to(root).as_posix()
        if any(fnmatch.fnmatch(rel, g) for g in include):
            out[rel] = p
    return out


# ---------------------------------------------------------------------------- hunks


def split_lines(text):
    return text.splitlines(keepends=True)


def nl(line):
    return line if line.endswith("\n") else line + "\n"


def body(line):
    return line[:-1] if line.endswith("\n") else line


def loose_key(line):
    return "".join(line.translate(QUOTE_MAP).split())


def indent_of(line):
    return line[: len(line) - len(line.lstrip(" \t"))]


class FileInfo:
    def __init__(self, project, lang, path, before, after):
        self.project, self.lang, self.path = project, lang, path
        self.before, self.after = before, after
        self.a, self.b = split_lines(before), split_lines(after)
        self.keys = [loose_key(x) for x in self.a]
        self.key_index = defaultdict(list)
        for i, k in enumerate(self.keys):
            self.key_index[k].append(i)
        self.stripped = set(x.strip() for x in self.a)
        self._idents = None

    def loose_count(self, lines):
        keys = [loose_key(x) for x in lines]
        if not keys:
            return 0
        anchor = next((j for j, k in enumerate(keys) if k), 0)
        n = 0
        for p in self.key_index.get(keys[anchor], []):
            s = p - anchor
            if s >= 0 and self.keys[s : s + len(keys)] == keys:
                n += 1
        return n

    def idents(self):
        if self._idents is None:
            kw = PY_KEYWORDS if self.lang == "python" else JS_KEYWORDS
            self._idents = sorted({m.group(0) for m in IDENT.finditer(self.before)
                                   if len(m.group(0)) >= 3 and m.group(0) not in kw})
        return self._idents

    def indent_unit(self):
        widths = [len(indent_of(x)) for x in self.a if x.strip() and "\t" not in indent_of(x)]
        widths = [w for w in widths if w]
        if not widths:
            return 4
        c = Counter(w for w in widths)
        for unit in (4, 2):
            if sum(v for w, v in c.items() if w % unit == 0) >= 0.9 * len(widths):
                return unit
        return 4


class Hunk:
    """One real hunk: lines [(op, text)] with op in ' ', '-', '+'; i1:i2 is its range in the old file."""

    def __init__(self, fi, index, i1, i2, j1, j2, lines):
        self.fi, self.index = fi, index
        self.i1, self.i2, self.j1, self.j2 = i1, i2, j1, j2
        self.lines = lines

    @property
    def id(self):
        return f"{self.fi.project}/{self.fi.path}#{self.index}"

    def old(self, lines=None):
        return [t for op, t in (lines or self.lines) if op in " -"]

    def new(self, lines=None):
        return [t for op, t in (lines or self.lines) if op in " +"]

    def applied_to_before(self):
        a = self.fi.a
        return "".join(a[: self.i1] + self.fi.b[self.j1 : self.j2] + a[self.i2 :])


def real_hunks(fi):
    sm = difflib.SequenceMatcher(None, fi.a, fi.b, autojunk=False)
    out = []
    for n, group in enumerate(sm.get_grouped_opcodes(CONTEXT)):
        lines = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [(" ", x) for x in fi.a[i1:i2]]
            else:
                lines += [("-", x) for x in fi.a[i1:i2]]
                lines += [("+", x) for x in fi.b[j1:j2]]
        out.append(Hunk(fi, n + 1, group[0][1], group[-1][2], group[0][3], group[-1][4], lines))
    return out


def hunk_problem(h):
    """Why a real hunk cannot make well-defined cases, or None."""
    fi = h.fi
    old, new = h.old(), h.new()
    if len(old) > MAX_HUNK_LINES or len(new) > MAX_HUNK_LINES:
        return "hunk_too_large"
    if not any(x.strip() for x in old):
        return "old_text_blank"
    if any(SR_MARKER.match(t) for _, t in h.lines):
        return "marker_like_line"
    touches_end = h.i2 == len(fi.a) or h.j2 == len(fi.b)
    if touches_end and (fi.before.endswith("\n") != fi.after.endswith("\n")):
        return "final_newline_changes"
    if touches_end and not fi.before.endswith("\n"):
        return "no_final_newline"
    if fi.before.count("".join(old)) != 1:
        return "ambiguous"
    return None


# ---------------------------------------------------------------------------- rendering


def enclosing_header(h):
    """The nearest def/class/function line above the hunk, less indented than it, unique in the file."""
    a = h.fi.a
    old_nonblank = [x for x in h.old() if x.strip()]
    depth = min(len(indent_of(x).expandtabs(4)) for x in old_nonblank)
    if depth == 0:
        return None
    for i in range(h.i1 - 1, -1, -1):
        line = a[i]
        if not line.strip():
            continue
        d = len(indent_of(line).expandtabs(4))
        if d < depth and DEF_LINE.match(line):
            s = line.strip()
            if sum(1 for x in a if x.strip() == s) == 1:
                return s
            return None
        if d == 0:
            return None
    return None


FENCE_LANG = {"python": "python", "javascript": "javascript", "typescript": "typescript"}


def render(fmt, path, hunks, lang, opts=None):
    """hunks: [(hunk, lines, header)] in file order. opts: unified line offset, JSON line prefixes."""
    opts = opts or {}
    if fmt == "patch":
        out = ["*** Begin Patch\n", f"*** Update File: {path}\n"]
        for h, lines, header in hunks:
            out.append(f"@@ {header}\n" if header else "@@\n")
            out += [op + nl(t) for op, t in lines]
        out.append("*** End Patch\n")
        return "".join(out)
    if fmt == "unified":
        out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
        delta = 0
        for h, lines, _ in hunks:
            olen = sum(1 for op, _ in lines if op in " -")
            nlen = sum(1 for op, _ in lines if op in " +")
            start = h.i1 + 1 + opts.get("line_offset", 0)
            out.append(f"@@ -{start},{olen} +{start + delta},{nlen} @@\n")
            out += [op + nl(t) for op, t in lines]
            delta += nlen - olen
        return "".join(out)
    if fmt == "search-replace":
        out = []
        for h, lines, _ in hunks:
            old = "".join(nl(t) for op, t in lines if op in " -")
            new = "".join(nl(t) for op, t in lines if op in " +")
            out.append(f"{path}\n```{FENCE_LANG.get(lang, '')}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n")
        return "\n".join(out)
    if fmt == "json":
        objs = []
        for h, lines, _ in hunks:
            old_lines = [t for op, t in lines if op in " -"]
            if opts.get("line_prefix"):
                old_lines = [f"{h.i1 + 1 + k:>6}\u2192{t}" for k, t in enumerate(old_lines)]
            objs.append({"path": path, "old_string": "".join(old_lines),
                         "new_string": "".join(t for op, t in lines if op in " +")})
        return json.dumps(objs[0] if len(objs) == 1 else objs, ensure_ascii=False) + "\n"
    raise ValueError(fmt)


# ---------------------------------------------------------------------------- perturbations
# Each returns (lines, note) or raises Skip(reason). `lines` is the hunk's [(op, text)] as the
# model would send it; context (' ') lines are shared by both sides, as a model copies them.


class Skip(Exception):
    pass


def with_ws(text, rng):
    return body(text) + rng.choice([" ", "  ", "\t", "    "]) + "\n"


def p_trailing_ws(h, rng):
    lines = list(h.lines)
    changed = []
    eligible = [k for k, (op, t) in enumerate(lines) if op in " -"]
    for k in eligible:
        op, t = lines[k]
        b = body(t)
        if b != b.rstrip():
            lines[k] = (op, b.rstrip() + "\n")
            changed.append(k)
        elif rng.random() < 0.4:
            lines[k] = (op, with_ws(t, rng))
            changed.append(k)
    if not changed:
        k = rng.choice([k for k in eligible if lines[k][1].strip()] or eligible)
        lines[k] = (lines[k][0], with_ws(lines[k][1], rng))
        changed.append(k)
    return lines, f"trailing whitespace changed on {len(changed)} context/removed line(s)"


def p_reindent(h, rng):
    nonblank = [t for _, t in h.lines if t.strip()]
    ind = [indent_of(t) for t in nonblank]
    common = os.path.commonprefix(ind)
    tabs = any("\t" in i for i in ind)
    if common and rng.random() < 0.5:
        lines = [(op, t[len(common):] if t.strip() else t) for op, t in h.lines]
        return lines, f"dedented by {common!r} to column 0"
    add = "\t" if tabs else "    "
    lines = [(op, add + t if t.strip() else t) for op, t in h.lines]
    return lines, f"indented by {add!r}"


def p_tabs_spaces(h, rng):
    ind = [indent_of(t) for _, t in h.lines if t.strip()]
    if not any(ind):
        raise Skip("no_indentation")
    if not any(indent_of(t) for op, t in h.lines if op in " -" and t.strip()):
        # the old text then matches exactly and the contract writes added lines as sent
        raise Skip("no_indented_old_line")
    if any("\t" in i for i in ind):
        if any(i.strip("\t") for i in ind):
            raise Skip("mixed_indentation")
        lines = [(op, "    " * len(indent_of(t)) + t.lstrip("\t") if t.strip() else t) for op, t in h.lines]
        return lines, "tabs written as 4 spaces"
    unit = h.fi.indent_unit()
    if any(len(i) % unit for i in ind):
        raise Skip("indent_not_multiple_of_unit")
    lines = [(op, "\t" * (len(indent_of(t)) // unit) + t.lstrip(" ") if t.strip() else t) for op, t in h.lines]
    return lines, f"{unit} spaces written as a tab"


def curl(text):
    out, dq = [], True
    for ch in text:
        if ch == '"':
            out.append("\u201c" if dq else "\u201d")
            dq = not dq
        elif ch == "'":
            out.append("\u2019")
        else:
            out.append(ch)
    return "".join(out)


def p_curly_quotes(h, rng):
    lines = list(h.lines)
    cand = [k for k, (op, t) in enumerate(lines) if op == " " and ('"' in t or "'" in t)]
    if not cand:
        raise Skip("no_quote_in_context")
    pick = [k for k in cand if rng.random() < 0.6] or [rng.choice(cand)]
    for k in pick:
        lines[k] = (" ", curl(lines[k][1]))
    return lines, f"curly quotes in {len(pick)} context line(s)"


def p_edge_blank(h, rng):
    a, lines = h.fi.a, list(h.lines)
    options = []
    if lines[0][0] == " " and not lines[0][1].strip() and len(lines) > 2:
        options.append("drop_start")
    if lines[-1][0] == " " and not lines[-1][1].strip() and len(lines) > 2:
        options.append("drop_end")
    if h.i1 == 0 or a[h.i1 - 1].strip():
        if lines[0][1].strip():
            options.append("extra_start")
    if h.i2 == len(a) or a[h.i2].strip():
        if lines[-1][1].strip():
            options.append("extra_end")
    if not options:
        raise Skip("no_edge_to_change")
    v = rng.choice(options)
    if v == "drop_start":
        lines = lines[1:]
    elif v == "drop_end":
        lines = lines[:-1]
    elif v == "extra_start":
        lines = [(" ", "\n")] + lines
    else:
        lines = lines + [(" ", "\n")]
    if v.startswith("drop"):
        old = "".join(t for op, t in lines if op in " -")
        if not old.strip() or h.fi.before.count(old) != 1:
            raise Skip("ambiguous_after_drop")
    return lines, v.replace("_", " ") + " blank line"


def close_identifier(fi, orig, rng):
    pool = [x for x in difflib.get_close_matches(orig, fi.idents(), n=8, cutoff=0.6) if x != orig]
    if not pool:
        pool = [x for x in fi.idents() if x != orig and abs(len(x) - len(orig)) <= 3][:200]
    if not pool:
        raise Skip("no_other_identifier")
    return rng.choice(pool)


def token_sites(h, op_wanted, regex, kw):
    sites = []
    for k, (op, t) in enumerate(h.lines):
        if op != op_wanted:
            continue
        for m in regex.finditer(t):
            if kw is not None and m.group(0) in kw:
                continue
            sites.append((k, m))
    return sites


def removed_line_error(h, rng, kind):
    """A content error in one line the hunk removes."""
    fi = h.fi
    kw = PY_KEYWORDS if fi.lang == "python" else JS_KEYWORDS
    if not any(op == "-" for op, _ in h.lines):
        raise Skip("no_removed_line")
    if kind == "digit":
        sites = token_sites(h, "-", re.compile(r"\d"), None)
    elif kind == "identifier":
        sites = [(k, m) for k, m in token_sites(h, "-", IDENT, kw) if len(m.group(0)) >= 3]
    else:
        sites = token_sites(h, "-", STRING, None)
    if not sites:
        raise Skip(f"no_{kind}_in_removed_line")
    rng.shuffle(sites)
    for k, m in sites[:6]:
        t = h.lines[k][1]
        if kind == "digit":
            d = m.group(0)
            rep = rng.choice([x for x in "0123456789" if x != d])
        elif kind == "identifier":
            rep = close_identifier(fi, m.group(0), rng)
        else:
            rep = mutate_string(m.group(0), rng)
            if rep is None:
                continue
        new_t = t[: m.start()] + rep + t[m.end():]
        if loose_key(new_t) == loose_key(t):
            continue
        if new_t.strip() in fi.stripped:
            continue  # the perturbed line exists verbatim elsewhere: not well-defined
        lines = list(h.lines)
        lines[k] = ("-", new_t)
        old = [x for op, x in lines if op in " -"]
        if loose_key(new_t) in {loose_key(x) for op, x in h.lines if op == "+"}:
            continue  # the wrong line now equals a line the hunk adds: it reads as kept, not as a content error
        if fi.loose_count(old):
            continue
        line_no = h.i1 + 1 + sum(1 for op, _ in h.lines[:k] if op in " -")
        return lines, f"removed line {line_no}: {m.group(0)!r} -> {rep!r}"
    raise Skip(f"{kind}_change_not_well_defined")


def mutate_string(lit, rng):
    q, s = lit[0], lit[1:-1]
    opts = []
    for i in range(1, len(s)):
        if s[i - 1].isalpha() and s[i].isdigit():
            opts.append(s[:i] + "-" + s[i:])
    if "_" in s:
        opts.append(s.replace("_", "-", 1))
    if "-" in s:
        opts.append(s.replace("-", "_", 1))
    letters = [i for i, c in enumerate(s) if c.isalpha()]
    if letters:
        i = rng.choice(letters)
        opts.append(s[:i] + s[i].swapcase() + s[i + 1:])
    alnum = [i for i, c in enumerate(s) if c.isalnum()]
    if len(s) >= 3 and alnum:
        i = rng.choice(alnum)
        opts.append(s[:i] + s[i + 1:])
    opts = [o for o in opts if o != s and q not in o]
    if not opts:
        return None
    return q + rng.choice(opts) + q


def p_context_drift(h, rng):
    fi = h.fi
    kw = PY_KEYWORDS if fi.lang == "python" else JS_KEYWORDS
    sites = [(k, m) for k, m in token_sites(h, " ", IDENT, kw) if len(m.group(0)) >= 3]
    if not sites:
        raise Skip("no_identifier_in_context")
    rng.shuffle(sites)
    for k, m in sites[:6]:
        t = h.lines[k][1]
        rep = close_identifier(fi, m.group(0), rng)
        new_t = t[: m.start()] + rep + t[m.end():]
        if loose_key(new_t) == loose_key(t):
            continue
        if loose_key(new_t) in {loose_key(x) for j, (op, x) in enumerate(h.lines) if j != k}:
            continue  # the drifted line equals another line of the hunk: the edit's own alignment is ambiguous
        lines = list(h.lines)
        lines[k] = (" ", new_t)
        if fi.loose_count([x for op, x in lines if op in " -"]):
            continue
        line_no = h.i1 + 1 + sum(1 for op, _ in h.lines[:k] if op in " -")
        return lines, f"context line {line_no}: {m.group(0)!r} -> {rep!r}"
    raise Skip("drift_not_well_defined")


PERTURB = {
    "trailing_ws": p_trailing_ws,
    "reindent": p_reindent,
    "tabs_spaces": p_tabs_spaces,
    "curly_quotes": p_curly_quotes,
    "edge_blank": p_edge_blank,
    "context_drift": p_context_drift,
    "wrong_digit": lambda h, rng: removed_line_error(h, rng, "digit"),
    "wrong_identifier": lambda h, rng: removed_line_error(h, rng, "identifier"),
    "wrong_string": lambda h, rng: removed_line_error(h, rng, "string"),
}
NEEDS_LOOSE_UNIQUE = {"trailing_ws", "reindent", "tabs_spaces", "curly_quotes", "edge_blank", "crlf_file",
                      "line_number_prefix", "context_drift"}


# ---------------------------------------------------------------------------- case generation


class Writer:
    def __init__(self, out):
        self.out = out
        (out / "blobs").mkdir(parents=True, exist_ok=True)
        self.cases = open(out / "cases.jsonl.tmp", "w", encoding="utf-8")
        self.seen = set()
        self.n = 0
        self.by_cat_fmt = Counter()
        self.skipped = defaultdict(Counter)

    def blob(self, text):
        b = text.encode("utf-8")
        h = sha(b)
        if h not in self.seen:
            p = self.out / "blobs" / h
            if not p.exists():
                p.write_bytes(b)
            self.seen.add(h)
        return h

    def case(self, h_or_fi, category, fmt, edit, before, expect, after=None, note="", crlf=False, variant=""):
        fi = h_or_fi.fi if isinstance(h_or_fi, Hunk) else h_or_fi
        base = h_or_fi.id if isinstance(h_or_fi, Hunk) else f"{fi.project}/{fi.path}#file"
        rec = {
            "id": f"{base}:{category}:{fmt}",
            "project": fi.project, "lang": fi.lang, "path": fi.path,
            "category": category, "format": fmt, "expect": expect,
            "edit": edit, "before": self.blob(before),
            "after": self.blob(after) if after is not None else None,
            "crlf": crlf, "note": note,
        }
        self.cases.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self.n += 1
        self.by_cat_fmt[(category, fmt)] += 1

    def skip(self, category, reason, n=1):
        self.skipped[category][reason] += n

    def close(self):
        self.cases.close()
        os.replace(self.out / "cases.jsonl.tmp", self.out / "cases.jsonl")


def hunk_cases(w, h):
    fi = h.fi
    header = enclosing_header(h)
    expected = h.applied_to_before()
    old_text = "".join(h.old())
    loose_unique = fi.loose_count(h.old()) == 1

    def emit(category, lines, note="", opts=None, before=None, after=expected, crlf=False, formats=None):
        expect = CATEGORIES[category][0]
        for fmt in formats or CATEGORIES[category][1]:
            edit = render(fmt, fi.path, [(h, lines, header)], fi.lang, opts)
            w.case(h, category, fmt, edit, fi.before if before is None else before, expect,
                   after if expect == "applied" else None, note, crlf)

    emit("clean", h.lines)

    for cat in CATEGORIES:
        if cat in ("clean", "clean_file"):
            continue
        nformats = len(CATEGORIES[cat][1])
        if cat in NEEDS_LOOSE_UNIQUE and not loose_unique:
            w.skip(cat, "ambiguous_ignoring_whitespace_and_quotes", nformats)
            continue
        rng = random.Random(stable_seed(h.id, cat))
        try:
            if cat in PERTURB:
                lines, note = PERTURB[cat](h, rng)
                if lines == h.lines:
                    raise Skip("perturbation_changes_nothing")
                emit(cat, lines, note)
            elif cat == "crlf_file":
                if "\r" in fi.before:
                    raise Skip("file_has_cr")
                emit(cat, h.lines, "file converted to CRLF, edit in LF", crlf=True)
            elif cat == "stale_line_numbers":
                off = rng.randint(5, 50) * rng.choice([-1, 1])
                if h.i1 + 1 + off < 1:
                    off = -off
                emit(cat, h.lines, f"@@ line numbers off by {off:+d}", opts={"line_offset": off})
            elif cat == "line_number_prefix":
                emit(cat, h.lines, "read-view prefixes on every old_string line", opts={"line_prefix": True})
            elif cat == "resent":
                if expected.count(old_text) != 0:
                    raise Skip("old_text_still_in_result")
                if expected.count("".join(h.new())) != 1:
                    raise Skip("new_text_not_unique_in_result")
                emit(cat, h.lines, "clean edit applied to its own result", before=expected)
            elif cat == "stale_already_applied":
                if not any(op == "-" for op, _ in h.lines):
                    raise Skip("no_removed_line")
                if len(fi.a) - h.i2 < 5:
                    raise Skip("hunk_near_end_of_file")
                # the removed lines are gone (someone else deleted them), the new text stands at the end
                rest = fi.a[: h.i1] + [t for op, t in h.lines if op == " "] + fi.a[h.i2 :]
                text = "".join(rest)
                if not text.endswith("\n"):
                    raise Skip("no_final_newline")
                new_text = "".join(h.new())
                stale = text + "\n" + new_text
                if stale.count(old_text) or stale.count(new_text) != 1:
                    raise Skip("not_well_defined")
                probe = FileInfo(fi.project, fi.lang, fi.path, stale, "")
                if probe.loose_count(h.old()):
                    raise Skip("old_text_loosely_present")
                emit(cat, h.lines, "removed lines deleted from the file; the new text appended at its end",
                     before=stale)
        except Skip as e:
            w.skip(cat, str(e), nformats)


def file_case(w, fi, hunks):
    """All hunks of the file in one edit; expected: exactly the new release's file."""
    cat = "clean_file"
    if len(hunks) < 2:
        return  # one hunk: the same as its clean case
    hs = [(h, h.lines, enclosing_header(h)) for h in hunks]
    # each old text must be unique in the file as it is when its turn comes (sequential formats)
    cur = fi.before
    for h in hunks:
        old, new = "".join(h.old()), "".join(h.new())
        if cur.count(old) != 1:
            w.skip(cat, "ambiguous_in_sequence", 4)
            return
        cur = cur.replace(old, new, 1)
    if cur != fi.after:
        w.skip(cat, "hunks_do_not_compose", 4)
        return
    for fmt in FORMATS:
        w.case(fi, cat, fmt, render(fmt, fi.path, hs, fi.lang), fi.before, "applied", fi.after,
               f"{len(hunks)} hunks")


def load_manifest():
    with open(MANIFEST, "rb") as f:
        return tomllib.load(f)["pair"]


def cases_key():
    h = hashlib.sha256()
    h.update(MANIFEST.read_bytes())
    h.update(pathlib.Path(__file__).read_bytes())
    return h.hexdigest()[:16]


def generate(cache, force=False, quiet=False):
    """Make sure the cases for the current manifest and generator exist; return their directory."""
    cache = pathlib.Path(cache)
    out = cache / "cases" / cases_key()
    if (out / "stats.json").exists() and not force:
        return out
    t0 = time.time()
    pairs = load_manifest()
    trees = {}
    for pair in pairs:
        for v in (pair["old"], pair["new"]):
            arch = download(pair, v, cache, quiet)
            dest = cache / "src" / pair["registry"] / f"{pair['name'].replace('/', '+')}-{v}"
            dest.parent.mkdir(parents=True, exist_ok=True)
            trees[(pair["name"], v)] = unpack(arch, dest)
    t_dl = time.time() - t0
    if out.exists():
        shutil.rmtree(out)
    w = Writer(out)
    projects = {}
    for pair in pairs:
        old_root, new_root = trees[(pair["name"], pair["old"])], trees[(pair["name"], pair["new"])]
        olds, news = source_files(old_root, pair["include"]), source_files(new_root, pair["include"])
        st = Counter()
        for rel in sorted(set(olds) & set(news)):
            ob, nb = olds[rel].read_bytes(), news[rel].read_bytes()
            if ob == nb:
                continue
            st["files_changed"] += 1
            try:
                before, after = ob.decode("utf-8"), nb.decode("utf-8")
            except UnicodeDecodeError:
                st["files_skipped_not_utf8"] += 1
                continue
            if "\r" in before or "\r" in after:
                st["files_skipped_cr"] += 1
                continue
            if len(ob) > MAX_FILE_BYTES or max(map(len, before.splitlines() or [""])) > MAX_LINE_CHARS:
                st["files_skipped_generated_or_large"] += 1
                continue
            fi = FileInfo(pair["name"], pair["lang"], rel, before, after)
            hunks = real_hunks(fi)
            good = []
            for h in hunks:
                st["hunks"] += 1
                why = hunk_problem(h)
                if why:
                    st[f"hunks_skipped_{why}"] += 1
                    w.skip("all", why, 1)
                    continue
                st["hunks_used"] += 1
                good.append(h)
                hunk_cases(w, h)
            if len(good) == len(hunks):
                file_case(w, fi, hunks)
            elif len(hunks) > 1:
                w.skip("clean_file", "a_hunk_of_the_file_was_skipped", 4)
            st["files_used"] += 1
        projects[f"{pair['name']} {pair['old']} -> {pair['new']} ({pair['lang']})"] = dict(st)
    w.close()
    stats = {
        "projects": projects,
        "hunks_used": sum(p.get("hunks_used", 0) for p in projects.values()),
        "languages": sorted({p["lang"] for p in pairs}),
        "cases": w.n,
        "cases_by_category_format": {f"{c}|{f}": n for (c, f), n in sorted(w.by_cat_fmt.items())},
        "skipped": {c: dict(r) for c, r in w.skipped.items()},
        "seconds_download": round(t_dl, 1),
        "seconds_generate": round(time.time() - t0 - t_dl, 1),
    }
    (out / "stats.json").write_text(json.dumps(stats, indent=1))
    # keep only this generation's cases
    for old in (cache / "cases").iterdir():
        if old != out and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    return out


def print_stats(out):
    stats = json.loads((out / "stats.json").read_text())
    print(f"cases: {out}")
    for name, st in stats["projects"].items():
        print(f"  {name}: {st.get('files_used', 0)} files, {st.get('hunks_used', 0)} of {st.get('hunks', 0)} hunks used")
    print(f"  {stats['hunks_used']} real hunks, {len(stats['projects'])} projects, languages: {', '.join(stats['languages'])}")
    print(f"  {stats['cases']} cases (download {stats['seconds_download']} s, generation {stats['seconds_generate']} s)")
    per_cat = Counter()
    for k, n in stats["cases_by_category_format"].items():
        per_cat[k.split("|")[0]] += n
    for cat in CATEGORIES:
        sk = stats["skipped"].get(cat, {})
        sk_s = ", ".join(f"{r} {n}" for r, n in sorted(sk.items(), key=lambda x: -x[1]))
        print(f"    {cat:22} {per_cat[cat]:6} cases" + (f"; skipped: {sk_s}" if sk else ""))
    if "all" in stats["skipped"]:
        print("    hunks skipped for every category: " + ", ".join(f"{r} {n}" for r, n in stats["skipped"]["all"].items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=str(default_cache()))
    ap.add_argument("--force", action="store_true", help="regenerate the cases even if they exist")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()
    out = generate(args.cache, args.force, args.quiet)
    if not args.quiet:
        print_stats(out)


if __name__ == "__main__":
    main()

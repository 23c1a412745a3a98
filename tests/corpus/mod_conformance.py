#!/usr/bin/env python3
"""Conformance of `lancet mod` with ast-grep: the same rules on real projects, byte-identical trees.

Usage: tests/corpus/mod_conformance.py LANCET [--ast-grep PATH] [-j N] [--cache DIR]
                                      [--only SUBSTR] [--keep] [--oracle-only] [-q]

Every rule file in tests/corpus/mod_rules/*.yml (ast-grep's YAML rule format, several rules a
file `---`-separated) and every pattern case in tests/corpus/mod_rules/patterns.toml is run on
real projects fetched from the package registries at run time (never committed; pinned below in
PROJECTS): PyPI source distributions (`pip download --no-binary :all:`), npm tarballs (`npm
pack`), crates.io crates (`cargo fetch` of a throwaway package, as tests/corpus/rename_oracle.py
does) and, for Go, a Debian package's /usr/share/gocode tree (`apt-get download PKG=VERSION`,
`dpkg-deb -x`). They are unpacked once into the cache (default
$XDG_CACHE_HOME/lancet-corpus/mod, else ~/.cache/lancet-corpus/mod), each as a git repository
with one commit (the template a case copies).

One case = a rule file (or pattern case) x a project whose language family it targets. The
project is copied twice (its .git with it, so both tools see the same ignore rules), then
  ast-grep scan --rule FILE --update-all .      (pattern: ast-grep run -p P -r R -l L --update-all .)
runs in one copy and
  LANCET mod --rule FILE -C DIR --json          (pattern: LANCET mod -p P -r R --lang L -C DIR --json)
in the other, and the two trees (less .git) are compared byte for byte. Verdicts:
  identical   the trees are equal (sites from lancet's report `mod.sites`; files changed counted
              on both sides);
  refused     lancet exited 1 with a syntax refusal in its report (`syntax.errors`, or a file
              whose status says so) and wrote nothing; every file it names is one ast-grep
              changed, whose ast-grep output does not parse (Python's compile() for .py, else
              `lancet check`); and the same lancet run with --no-syntax-check on a third copy
              gives ast-grep's tree exactly. The reason is printed. A refusal that fails any of
              these checks is a divergence;
  divergent   anything else: the first differing file and a short diff are printed. A divergence
              listed in tests/corpus/mod_divergences.toml (case, project and, optionally, path,
              with a reason) is reported as known and does not fail the run.
ast-grep (ast-grep-cli 0.51.1) is taken from --ast-grep, else from PATH when it is that version,
else installed with pip into a venv in the cache.

Exit 1 on any unexplained divergence, on a case that could not run, or when fewer than 20 rules
matched something (ast-grep's own match counts, `scan --json=stream`; no minimum with --only). --oracle-only runs
ast-grep alone (projects, rules, match counts) for when the lancet binary has no `mod` yet.
"""

import argparse
import concurrent.futures
import difflib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
RULES_DIR = HERE / "mod_rules"
PATTERNS = RULES_DIR / "patterns.toml"
DIVERGENCES = HERE / "mod_divergences.toml"

AST_GREP_VERSION = "0.51.1"
MIN_MATCHED_RULES = 20

# key -> how to fetch it. `take`: the directory of the unpacked archive that is the project.
PROJECTS = {
    "httpx": {"registry": "pypi", "name": "httpx", "version": "0.25.2", "family": "python"},
    "rich": {"registry": "pypi", "name": "rich", "version": "13.7.0", "family": "python"},
    "docusaurus-theme-classic": {"registry": "npm", "name": "@docusaurus/theme-classic",
                                 "version": "3.5.2", "family": "js"},
    "react-query": {"registry": "npm", "name": "@tanstack/react-query", "version": "5.59.0",
                    "family": "js"},
    "clap_builder": {"registry": "crates", "name": "clap_builder", "version": "4.6.0", "family": "rust"},
    "memchr": {"registry": "crates", "name": "memchr", "version": "2.8.0", "family": "rust"},
    "strsim": {"registry": "crates", "name": "strsim", "version": "0.11.1", "family": "rust"},
    "cobra": {"registry": "debian", "name": "golang-github-spf13-cobra-dev", "version": "1.6.1-1",
              "family": "go", "take": "usr/share/gocode/src/github.com/spf13/cobra"},
}

FAMILY = {
    "python": "python", "py": "python",
    "javascript": "js", "js": "js", "jsx": "js", "typescript": "js", "ts": "js", "tsx": "js",
    "rust": "rust", "rs": "rust",
    "go": "go", "golang": "go",
}

GIT_ENV = {"GIT_AUTHOR_NAME": "corpus", "GIT_AUTHOR_EMAIL": "corpus@example.invalid",
           "GIT_COMMITTER_NAME": "corpus", "GIT_COMMITTER_EMAIL": "corpus@example.invalid",
           "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}

QUIET = False
_print_lock = threading.Lock()


def log(*a):
    if not QUIET:
        with _print_lock:
            print(*a, file=sys.stderr, flush=True)


class SetupError(Exception):
    pass


def run_setup(cmd, what, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise SetupError(f"{what} failed ({' '.join(map(str, cmd))}):\n{proc.stdout}{proc.stderr}")
    return proc


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "lancet-corpus" / "mod"


# ---------------------------------------------------------------------------- ast-grep


def tool_version(path):
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    m = re.search(r"(\d+\.\d+\.\d+)", out.stdout + out.stderr)
    return m.group(1) if m else None


def find_ast_grep(cache, given):
    if given:
        v = tool_version(given)
        if v is None:
            raise SetupError(f"--ast-grep {given}: does not run")
        if v != AST_GREP_VERSION:
            log(f"warning: {given} is ast-grep {v}, the corpus is pinned to {AST_GREP_VERSION}")
        return pathlib.Path(given)
    on_path = shutil.which("ast-grep")
    if on_path and tool_version(on_path) == AST_GREP_VERSION:
        return pathlib.Path(on_path)
    venv = cache / "venv"
    exe = venv / "bin" / "ast-grep"
    if exe.exists() and tool_version(exe) == AST_GREP_VERSION:
        return exe
    log(f"installing ast-grep-cli=={AST_GREP_VERSION} into {venv}")
    if not (venv / "bin" / "python").exists():
        run_setup([sys.executable, "-m", "venv", str(venv)], "python -m venv")
    run_setup([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
               f"ast-grep-cli=={AST_GREP_VERSION}"], "pip install ast-grep-cli")
    if tool_version(exe) != AST_GREP_VERSION:
        raise SetupError(f"{exe} is not ast-grep {AST_GREP_VERSION} after pip install")
    return exe


# ---------------------------------------------------------------------------- projects


def fetch_pypi(dl, proj):
    name, version = proj["name"], proj["version"]
    stems = {f"{name}-{version}.tar.gz".lower(), f"{name.replace('-', '_')}-{version}.tar.gz".lower()}

    def found():
        return next((p for p in dl.iterdir() if p.name.lower() in stems), None)

    if found() is None:
        log(f"  pip download {name}=={version}")
        run_setup([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                   f"{name}=={version}", "-d", str(dl)], f"pip download of {name} {version}", timeout=600)
    archive = found()
    if archive is None:
        raise SetupError(f"pip download of {name} {version} produced none of {sorted(stems)} in {dl}")
    return archive


def fetch_npm(dl, proj):
    name, version = proj["name"], proj["version"]
    archive = dl / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not archive.exists():
        log(f"  npm pack {name}@{version}")
        run_setup(["npm", "pack", "--silent", "--pack-destination", str(dl), f"{name}@{version}"],
                  f"npm pack of {name}@{version}", timeout=600)
    if not archive.exists():
        raise SetupError(f"npm pack of {name}@{version} produced no {archive}")
    return archive


def fetch_crate(dl, proj):
    """The .crate of exactly that version, checked against the index (rename_oracle.py's fetch,
    shared: `cargo fetch` of a throwaway package, the archive copied out of cargo's cache)."""
    import rename_oracle
    try:
        return rename_oracle.fetch_crate(dl, proj["name"], proj["version"])
    except rename_oracle.SetupError as e:
        raise SetupError(str(e)) from e


def fetch_deb(dl, proj):
    """`apt-get download NAME=VERSION` (Debian's archive; the package lists must be current:
    one `apt-get update` is run when the first try cannot find the version)."""
    name, version = proj["name"], proj["version"]

    def found():
        return next((p for p in dl.glob(f"{name}_*.deb")
                     if p.name.startswith(f"{name}_{version.replace(':', '%3a')}_")), None)

    if found() is None:
        if not shutil.which("apt-get"):
            raise SetupError(f"{name} {version}: no apt-get on this machine")
        log(f"  apt-get download {name}={version}")
        cmd = ["apt-get", "download", "-q", f"{name}={version}"]
        proc = subprocess.run(cmd, cwd=dl, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0 and os.geteuid() == 0:
            log("  apt-get update (the package lists lack it)")
            subprocess.run(["apt-get", "update", "-q"], capture_output=True, text=True, timeout=600)
            proc = subprocess.run(cmd, cwd=dl, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise SetupError(f"apt-get download {name}={version} failed:\n{proc.stdout}{proc.stderr}")
    archive = found()
    if archive is None:
        raise SetupError(f"apt-get download {name}={version} produced no {name}_{version}_*.deb in {dl}")
    return archive


FETCH = {"pypi": fetch_pypi, "npm": fetch_npm, "crates": fetch_crate, "debian": fetch_deb}


def git(args, cwd):
    env = dict(os.environ, **GIT_ENV)
    return run_setup(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
                      "-c", "core.autocrlf=false", *args], f"git {args[0]}", cwd=cwd, env=env)


def lay_project(cache, key):
    """CACHE/projects/<key>-<version>/: the unpacked project as a git repository with one commit."""
    proj = PROJECTS[key]
    root = cache / "projects" / f"{key}-{proj['version']}"
    marker = root.parent / f".{root.name}.complete"
    if marker.exists() and root.is_dir():
        return root
    dl = cache / "dl" / proj["registry"]
    dl.mkdir(parents=True, exist_ok=True)
    archive = FETCH[proj["registry"]](dl, proj)
    if root.exists():
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=".unpack-", dir=root.parent))
    try:
        if proj["registry"] == "debian":
            run_setup(["dpkg-deb", "-x", str(archive), str(tmp)], f"dpkg-deb -x {archive.name}")
            top = tmp / proj["take"]
        else:
            with tarfile.open(archive) as tf:
                tf.extractall(tmp, filter="data")
            tops = list(tmp.iterdir())
            top = tops[0] if len(tops) == 1 and tops[0].is_dir() else tmp
            if proj.get("take"):
                top = top / proj["take"]
        if not top.is_dir():
            raise SetupError(f"{key}: no {proj.get('take') or 'top directory'} in {archive.name}")
        top.rename(root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    git(["init", "-q"], root)
    git(["add", "-A"], root)
    git(["commit", "-q", "-m", f"{proj['name']} {proj['version']}"], root)
    marker.write_text("")
    return root


# ---------------------------------------------------------------------------- cases


def rule_docs(path):
    """[(id, language)] of a rule file's `---`-separated documents (top-level keys only)."""
    out = []
    for doc in re.split(r"^---[ \t]*$", path.read_text(), flags=re.M):
        rid = re.search(r"^id:\s*['\"]?([^'\"\s#]+)", doc, re.M)
        lang = re.search(r"^language:\s*['\"]?([^'\"\s#]+)", doc, re.M)
        if rid:
            out.append((rid.group(1), lang.group(1) if lang else None))
    return out


def load_cases():
    cases = []
    for f in sorted(RULES_DIR.glob("*.yml")) + sorted(RULES_DIR.glob("*.yaml")):
        docs = rule_docs(f)
        fams = {FAMILY.get((lang or "").lower()) for _, lang in docs}
        if not docs or None in fams or len(fams) != 1:
            raise SetupError(f"{f.name}: every rule needs an id and a language of one family "
                             f"({', '.join(sorted(set(FAMILY)))}); found {docs}")
        fam = fams.pop()
        for key, proj in PROJECTS.items():
            if proj["family"] == fam:
                cases.append({"kind": "rule", "name": f.stem, "file": f, "rules": [r for r, _ in docs],
                              "project": key})
    for c in tomllib.loads(PATTERNS.read_text()).get("case", []):
        if c.get("project") not in PROJECTS:
            raise SetupError(f"patterns.toml: case {c.get('id')}: unknown project {c.get('project')!r}")
        cases.append({"kind": "pattern", "name": c["id"], "pattern": c["pattern"], "rewrite": c["rewrite"],
                      "lang": c["lang"], "rules": [c["id"]], "project": c["project"]})
    return cases


def load_divergences():
    if not DIVERGENCES.exists():
        return []
    out = tomllib.loads(DIVERGENCES.read_text()).get("divergence", [])
    for d in out:
        if not d.get("case") or not d.get("project") or not d.get("reason"):
            raise SetupError(f"{DIVERGENCES.name}: every [[divergence]] needs case, project and reason: {d}")
    return out


def tree(root):
    """{relative path: bytes or ('link', target)} of everything under root but .git."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if dirpath == str(root):
            dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            out[rel] = ("link", os.readlink(p)) if os.path.islink(p) else pathlib.Path(p).read_bytes()
    return out


def changed(before, after):
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def short_diff(path, a, b, limit=24):
    def text(x):
        if x is None:
            return ["(absent)\n"]
        if isinstance(x, tuple):
            return [f"(symlink to {x[1]})\n"]
        return x.decode("utf-8", "replace").splitlines(keepends=True)

    lines = list(difflib.unified_diff(text(a), text(b), f"ast-grep/{path}", f"lancet/{path}", n=2))
    more = len(lines) - limit
    lines = [l if l.endswith("\n") else l + "\n" for l in lines[:limit]]
    if more > 0:
        lines.append(f"... {more} more diff lines\n")
    return "".join(lines)


def ag_cmds(ag, case):
    if case["kind"] == "rule":
        base = [str(ag), "scan", "--rule", str(case["file"])]
        return base + ["--json=stream", "."], base + ["--update-all", "."]
    base = [str(ag), "run", "-p", case["pattern"], "-r", case["rewrite"], "-l", case["lang"]]
    return base + ["--json=stream", "."], base + ["--update-all", "."]


def lancet_cmd(lancet, case, root):
    if case["kind"] == "rule":
        return [str(lancet), "mod", "--rule", str(case["file"]), "-C", str(root), "--json"]
    return [str(lancet), "mod", "-p", case["pattern"], "-r", case["rewrite"], "--lang", case["lang"],
            "-C", str(root), "--json"]


def run_case(case, ag, lancet, templates, base_trees, keep_dir, work):
    key = case["project"]
    res = {"case": case, "verdict": None, "detail": "", "ag_matches": {}, "ag_applied": None,
           "ag_files": 0, "lancet_files": 0, "lancet_sites": None, "lancet_rule_sites": {}}
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"mod-{case['name']}-{key}-", dir=work))
    try:
        ag_dir, lc_dir = tmp / "ast-grep", tmp / "lancet"
        shutil.copytree(templates[key], ag_dir, symlinks=True)
        find, update = ag_cmds(ag, case)
        proc = subprocess.run(find, cwd=ag_dir, capture_output=True, text=True, timeout=600)
        if proc.returncode not in (0, 1) or (proc.returncode == 1 and proc.stderr.strip()):
            res["verdict"], res["detail"] = "error", f"ast-grep failed ({' '.join(find)}):\n{proc.stderr}"
            return res
        for line in proc.stdout.splitlines():
            if line.strip():
                m = json.loads(line)
                rid = m.get("ruleId") or case["name"]
                res["ag_matches"][rid] = res["ag_matches"].get(rid, 0) + 1
        proc = subprocess.run(update, cwd=ag_dir, capture_output=True, text=True, timeout=600)
        if proc.returncode not in (0, 1) or (proc.returncode == 1 and proc.stderr.strip()):
            res["verdict"], res["detail"] = "error", f"ast-grep failed ({' '.join(update)}):\n{proc.stderr}"
            return res
        m = re.search(r"Applied (\d+) changes?", proc.stdout + proc.stderr)
        res["ag_applied"] = int(m.group(1)) if m else 0
        ag_tree = tree(ag_dir)
        base = base_trees[key]
        ag_changed = changed(base, ag_tree)
        res["ag_files"] = len(ag_changed)
        if lancet is None:
            res["verdict"] = "oracle-only"
            return res

        shutil.copytree(templates[key], lc_dir, symlinks=True)
        cmd = lancet_cmd(lancet, case, lc_dir)
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        try:
            report = json.loads(proc.stdout) if proc.stdout.strip() else {}
        except json.JSONDecodeError:
            report = {}
        mod = report.get("mod") or {}
        if isinstance(mod.get("sites"), list):
            res["lancet_sites"] = len(mod["sites"])
        elif isinstance(mod.get("sites"), int):
            res["lancet_sites"] = mod["sites"]
        for r in mod.get("rules") or []:
            if isinstance(r, dict) and r.get("id") is not None:
                res["lancet_rule_sites"][r["id"]] = res["lancet_rule_sites"].get(r["id"], 0) + (r.get("sites") or 0)
        lc_tree = tree(lc_dir)
        lc_changed = changed(base, lc_tree)
        res["lancet_files"] = len(lc_changed)
        diffs = changed(ag_tree, lc_tree)
        res["lancet_rc"] = proc.returncode
        if not diffs and proc.returncode == 0:
            res["verdict"] = "identical"
            return res
        if not diffs:
            # The same trees but lancet said it failed: only fine when nothing was to change.
            if not ag_changed and proc.returncode == 1 and gate_reasons(report):
                res["verdict"] = "identical"
                return res
            res["verdict"] = "divergent"
            res["detail"] = (f"trees identical but lancet exited {proc.returncode}: "
                             f"{(report.get('message') or proc.stderr or proc.stdout)[:800]}")
            return res
        reasons = gate_reasons(report)
        reasons_note = ""
        if proc.returncode == 1 and reasons and not lc_changed:
            named = sorted({r[0] for r in reasons if r[0]})
            stray = [p for p in named if p not in ag_changed]
            why = "; ".join(f"{p}: {w}" for p, w in reasons[:6])
            if len(reasons) > 6:
                why += f"; and {len(reasons) - 6} more syntax error(s)"
            if stray:
                reasons_note = f"(lancet's gate named {stray}, files ast-grep did not change: {why}) "
            else:
                # The refusal is explained only if lancet computed ast-grep's very text (the same
                # run without the gate gives ast-grep's tree) and that text does not parse.
                unchecked = tmp / "lancet-unchecked"
                shutil.copytree(templates[key], unchecked, symlinks=True)
                cmd2 = lancet_cmd(lancet, case, unchecked) + ["--no-syntax-check"]
                proc2 = subprocess.run(cmd2, capture_output=True, text=True, timeout=600)
                un_diffs = changed(ag_tree, tree(unchecked))
                broken = unparsable(lancet, ag_dir, named)
                if proc2.returncode == 0 and not un_diffs and broken == named:
                    res["verdict"] = "refused"
                    res["detail"] = (why + f"\n(with --no-syntax-check lancet writes ast-grep's tree exactly; "
                                     f"ast-grep's output of {len(named)} named file(s) does not parse)")
                    return res
                if proc2.returncode != 0 or un_diffs:
                    first = un_diffs[0] if un_diffs else None
                    reasons_note = (f"(lancet refused: {why}; but with --no-syntax-check it exits "
                                    f"{proc2.returncode} and {len(un_diffs)} file(s) differ from ast-grep's"
                                    + (f", first {first}:\n" + short_diff(first, ag_tree.get(first),
                                                                         tree(unchecked).get(first))
                                       if first else ")\n"))
                else:
                    reasons_note = (f"(lancet refused: {why}; but ast-grep's output of "
                                    f"{sorted(set(named) - set(broken))} parses) ")
        first = diffs[0]
        res["verdict"] = "divergent"
        res["first_path"] = first
        res["detail"] = (f"{reasons_note}lancet exit {proc.returncode}, status {report.get('status')!r}; "
                         f"{len(diffs)} file(s) differ, first {first}\n"
                         + short_diff(first, ag_tree.get(first), lc_tree.get(first)))
        if proc.returncode != 0:
            msg = report.get("message") or proc.stderr or proc.stdout
            res["detail"] += "lancet said: " + msg.strip()[:1200] + "\n"
        return res
    except subprocess.TimeoutExpired as e:
        res["verdict"], res["detail"] = "error", f"timed out: {e.cmd}"
        return res
    finally:
        if keep_dir is not None and res["verdict"] in ("divergent", "error"):
            dest = keep_dir / f"{case['name']}--{key}"
            shutil.rmtree(dest, ignore_errors=True)
            shutil.move(str(tmp), dest)
            res["kept"] = str(dest)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def unparsable(lancet, root, paths):
    """Those of paths (relative to root) whose text does not parse: Python's own compile() for .py
    files (an independent parser), `lancet check` for the others."""
    out = []
    for p in paths:
        f = root / p
        if not f.exists():
            continue
        if p.endswith(".py"):
            try:
                compile(f.read_bytes(), p, "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                out.append(p)
            continue
        proc = subprocess.run([str(lancet), "check", "-C", str(root), "--no-compile-check", p],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode == 1:
            out.append(p)
    return sorted(out)


def gate_reasons(report):
    """[(path, why)] of the syntax refusals in a lancet report."""
    out = []
    for e in (report.get("syntax") or {}).get("errors") or []:
        where = f"{e.get('line')}:{e.get('column')}"
        out.append((e.get("path"), f"syntax error at {where}: {e.get('kind')} ({e.get('checker')})"))
    for f in report.get("files") or []:
        st = str(f.get("status", ""))
        why = f.get("reason") or f.get("error") or ""
        if "syntax" in st or "syntax" in str(why).lower():
            out.append((f.get("path"), f"{st}: {why}".strip(": ")))
    return out


# ---------------------------------------------------------------------------- main


def lancet_has_mod(lancet):
    proc = subprocess.run([str(lancet), "mod", "--help"], capture_output=True, text=True, timeout=60)
    return proc.returncode == 0 and "--rule" in proc.stdout


def main():
    global QUIET
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lancet", nargs="?", help="the lancet binary")
    ap.add_argument("--ast-grep", dest="ast_grep", help="ast-grep binary (else PATH or a venv in the cache)")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--cache", type=pathlib.Path, default=default_cache())
    ap.add_argument("--only", action="append", default=[],
                    help="run only cases whose rule file/pattern id or project contains this (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the two trees of divergent cases under CACHE/kept/")
    ap.add_argument("--oracle-only", action="store_true", help="run ast-grep alone (no lancet)")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()
    QUIET = args.quiet
    if not args.oracle_only and not args.lancet:
        ap.error("LANCET is required (or --oracle-only)")
    t0 = time.monotonic()
    cache = args.cache
    cache.mkdir(parents=True, exist_ok=True)
    try:
        lancet = None
        if not args.oracle_only:
            lancet = pathlib.Path(args.lancet).resolve()
            if not lancet.exists():
                raise SetupError(f"no lancet binary at {lancet}")
            if not lancet_has_mod(lancet):
                raise SetupError(f"{lancet} has no `mod` command with --rule (`{lancet} mod --help`); "
                                 "run with --oracle-only to check projects and rules against ast-grep alone")
        ag = find_ast_grep(cache, args.ast_grep)
        cases = load_cases()
        if args.only:
            cases = [c for c in cases if any(s in c["name"] or s in c["project"] for s in args.only)]
        divergences = load_divergences()
        templates, base_trees = {}, {}
        for key in sorted({c["project"] for c in cases}):
            templates[key] = lay_project(cache, key)
            base_trees[key] = tree(templates[key])
    except SetupError as e:
        print(f"setup failed: {e}", file=sys.stderr)
        return 1
    print(f"ast-grep {tool_version(ag)} ({ag}); lancet {lancet or '(not run: --oracle-only)'}")
    print("projects: " + ", ".join(
        f"{k} {PROJECTS[k]['version']} ({PROJECTS[k]['registry']}, {len(base_trees[k])} files)"
        for k in sorted(templates)))
    work = pathlib.Path(tempfile.mkdtemp(prefix="lancet-mod-conformance-"))
    keep_dir = cache / "kept" if args.keep else None
    if keep_dir:
        keep_dir.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            futs = [ex.submit(run_case, c, ag, lancet, templates, base_trees, keep_dir, work) for c in cases]
            for fut in concurrent.futures.as_completed(futs):
                r = fut.result()
                log(f"  {r['case']['name']} x {r['case']['project']}: {r['verdict']}")
                results.append(r)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results.sort(key=lambda r: (r["case"]["kind"], r["case"]["name"], r["case"]["project"]))

    # known divergences
    used = set()
    for r in results:
        if r["verdict"] != "divergent":
            continue
        for i, d in enumerate(divergences):
            if (d["case"] == r["case"]["name"] and d["project"] == r["case"]["project"]
                    and (not d.get("path") or d["path"] == r.get("first_path"))):
                r["verdict"], r["known"] = "known", d["reason"]
                used.add(i)
                break

    # per rule x project table
    print()
    print("ag-match: ast-grep's matches of the rule (scan --json=stream); sites: lancet's sites of the rule "
          "(report mod.rules / mod.sites);\nag-appl: changes ast-grep applied in the case (all its rules, "
          "overlaps dropped); ag-files / lc-files: files each tool changed")
    hdr = (f"{'rule':<34} {'file/pattern':<34} {'project':<24} {'ag-match':>8} {'sites':>6} {'ag-appl':>7} "
           f"{'ag-files':>8} {'lc-files':>8}  verdict")
    print(hdr)
    print("-" * len(hdr))
    matched = {}
    for r in results:
        c = r["case"]
        for rid in c["rules"]:
            n = r["ag_matches"].get(rid, 0)
            label = f"{c['name']}.yml" if c["kind"] == "rule" else "patterns.toml"
            if c["kind"] == "rule":
                matched.setdefault((c["name"], rid), []).append((c["project"], n, r["lancet_rule_sites"].get(rid)))
            sites = r["lancet_rule_sites"].get(rid)
            if sites is None and len(c["rules"]) == 1:
                sites = r["lancet_sites"]
            appl = "-" if r["ag_applied"] is None else r["ag_applied"]
            print(f"{rid:<34} {label:<34} {c['project']:<24} {n:>8} {'-' if sites is None else sites:>6} "
                  f"{appl:>7} {r['ag_files']:>8} {r['lancet_files'] if lancet else '-':>8}  {r['verdict']}")
    print()
    for r in results:
        if r["verdict"] in ("refused", "divergent", "error", "known"):
            c = r["case"]
            print(f"== {r['verdict']}: {c['name']} x {c['project']}")
            if r["verdict"] == "known":
                print(f"   known divergence: {r['known']}")
            print("   " + r["detail"].rstrip().replace("\n", "\n   "))
            if r.get("kept"):
                print(f"   trees kept in {r['kept']}")
    for i, d in enumerate(divergences):
        if i not in used:
            print(f"note: {DIVERGENCES.name}: entry {d['case']} x {d['project']} matched no divergence (stale?)")

    rules_total = len(matched)
    rules_matched = sum(1 for v in matched.values() if any(n > 0 for _, n, _ in v))
    print()
    print("rules (ast-grep matches / lancet sites per project):")
    for (name, rid), v in sorted(matched.items()):
        parts = ", ".join(f"{p} {n}/{'-' if s is None else s}" for p, n, s in v)
        flag = "" if any(n > 0 for _, n, _ in v) else "   <- matches nothing"
        print(f"  {name}.yml {rid}: {parts}{flag}")
    counts = {k: sum(1 for r in results if r["verdict"] == k) for k in
              ("identical", "refused", "divergent", "known", "error", "oracle-only")}
    print()
    need = 0 if args.only else MIN_MATCHED_RULES
    print(f"{rules_matched} of {rules_total} rules matched something "
          f"({f'need {need}' if need else 'no minimum with --only'}); "
          f"{len(results)} cases in {time.monotonic() - t0:.0f}s")
    if lancet is None:
        print(f"{counts['oracle-only']} cases run with ast-grep alone, {counts['error']} errors")
        ok = counts["error"] == 0 and rules_matched >= need
        return 0 if ok else 1
    tail = f", {counts['known']} known divergences" if counts["known"] else ""
    tail += f", {counts['error']} errors" if counts["error"] else ""
    print(f"{counts['identical']} identical, {counts['refused']} refused (explained), "
          f"{counts['divergent']} divergent{tail}")
    ok = counts["divergent"] == 0 and counts["error"] == 0 and rules_matched >= need
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

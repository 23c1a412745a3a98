#!/usr/bin/env python3
"""The gate's false refusals on real code in every language it judges beyond Python, TS/JS and
Rust (tests/corpus/gate.py): `lancet check` over one corpus per other language of
crates/lancet-syntax/grammars/languages.toml, each at least 1 MB of released code, fetched at
test time from Debian, npm, PyPI and the cargo registry (never committed), each file against the
language's own verdict where one is cheap.

  go       Go 1.19's standard library (Debian golang-1.19-src; `testdata` left out: the Go tool
           ignores it, and it holds deliberately broken inputs), against go/parser (`gofmt -e`).
  java     a deterministic sample of OpenJDK 17's sources (Debian openjdk-17-source, src.zip),
           against javac's parser (`java_parse.java`: JavacTask.parse, no attribution).
  c        libgit2 and zlib as vendored by the libgit2-sys and libz-sys crates of Cargo.lock.
  cpp      nlohmann-json, GLM, googletest and Catch2 (Debian).
  c-sharp  UniTask and UniRx (Unity packages published on npm).
  ruby     Ruby 3.1's standard library and bundled gems (Debian libruby3.1), against Ruby's own
           parser (`ruby_check.rb` run by Debian's ruby3.1 binary of the same version, unpacked).
  bash     bash-completion's scripts, neofetch, dkms (Debian) and ansible-core's .sh files
           (PyPI sdist), against `bash -O extglob -n` (scripts turn extended globs on at run
           time, which `bash -n` never runs); checked a second time with bash's own check on
           (`gate.external = ["bash"]`, trusted), which must refuse nothing valid either.
  json     check-jsonschema's vendored schemas (PyPI), CLDR's core data (npm cldr-core),
           ansible-core's and Django's JSON files, against Python's json module.
  toml     the Cargo.toml, Cargo.toml.orig (as written by the authors) and other .toml files of
           the registry crates of Cargo.lock, and the sdists' pyproject.toml, against tomllib.
  yaml     ansible-core's, Django's and check-jsonschema's YAML, against PyYAML (pinned wheel).
  html     a sample of Python 3.11's HTML documentation (Debian python3.11-doc) and Django's
           templates (reported unchecked: template syntax). No reference: HTML has no invalid
           text (parsers recover from anything); the files are released pages.
  css      Bootstrap's dist CSS (npm) and Django's, against CSS Syntax Level 3 as tinycss2
           (pinned wheel) reads it, plus the end-of-file parse errors it leaves silent.

c, cpp and c-sharp have no reference here (a compiler needs the projects' builds), nor does
html; their files are released code, taken as valid. bash, c, cpp and c-sharp are `unconfirmed`
in languages.toml: their tree-sitter errors are reported unchecked, so they must refuse nothing.

Downloads are cached outside the repository (`$XDG_CACHE_HOME/lancet-corpus/gate-languages`,
else `~/.cache/...`; --cache DIR instead). Debian packages are fetched at their pinned version
with `apt-get download` (the machine's version when the archive no longer has the pin: said in
the output), unpacked with `dpkg-deb -x`.

A file lancet refuses (an error in `lancet check --json`) that the reference accepts, or any
file it refuses where there is no reference, is a false refusal: each must match an entry of
gate_known.toml, or the run fails (exit 1). A file the reference rejects and lancet passes is a
false negative: reported, not failed. Each corpus's line gives: files, bytes, files tree-sitter
flags (refused, reported unchecked, or cleared by its second reading: mended.rs), refused, false
refusals, unchecked (by reason) and the reference's disagreements.

Usage: python3 tests/corpus/gate_languages.py target/release/lancet [--corpus go,java,...]
         [--limit N] [--cache DIR] [--reference flagged|all] [--known FILE]
"""
import fnmatch
import functools
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from concurrent.futures import ThreadPoolExecutor

import gate
from gate import arg, log

HERE = pathlib.Path(__file__).resolve().parent
CORPORA = gate.LANGUAGE_CORPORA
LANGUAGES = HERE.parent.parent / "crates" / "lancet-syntax" / "grammars" / "languages.toml"

# Pinned sources. Debian: (package, version); the newest of bookworm (and its security archive)
# when pinned.
DEB = {
    "golang-1.19-src": "1.19.8-2",
    "openjdk-17-source": "17.0.21.1+2-1~deb12u1",
    "nlohmann-json3-dev": "3.11.2-2",
    "libglm-dev": "0.9.9.8+ds-6",
    "googletest": "1.12.1-0.2",
    "catch2": "2.13.10-1",
    "libruby3.1": "3.1.7+really3.1.2-0+deb12u1",
    "ruby3.1": "3.1.7+really3.1.2-0+deb12u1",
    "bash-completion": "1:2.11-6",
    "neofetch": "7.1.0-4",
    "dkms": "3.0.10-8+deb12u1",
    "python3.11-doc": "3.11.2-6+deb12u9",
}
NPM = {
    "com.cysharp.unitask": "2.2.5",
    "com.neuecc.unirx": "7.1.0",
    "cldr-core": "44.1.0",
    "bootstrap": "5.3.3",
}
SDIST = {"ansible-core": "2.15.13", "Django": "4.2.16", "check-jsonschema": "0.29.4"}
# The references' Python parsers, as wheels unpacked into the cache (PyYAML's holds libyaml's
# binding for this interpreter; without it PyYAML runs as pure Python).
WHEELS = {"tinycss2": "1.4.0", "webencodings": "0.5.1", "PyYAML": "6.0.3"}
# Most files taken from the largest sources: every k-th path in sorted order.
MAX_FILES = {"go": 2500, "java": 2000, "html": 150}


# ------------------------------------------------------------------------------------ fetching


def cache_root():
    if arg("--cache"):
        return pathlib.Path(arg("--cache")).resolve() / "gate-languages"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return pathlib.Path(base) / "lancet-corpus" / "gate-languages"


def unpacked(dest, fill):
    """dest, filled by fill(tmp) into a temporary directory beside it the first time (a
    `.complete` marker says it was filled to the end)."""
    if (dest / ".complete").exists():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=".unpack-", dir=dest.parent))
    fill(tmp)
    tmp.rename(dest)
    (dest / ".complete").write_text("")
    return dest


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout}{proc.stderr}")
    return proc


UPDATED = []  # whether this run already ran apt-get update


def deb(package, keep=None):
    """(root of the unpacked package, what it is): fetched at the pinned version, or at the
    archive's own when the pin is gone (said), unpacked once; only the files matching the
    globs of `keep` (fnmatch, relative to the root) are kept, and the .deb is not."""
    pinned = DEB[package]
    done = sorted((cache_root() / "src").glob(f"{package}_*_*/.complete"))
    if done:
        root = done[-1].parent
        version = (root / ".version").read_text()
    else:
        (cache_root() / "deb").mkdir(parents=True, exist_ok=True)
        dl = pathlib.Path(tempfile.mkdtemp(prefix=f"{package}-", dir=cache_root() / "deb"))
        try:
            archive = apt_download(package, pinned, dl)
            version = run(["dpkg-deb", "-f", str(archive), "Version"]).stdout.strip()

            def fill(tmp):
                run(["dpkg-deb", "-x", str(archive), str(tmp)])
                for dirpath, _, filenames in os.walk(tmp):
                    for name in filenames:
                        rel = os.path.relpath(os.path.join(dirpath, name), tmp)
                        if keep and not any(fnmatch.fnmatchcase(rel, g) for g in keep):
                            os.remove(os.path.join(dirpath, name))
                (tmp / ".version").write_text(version)

            root = unpacked(cache_root() / "src" / archive.stem, fill)
        finally:
            shutil.rmtree(dl, ignore_errors=True)
    if version != pinned:
        log(f"  note: {package} {pinned} is no longer in the archive: took {version}")
    return root, f"{package} {version} (Debian)"


def apt_download(package, pinned, dl):
    """The .deb of package at the pinned version (else the archive's own), downloaded into dl
    (`apt-get update` first, once, when apt knows no such package and this is root)."""
    for attempt in (f"{package}={pinned}", package):
        proc = subprocess.run(["apt-get", "download", attempt], cwd=dl, capture_output=True, text=True)
        if proc.returncode != 0 and not UPDATED and os.geteuid() == 0:
            UPDATED.append(True)
            subprocess.run(["apt-get", "update"], capture_output=True)
            proc = subprocess.run(["apt-get", "download", attempt], cwd=dl, capture_output=True, text=True)
        if proc.returncode == 0:
            return next(dl.glob(f"{package}_*.deb"))
    raise SystemExit(f"apt-get download {package} failed:\n{proc.stderr}")


def npm(name):
    """The unpacked npm package, fetched with `npm pack` at its pinned version."""
    version = NPM[name]
    dl = cache_root() / "npm"
    dl.mkdir(parents=True, exist_ok=True)
    stem = gate.tgz_name(name, version)
    archive = dl / f"{stem}.tgz"
    if not archive.exists():
        run(["npm", "pack", "--silent", "--pack-destination", str(dl), f"{name}@{version}"], timeout=600)

    def fill(tmp):
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")

    return unpacked(cache_root() / "src" / stem, fill) / "package", f"{name}@{version} (npm)"


def normalized(name):
    return name.lower().replace("_", "-").replace(".", "-")


def sdist(name):
    """The unpacked PyPI sdist, fetched with `pip download --no-binary :all:`."""
    version = SDIST[name]
    dl = cache_root() / "pypi"
    dl.mkdir(parents=True, exist_ok=True)
    prefix = normalized(f"{name}-{version}")

    def matching():
        return [p for p in dl.glob("*.tar.gz") if normalized(p.name).startswith(prefix + "-tar")]

    if not matching():
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
             "-d", str(dl), f"{name}=={version}"], timeout=600)
    archive = matching()[0]

    def fill(tmp):
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")

    root = unpacked(cache_root() / "src" / archive.name.removesuffix(".tar.gz"), fill)
    tops = [p for p in root.iterdir() if p.is_dir()]
    return tops[0], f"{name}=={version} (PyPI sdist)"


@functools.cache
def wheels():
    """The references' Python parsers, unpacked from pinned wheels into the cache and put on
    this process's import path."""
    dl = cache_root() / "wheels"

    def fill(tmp):
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
             "-d", str(tmp), *(f"{n}=={v}" for n, v in WHEELS.items())], timeout=600)
        for wheel in tmp.glob("*.whl"):
            with zipfile.ZipFile(wheel) as z:
                z.extractall(tmp)

    sys.path.insert(0, str(unpacked(dl, fill)))


def crate_dirs(prefixes):
    """The registry crates of Cargo.lock unpacked under $CARGO_HOME/registry/src, those whose
    name-version starts with one of prefixes (all when None): [(name-version, path)], and the
    names of those not unpacked (another platform's: a build unpacks only its own)."""
    with open(gate.REPO / "Cargo.lock", "rb") as f:
        lock = tomllib.load(f)
    cargo_home = pathlib.Path(os.environ.get("CARGO_HOME") or os.path.expanduser("~/.cargo"))
    registries = sorted((cargo_home / "registry" / "src").glob("*/"))
    found, missing = set(), set()
    for p in lock.get("package", []):
        name = f"{p['name']}-{p['version']}"
        if p.get("source", "").startswith(("registry+", "sparse+")) and (
                prefixes is None or name.startswith(prefixes)):
            where = next((r / name for r in registries if (r / name).is_dir()), None)
            if where is None:
                missing.add(name)
            else:
                found.add((name, where))
    if prefixes and missing:
        raise SystemExit(f"{', '.join(sorted(missing))} of Cargo.lock not unpacked under {cargo_home}/registry/src "
                         "(a build of the workspace unpacks them)")
    return sorted(found), sorted(missing)


# ------------------------------------------------------------------------------------ the files


@functools.cache
def language_table():
    with open(LANGUAGES, "rb") as f:
        return {l["name"]: l for l in tomllib.load(f)["language"]}


def is_of(language, name):
    """Whether a file name is one lancet reads as `language` by its name alone."""
    entry = language_table()[language]
    return name in entry.get("file_names", []) or any(
        name.endswith("." + e) for e in entry.get("extensions", []))


def walk(root, under=".", keep=lambda rel: True, skip_dirs=()):
    """(path relative to root, path) of the files under root/under, hidden directories and
    skip_dirs left out, sorted."""
    out = []
    base = root / under
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in skip_dirs)
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if os.path.isfile(path) and not os.path.islink(path):
                rel = os.path.relpath(path, base).replace(os.sep, "/")
                if keep(rel):
                    out.append((rel, path))
    return out


def sample(files, cap):
    """Every k-th of files (sorted) so that at most cap are left."""
    step = -(-len(files) // cap) if cap and len(files) > cap else 1
    return files[::step], step


def of_language(language):
    return lambda rel: is_of(language, rel.rsplit("/", 1)[-1])


def prefixed(stem, files):
    return [(f"{stem}/{rel}", path) for rel, path in files]


def files_go():
    root, source = deb("golang-1.19-src", keep=["*.go"])
    files = walk(root, "usr/share/go-1.19/src", of_language("go"), skip_dirs=("testdata",))
    files, step = sample(files, MAX_FILES["go"])
    return prefixed("go", files), [source], [f"every {step}th .go file outside testdata"] if step > 1 else []


def files_java():
    root, source = deb("openjdk-17-source", keep=["*/src.zip"])
    src = root / "usr/lib/jvm/openjdk-17/lib/src.zip"
    with zipfile.ZipFile(src) as z:
        names = sorted(n for n in z.namelist() if n.endswith(".java"))
        chosen, step = sample(names, MAX_FILES["java"])

        def fill(tmp):
            for n in chosen:
                z.extract(n, tmp)

        out = unpacked(cache_root() / "samples" / f"{root.name}-every-{step}", fill)
    files = [(n, str(out / n)) for n in chosen]
    return prefixed("jdk", files), [source], [f"every {step}th of the {len(names)} .java files of src.zip"]


def files_c():
    files, sources = [], []
    for name, path in crate_dirs(("libgit2-sys-", "libz-sys-"))[0]:
        files += prefixed(name, walk(path, keep=of_language("c")))
        sources.append(f"{name} (crates.io)")
    return files, sources, []


def from_debs(packages, language, under="."):
    files, sources = [], []
    for package in packages:
        root, source = deb(package)
        files += prefixed(package, walk(root, under, of_language(language)))
        sources.append(source)
    return files, sources


def files_cpp():
    files, sources = from_debs(["nlohmann-json3-dev", "libglm-dev", "googletest", "catch2"], "cpp")
    return files, sources, []


def files_c_sharp():
    files, sources = [], []
    for name in ("com.cysharp.unitask", "com.neuecc.unirx"):
        root, source = npm(name)
        files += prefixed(name, walk(root, keep=of_language("c-sharp")))
        sources.append(source)
    return files, sources, []


def files_ruby():
    files, sources = from_debs(["libruby3.1"], "ruby", "usr/lib/ruby")
    return files, sources, []


def files_bash():
    """bash-completion's files (named without an extension, they get `.bash`), neofetch's and
    dkms's bash and sh scripts, ansible-core's .sh files."""
    files, sources = [], []
    root, source = deb("bash-completion")
    for rel, path in walk(root, "usr/share/bash-completion"):
        if rel != "bash_completion" and not rel.startswith("completions/"):
            continue  # helpers/: Perl and Python scripts
        files.append((f"bash-completion/{rel}" + ("" if is_of("bash", rel) else ".bash"), path))
    sources.append(source)
    for package, scripts in (("neofetch", ["usr/bin/neofetch"]),
                             ("dkms", ["usr/sbin/dkms", "usr/lib/dkms/*", "etc/kernel/*/dkms"])):
        root, source = deb(package)
        for rel, path in walk(root):
            if any(fnmatch.fnmatchcase(rel, g) for g in scripts):
                with open(path, "rb") as f:
                    if f.read(2) == b"#!":
                        files.append((f"{package}/{rel}" + ("" if is_of("bash", rel) else ".bash"), path))
        sources.append(source)
    root, source = sdist("ansible-core")
    files += prefixed("ansible-core", walk(root, keep=of_language("bash")))
    sources.append(source)
    return files, sources, ["files without a bash extension named <name>.bash"]


def from_sources(language, npms=(), sdists=()):
    files, sources = [], []
    for name in npms:
        root, source = npm(name)
        files += prefixed(name, walk(root, keep=of_language(language)))
        sources.append(source)
    for name in sdists:
        root, source = sdist(name)
        files += prefixed(name, walk(root, keep=of_language(language)))
        sources.append(source)
    return files, sources


def files_json():
    files, sources = from_sources("json", ["cldr-core"], ["check-jsonschema", "ansible-core", "Django"])
    return files, sources, []


def files_toml():
    files = []
    crates, missing = crate_dirs(None)
    for name, path in crates:
        for rel, p in walk(path):
            if rel == "Cargo.toml.orig":
                files.append((f"{name}/Cargo.orig.toml", p))
            elif is_of("toml", rel.rsplit("/", 1)[-1]):
                files.append((f"{name}/{rel}", p))
    more, sources = from_sources("toml", (), ["ansible-core", "Django", "check-jsonschema"])
    return files + more, [f"the {len(crates)} registry crates of Cargo.lock unpacked here (crates.io)", *sources], \
        ["Cargo.toml.orig read as Cargo.orig.toml",
         f"{len(missing)} crates of Cargo.lock not unpacked (other platforms'): {', '.join(missing[:4])} ..."]


def files_yaml():
    files, sources = from_sources("yaml", (), ["ansible-core", "Django", "check-jsonschema"])
    return files, sources, []


def files_html():
    root, source = deb("python3.11-doc", keep=["*.html"])
    docs, step = sample(walk(root, "usr/share/doc/python3.11/html", of_language("html")), MAX_FILES["html"])
    more, sources = from_sources("html", (), ["Django"])
    return prefixed("python3.11-doc", docs) + more, [source, *sources], \
        [f"every {step}th page of the Python docs"] if step > 1 else []


def files_css():
    files, sources = from_sources("css", ["bootstrap"], ["Django"])
    return files, sources, []


# ---------------------------------------------------------------------------------- references


def in_process(judge):
    """A reference run file by file in this process: {rel: why} of those judge rejects."""

    def reference(tmp, rels):
        rejected = {}
        for rel in rels:
            with open(os.path.join(tmp, rel), "rb") as f:
                data = f.read()
            why = judge(data)
            if why:
                rejected[rel] = why
        return rejected

    return reference


def json_judge(data):
    try:
        json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        return f"json: {e}"
    return None


def toml_judge(data):
    try:
        tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        return f"tomllib: {e}"
    return None


def yaml_judge(data):
    wheels()
    import yaml  # the pinned wheel's; its libyaml binding (CSafeLoader) where it loads
    try:
        for _ in yaml.compose_all(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            pass
    except yaml.YAMLError as e:
        return "PyYAML: " + " ".join(str(e).split())[:160]
    return None


def css_judge(data):
    """CSS Syntax Level 3's parse errors in a stylesheet: tinycss2's (in rules, declaration
    lists and values, nested), and the end-of-file ones it leaves silent (a comment, string or
    block still open, a last rule without its `;` or `}`)."""
    wheels()
    import tinycss2

    def errors(nodes):
        for n in nodes or ():
            if n.type == "error":
                return f"{n.source_line}:{n.source_column}: {n.message}"
            inner = None
            if n.type == "qualified-rule":
                inner = errors(n.prelude) or errors(tinycss2.parse_blocks_contents(n.content))
            elif n.type == "at-rule":
                inner = errors(n.prelude) or (n.content is not None and errors(
                    tinycss2.parse_blocks_contents(n.content)))
            elif n.type == "declaration":
                inner = errors(n.value)
            elif n.type in ("() block", "[] block", "{} block"):
                inner = errors(n.content)
            elif n.type == "function":
                inner = errors(n.arguments)
            if inner:
                return inner
        return None

    rules, _ = tinycss2.parse_stylesheet_bytes(data)
    return errors(rules) or css_end_of_file(data.decode("utf-8", "replace"))


def css_end_of_file(text):
    depth, i, last, n = 0, 0, "", len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return "the file ends inside a comment"
            i = end + 2
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                return "the file ends inside a string"
            i, last = j + 1, c
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        if not c.isspace():
            last = c
        i += 1
    if depth:
        return "the file ends inside a {} block"
    if last and last not in ";}":
        return f"the file ends after {last!r}, not a rule's ; or }}"
    return None


def ruby_reference(tmp, rels):
    """Ruby 3.1's parser (Debian's ruby3.1 binary, unpacked beside libruby3.1's library and
    standard library) over every file, in one process."""
    lib, _ = deb("libruby3.1")
    bin_root, _ = deb("ruby3.1")
    env = {**os.environ,
           "LD_LIBRARY_PATH": str(lib / "usr/lib/x86_64-linux-gnu"),
           "RUBYLIB": f"{lib / 'usr/lib/ruby/3.1.0'}:{lib / 'usr/lib/x86_64-linux-gnu/ruby/3.1.0'}"}
    proc = subprocess.run([str(bin_root / "usr/bin/ruby3.1"), "--disable-gems", str(HERE / "ruby_check.rb"), tmp],
                          input="\n".join(rels) + "\n", capture_output=True, text=True, env=env)
    return parsed_lines(proc, "ruby_check.rb", len(rels))


def java_reference(tmp, rels):
    if not shutil.which("java"):
        return None
    proc = subprocess.run(["java", str(HERE / "java_parse.java"), tmp], input="\n".join(rels) + "\n",
                          capture_output=True, text=True)
    return parsed_lines(proc, "java_parse.java", len(rels))


def parsed_lines(proc, name, count):
    """{rel: message} from a helper's "rel<TAB>message" lines, checked against its "done<TAB>N"."""
    rejected, done = {}, None
    for line in proc.stdout.splitlines():
        rel, _, why = line.partition("\t")
        if rel == "done":
            done = int(why)
        elif why:
            rejected[rel] = why
    if proc.returncode != 0 or done != count:
        raise SystemExit(f"{name} failed (exit {proc.returncode}, {done} of {count} files):\n{proc.stderr[-2000:]}")
    return rejected


def gofmt_reference(tmp, rels):
    """go/parser, as `gofmt -e -l` runs it: a file it cannot parse is named on stderr."""
    if not shutil.which("gofmt"):
        return None
    rejected = {}
    for i in range(0, len(rels), 500):
        chunk = rels[i:i + 500]
        proc = subprocess.run(["gofmt", "-e", "-l", *chunk], cwd=tmp, capture_output=True, text=True)
        for line in proc.stderr.splitlines():
            rel = line.split(":", 1)[0]
            if rel in chunk and rel not in rejected:
                rejected[rel] = line[len(rel) + 1:]
    return rejected


def bash_reference(tmp, rels):
    """`bash -O extglob -n` on each file: bash -n runs no `shopt -s extglob`, which scripts
    using extended globs run first (bash-completion turns it on for all of its scripts)."""
    if not shutil.which("bash"):
        return None

    def one(rel):
        proc = subprocess.run(["bash", "-O", "extglob", "-n", rel], cwd=tmp, capture_output=True, text=True)
        return (rel, proc.stderr.strip().splitlines()[0] if proc.stderr.strip() else f"exit {proc.returncode}") \
            if proc.returncode else None

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(r for r in pool.map(one, rels) if r)


# name: (title, files, reference, on every file (else on the files tree-sitter flags), its name).
# A language in EXTERNAL is checked a second time with its own check command on
# (`gate.external`, a trusted setting), where the tool is installed: that run must refuse
# nothing the reference accepts either.
EXTERNAL = ("bash",)
CORPUS = {
    "go": ("Go", files_go, gofmt_reference, False, "go/parser (gofmt -e)"),
    "java": ("Java", files_java, java_reference, False, "javac's parser (JavacTask.parse)"),
    "c": ("C", files_c, None, False, None),
    "cpp": ("C++", files_cpp, None, False, None),
    "c-sharp": ("C#", files_c_sharp, None, False, None),
    "ruby": ("Ruby", files_ruby, ruby_reference, True, "Ruby 3.1's parser"),
    "bash": ("bash", files_bash, bash_reference, False, "bash -O extglob -n"),
    "json": ("JSON", files_json, in_process(json_judge), True, "Python's json"),
    "toml": ("TOML", files_toml, in_process(toml_judge), True, "tomllib (TOML 1.0)"),
    "yaml": ("YAML", files_yaml, in_process(yaml_judge), True, f"PyYAML {WHEELS['PyYAML']} (compose)"),
    "html": ("HTML", files_html, None, False, None),
    "css": ("CSS", files_css, in_process(css_judge), True, f"tinycss2 {WHEELS['tinycss2']} + end-of-file errors"),
}


# ------------------------------------------------------------------------------------- running


def reason(unchecked):
    """The kind of an `unchecked` entry's reason, for counting."""
    why = unchecked.split(" (", 1)[1] if " (" in unchecked else unchecked
    for kind in ("tree-sitter flags", "template syntax", "over gate.max_file_bytes", "parse gave up",
                 "not built in", "no known language"):
        if why.startswith(kind) or kind in why[:80]:
            return kind
    return why[:60]


def corpus(name, lancet, limit, known, summary):
    title, files_of, reference, on_all, ref_name = CORPUS[name]
    start = time.monotonic()
    files, sources, notes = files_of()
    files = sorted(files)[:limit] if limit else sorted(files)
    t_fetch = time.monotonic() - start
    rels = [r for r, _ in files]
    rel_set = set(rels)
    size = sum(os.path.getsize(p) for _, p in files)
    with tempfile.TemporaryDirectory() as tmp:
        gate.copy_tree(files, tmp)
        t0 = time.monotonic()
        result = gate.run_lancet(lancet, tmp, ["--no-compile-check"])
        t1 = time.monotonic()
        first = gate.first_errors(result, rel_set)
        unchecked = [u for u in result["unchecked"] if u.split(" (")[0] in rel_set]
        by_reason = {}
        for u in unchecked:
            by_reason.setdefault(reason(u), []).append(u.split(" (")[0])
        mended = sorted({e["path"] for e in result.get("preexisting", []) if "read again mended" in e["kind"]})
        flagged = set(first) | set(by_reason.get("tree-sitter flags", [])) | set(mended)
        mode = arg("--reference", "flagged")
        judged = rels if (on_all or mode == "all") else sorted(flagged)
        rejected = reference(tmp, judged) if reference else None
        t2 = time.monotonic()
        if rejected is None:
            rejected = {}
            notes.append("no reference: every file taken as valid (released code)" if not ref_name
                         else f"{ref_name} is not installed: every file taken as valid")
        else:
            notes.append(f"reference: {ref_name}, on "
                         + ("every file" if len(judged) == len(rels) else f"the {len(judged)} files tree-sitter flags"))
        notes.insert(0, "sources: " + ", ".join(sources))
        accepts_flagged = sorted(flagged - set(rejected))
        # A file reported unchecked is neither refused nor passed: out of the comparison.
        unchecked_set = {u.split(" (")[0] for u in unchecked}
        passes_rejected = sorted(set(rejected) - set(first) - unchecked_set)
        judged_rejected = {r: w for r, w in rejected.items() if r not in unchecked_set}
        failed = gate.report(name, f"{title} ({name})", rels, judged_rejected, first, unchecked, tmp, known, notes)
        false_refusals = sorted(set(first) - set(rejected))
        log(f"  figures: {len(rels)} files, {size / 1e6:.1f} MB; tree-sitter flags {len(flagged)}; refused {len(first)} "
            f"({len(false_refusals)} false); unchecked {len(unchecked)}"
            + (" (" + ", ".join(f"{k} {len(v)}" for k, v in sorted(by_reason.items())) + ")" if unchecked else "")
            + f"; cleared by a second reading {len(mended)}")
        if unchecked:
            per_source = {}
            for u in unchecked:
                per_source[u.split("/", 1)[0]] = per_source.get(u.split("/", 1)[0], 0) + 1
            totals = {}
            for r in rels:
                totals[r.split("/", 1)[0]] = totals.get(r.split("/", 1)[0], 0) + 1
            log("  unchecked per source: " + ", ".join(f"{k} {v} of {totals[k]}" for k, v in sorted(per_source.items())))
        if reference and ref_name:
            log(f"  reference disagreements: accepts {len(accepts_flagged)} of the files tree-sitter flags; "
                f"rejects {len(passes_rejected)} lancet passes")
        summary.append((name, len(rels), size, len(flagged), len(first), len(false_refusals), len(unchecked),
                        len(mended), (len(accepts_flagged), len(passes_rejected)) if reference and ref_name else None))
        times = {"fetch": t_fetch, "lancet": t1 - t0, "reference": t2 - t1}
        if name in EXTERNAL:
            t3 = time.monotonic()
            failed += with_external(name, lancet, tmp, rels, rejected, reference, known, summary)
            times["with gate.external"] = time.monotonic() - t3
    gate.log_times(times, start)
    return failed


def with_external(name, lancet, tmp, rels, rejected, reference, known, summary):
    """The corpus checked again with the language's own check on (`gate.external`, trusted),
    its refusals compared with the reference's verdicts (run on those it had not judged)."""
    command = language_table()[name].get("check", [""])
    if not shutil.which(command[0]):
        log(f"  {command[0]} is not installed: the run with gate.external = [\"{name}\"] is skipped")
        return 0
    with open(os.path.join(tmp, "lancet.toml"), "w") as f:
        f.write(f'[gate]\nexternal = ["{name}"]\n')
    subprocess.run([lancet, "trust", "-C", tmp], check=True, stdout=subprocess.DEVNULL)
    result = gate.run_lancet(lancet, tmp)
    os.remove(os.path.join(tmp, "lancet.toml"))
    rel_set = set(rels)
    first = gate.first_errors(result, rel_set)
    unchecked = [u for u in result["unchecked"] if u.split(" (")[0] in rel_set]
    rejected = {**rejected, **reference(tmp, sorted(set(first) - set(rejected)))}
    notes = [f"lancet.toml: [gate] external = [\"{name}\"] (trusted): {' '.join(command)} judges each file"]
    failed = gate.report(name, f"{name} with its own check", rels, {r: w for r, w in rejected.items() if r in first},
                         first, unchecked, tmp, known, notes)
    false_refusals = sorted(set(first) - set(rejected))
    log(f"  figures: refused {len(first)} ({len(false_refusals)} false); unchecked {len(unchecked)}")
    summary.append((f"{name}+ext", len(rels), 0, 0, len(first), len(false_refusals), len(unchecked), 0, None))
    return failed


def main():
    lancet = os.path.abspath(sys.argv[1])
    # Trust records of the corpus's temp roots stay out of the person's home, and are removed.
    with tempfile.TemporaryDirectory(prefix="lancet-gate-trust-") as trust:
        os.environ["XDG_DATA_HOME"] = trust
        return run_corpora(lancet)


def run_corpora(lancet):
    limit = int(arg("--limit")) if "--limit" in sys.argv else None
    corpora = arg("--corpus", ",".join(CORPORA)).split(",")
    if not corpora or any(c not in CORPORA for c in corpora):
        raise SystemExit(f"--corpus: a comma-separated subset of {','.join(CORPORA)}")
    gate.KNOWN = pathlib.Path(arg("--known", str(gate.KNOWN)))
    known = gate.load_known()
    start = time.monotonic()
    failed, summary = {}, []
    for c in CORPORA:
        if c in corpora:
            failed[c] = corpus(c, lancet, limit, known, summary)
    log("language  files       MB  flagged  refused  false  unchecked  mended  reference (accepts flagged / rejects passed)")
    for name, n, size, flagged, refused, false, unchecked, mended, ref in summary:
        log(f"{name:9} {n:5} " + (f"{size / 1e6:8.1f} {flagged:8}" if size else f"{'':8} {'':8}")
            + f" {refused:8} {false:6} {unchecked:10} " + (f"{mended:7}" if size else f"{'':7}")
            + "  " + (f"{ref[0]} / {ref[1]}" if ref else "-"))
    log(f"all: {time.monotonic() - start:.1f} s; unlisted false refusals: "
        + ", ".join(f"{c} {n}" for c, n in failed.items()))
    return 1 if any(failed.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

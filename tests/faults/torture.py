#!/usr/bin/env python3
"""Torture: no lost update, ever (#36). Many writers on one small tree at once — lancet CLI
writers (some with --expect, some with --base, some plain, a few with tests that fail so the
batch is taken back), two MCP sessions (read_file, then write_file / edit / apply_patch), an
"editor" saving by atomic rename and in place at random moments and at lancet's own seams, and
kill -9 of lancet writers — and an oracle that accounts for every version of every file.

Usage: torture.py LANCET [--rounds N] [--seed S] [--writers N]

A round: every actor makes one or two writes at once, lancet writers are killed at random
points (at a seam, LANCET_PAUSE_AT, or after a random delay; or crashed at a seam,
LANCET_FAILPOINT=crash:...), a paused writer may ask the editor to save the file it is writing
right then (once, or in place into the file held open and by rename together); then
`lancet recover`, and the round is judged. The MCP servers are killed now and then, too.

The oracle. Every line a writer adds carries a token of its own, so every version of a file is
unique and names who made it. What replaced what is known exactly:
  - a lancet batch that stands: its checkpoint (`lancet log --json`, the before/after commits
    read with git) says which bytes it judged and what it wrote; a writer's report names its
    checkpoint;
  - an editor save by rename uses renameat2(RENAME_EXCHANGE), so the editor reads what it took
    out of the tree; an in-place save reads the inode through the descriptor it writes with;
  - lancet's own excursions (a swap taken back as stale, a killed batch rolled back) replace a
    version and put it back, and cancel out; where the editor took lancet's in-flight content
    out of the tree, the excursion is reconstructed from the attempt's own edit, reversed.
For every version: the times it stood (the round's start, each write that put it) equal the
times something replaced it knowingly, plus one if it is the file at the end. A version that
stood and nobody replaced knowingly is a lost update; one replaced more often than it stood was
judged by a writer after it was gone. Also checked, per round:
  - each reported applied write is a live checkpoint whose after-image is its own edit applied to
    exactly its before-image, and an --expect write's before-image is the expected hash;
  - every editor save is at the end or was the base of a later write (the balance above);
  - no torn file: each file at the end is a version some writer wrote whole;
  - no stray temp file, journal or pre-image after `lancet recover`, which must succeed;
  - the log agrees with the tree: each path's newest live batch wrote the file as it is now,
    unless an editor save took it out since.
At the end, `lancet recover` then an apply must succeed (the locks are free after kill -9).
An in-place save that lands in a file lancet already replaced (an editor holding it open) is
strict when the editor wrote it while the batch that replaced it was paused before its last
comparison: it must be found again (put back, or judged by a later write), or be kept in
<state>/kept/ because another save took the path meanwhile, or be superseded by the editor's own
next save of the file. One that landed at a random moment is counted, not judged: after lancet's
last comparison, no writer can reach a file that has left the tree.

Prints the figures and exits 1 on any violation, with what was found.
"""
import argparse
import ctypes
import hashlib
import itertools
import json
import os
import queue
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter

FILES = ["f0.txt", "f1.txt", "f2.txt", "sub/f3.txt"]
SLOTS = 8
MAX_NOTES = 6
# The seams of a commit, in order (LANCET_PAUSE_AT): a paused writer may ask the editor to save.
SEAMS = ["verify", "journal", "write", "backup", "verify_again", "judged", "rename", "exchanged",
         "fsync_dir", "verify_swapped", "commit", "recover"]
# Between these lancet compares no more before its pre-images go: a write into a file it
# replaced is beyond anyone's reach (a rollback, at `recover`, compares again).
UNCOMPARED = {"commit"}

LIBC = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_EXCHANGE = 2


def sha(b):
    return hashlib.sha256(b).hexdigest()


def short(h):
    return h[:10] if h else "-"


class Tokens:
    """Unique, dissimilar line tokens (a counter and a hash of it): every version is unique."""

    def __init__(self, seed):
        self.counter = itertools.count(1)
        self.seed = seed
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            n = next(self.counter)
        return f"k{n:06d}-{hashlib.md5(f'{self.seed}:{n}'.encode()).hexdigest()[:6]}"


def initial(path, tokens):
    lines = [f"# {path}"] + [f"slot {i}: {tokens.next()}" for i in range(SLOTS)]
    return ("\n".join(lines) + "\n").encode()


def lines_of(content):
    return content.decode().split("\n")[:-1] if content.endswith(b"\n") else None


def join_lines(lines):
    return ("\n".join(lines) + "\n").encode()


def token_of(line):
    return line.rsplit(" ", 1)[-1]


class Op:
    """One line of one file changed by one write: `old` replaced by `new`, or (`old` None)
    `new` appended after `after`. Reversible: `new` holds a token nobody else writes."""

    def __init__(self, path, old, new, after=None):
        self.path, self.old, self.new, self.after = path, old, new, after

    def forward(self, content):
        lines = lines_of(content)
        if self.old is None:
            return join_lines(lines + [self.new])
        return join_lines([self.new if x == self.old else x for x in lines])

    def reverse(self, content):
        """The content this op was applied to, or None if `new` is not there exactly once."""
        lines = lines_of(content)
        if lines is None or lines.count(self.new) != 1:
            return None
        if self.old is None:
            lines.remove(self.new)
        else:
            lines[lines.index(self.new)] = self.old
        return join_lines(lines)


def choose_op(path, content, token, rng):
    """A slot or note line replaced, or a note appended (up to MAX_NOTES); None for a file
    that is not whole (torn by an in-place save under way)."""
    lines = lines_of(content)
    if not lines or not lines[0].startswith("# "):
        return None
    editable = [x for x in lines if x.startswith(("slot ", "note "))]
    notes = sum(1 for x in lines if x.startswith("note "))
    if notes < MAX_NOTES and rng.random() < 0.3:
        return Op(path, None, f"note {token}", after=lines[-1])
    old = rng.choice(editable)
    return Op(path, old, old.rsplit(" ", 1)[0] + " " + token)


def patch_text(ops):
    out = ["*** Begin Patch"]
    for op in ops:
        out += [f"*** Update File: {op.path}", "@@"]
        out += [f" {op.after}", f"+{op.new}"] if op.old is None else [f"-{op.old}", f"+{op.new}"]
    out.append("*** End Patch")
    return ("\n".join(out) + "\n").encode()


def read_file(root, path):
    try:
        with open(os.path.join(root, path), "rb") as f:
            return f.read()
    except OSError:
        return None


def snapshot(root):
    return {p: read_file(root, p) for p in FILES}


# --- the editor -------------------------------------------------------------------------------

class Editor(threading.Thread):
    """Saves files as an editor does — by rename (renameat2 RENAME_EXCHANGE, so it learns what
    it replaced), in place over the same bytes' length, in place after truncating (two visible
    steps), in place keeping the file's modification time (as `cp -p` or `rsync -t` do), or into
    a descriptor it has held open since the round began — at random moments and when a paused
    lancet writer asks. Each save is a list of steps (replaced hash, new hash, in
    the tree after the step)."""

    KINDS = ["rename", "in_place", "truncate", "keep_mtime"]

    def __init__(self, ctx, rnd, rng):
        super().__init__(daemon=True)
        self.ctx, self.rnd, self.rng = ctx, rnd, rng
        self.requests = queue.Queue()
        self.held = {}
        self.stopping = threading.Event()
        for p in FILES:
            try:
                self.held[p] = os.open(os.path.join(ctx.root, p), os.O_RDWR)
            except OSError:
                pass
        count = rng.choice([0, 1, 1, 2, 3])
        self.schedule = sorted(rng.uniform(0, 0.35) for _ in range(count))

    def ask(self, path, kinds, seam):
        """Saves now, one of each kind, while a lancet writer waits at `seam`; returns when they
        are done."""
        for kind in kinds:
            done = threading.Event()
            self.requests.put((path, kind, seam, done))
            done.wait(30)

    def stop(self):
        self.stopping.set()
        self.join(30)
        for fd in self.held.values():
            os.close(fd)

    def run(self):
        start = time.time()
        while True:
            timeout = 0.01
            if self.schedule:
                timeout = max(0.0, min(timeout, start + self.schedule[0] - time.time()))
            try:
                path, kind, seam, done = self.requests.get(timeout=timeout)
                self.save(path, kind, seam)
                done.set()
                continue
            except queue.Empty:
                pass
            if self.schedule and time.time() >= start + self.schedule[0]:
                self.schedule.pop(0)
                self.save(self.rng.choice(FILES), self.rng.choice(self.KINDS), None)
            elif self.stopping.is_set() and not self.schedule and self.requests.empty():
                return

    def new_content(self, path, content, may_grow):
        """A slot or note line rewritten (the same length), or by rename a note added."""
        op = choose_op(path, content, self.ctx.tokens.next(), self.rng)
        if op is not None and op.old is None and not may_grow:
            old = self.rng.choice([x for x in lines_of(content) if x.startswith(("slot ", "note "))])
            op = Op(path, old, old.rsplit(" ", 1)[0] + " " + self.ctx.tokens.next())
        return (op, op.forward(content)) if op else (None, None)

    def save(self, path, kind, seam):
        full = os.path.join(self.ctx.root, path)
        record = {"path": path, "kind": kind, "seam": seam, "steps": [], "round": self.rnd}
        try:
            if kind == "rename":
                self.save_by_rename(full, path, record)
            elif kind == "held":
                self.save_in_place(self.held.get(path), full, path, record, truncate=False)
            else:
                fd = os.open(full, os.O_RDWR)
                try:
                    kept = os.fstat(fd)
                    self.save_in_place(fd, full, path, record, truncate=kind == "truncate")
                    if kind == "keep_mtime":
                        # As `cp -p`, `rsync -t` or `touch -r` leave it: same size, same time.
                        os.utime(fd, ns=(kept.st_atime_ns, kept.st_mtime_ns))
                finally:
                    os.close(fd)
        except OSError as e:
            record["skipped"] = f"{type(e).__name__}: {e}"
        if record["steps"]:
            self.ctx.note_editor_save(record)

    def save_by_rename(self, full, path, record):
        content = read_file(self.ctx.root, path)
        op, new = self.new_content(path, content or b"", True)
        if op is None:
            record["skipped"] = "not whole"
            return
        temp = os.path.join(os.path.dirname(full), f".editor-{os.path.basename(full)}.swp")
        with open(temp, "wb") as f:
            f.write(new)
        rc = LIBC.renameat2(AT_FDCWD, temp.encode(), AT_FDCWD, full.encode(), RENAME_EXCHANGE)
        if rc != 0:
            os.remove(temp)
            raise OSError(ctypes.get_errno(), "renameat2")
        with open(temp, "rb") as f:
            out = f.read()
        os.remove(temp)
        self.ctx.remember(out)
        self.ctx.remember(new)
        record["op"] = op
        record["steps"].append((sha(out), sha(new), True))

    def save_in_place(self, fd, full, path, record, truncate):
        if fd is None:
            record["skipped"] = "no descriptor"
            return
        st = os.fstat(fd)
        if st.st_nlink == 0:
            record["skipped"] = "its file was deleted"
            return
        old = os.pread(fd, 1 << 20, 0)
        if not self.in_tree(fd, full):
            # Where the file is now that it has left the tree (lancet's pre-image, or temp).
            record["names"] = [os.path.relpath(os.path.join(d, n), self.ctx.root)
                               for d, _, names in os.walk(self.ctx.root) for n in names
                               if os.lstat(os.path.join(d, n)).st_ino == st.st_ino]
        op, new = self.new_content(path, old, False)
        if op is None:
            record["skipped"] = "not whole"
            return
        self.ctx.remember(old)
        self.ctx.remember(new)
        self.ctx.remember(b"")
        record["op"] = op
        record["inode"] = st.st_ino
        if truncate:
            os.ftruncate(fd, 0)
            record["steps"].append((sha(old), sha(b""), self.in_tree(fd, full)))
            os.pwrite(fd, new, 0)
            record["steps"].append((sha(b""), sha(new), self.in_tree(fd, full)))
        else:
            os.pwrite(fd, new, 0)
            if len(new) < len(old):
                os.ftruncate(fd, len(new))
            record["steps"].append((sha(old), sha(new), self.in_tree(fd, full)))

    @staticmethod
    def in_tree(fd, full):
        try:
            return os.stat(full).st_ino == os.fstat(fd).st_ino
        except OSError:
            return False


# --- MCP ----------------------------------------------------------------------------------------

class Mcp:
    """`lancet mcp -C root`, spoken to in raw JSON-RPC over stdio."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.proc = subprocess.Popen([ctx.lancet, "mcp", "-C", ctx.root], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=ctx.env, start_new_session=True)
        self.next_id = 0
        self.buffer = b""
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "torture", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params, timeout=60):
        """The answer's result, or None when the server died (killed) before answering."""
        self.next_id += 1
        try:
            self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        except (BrokenPipeError, OSError):
            return None
        deadline = time.time() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                message = json.loads(line)
                if message.get("id") == self.next_id:
                    return message.get("result", {"error": message.get("error")})
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError(f"lancet mcp did not answer {method} in {timeout} s")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return None
                self.buffer += chunk

    def call(self, tool, arguments):
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait()

    def alive(self):
        return self.proc.poll() is None


# --- the run ------------------------------------------------------------------------------------

class Context:
    def __init__(self, lancet, base, seed):
        self.lancet = lancet
        self.base = base
        self.root = os.path.join(base, "root")
        self.tokens = Tokens(seed)
        self.lock = threading.Lock()
        self.contents = {}          # hash -> bytes, every version seen
        self.attempts = []          # this round's lancet writes
        self.editor_saves = []      # this round's editor saves
        self.seen_ids = set()       # checkpoints already judged
        self.newest = {}            # path -> (id, after hash): the newest live batch
        self.violations = []
        self.procs = set()          # lancet writers started (stopped if the run is)
        self.figures = Counter()
        self.env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(base, "config"),
                        XDG_DATA_HOME=os.path.join(base, "data"))
        self.env.pop("LANCET_PAUSE_AT", None)
        self.env.pop("LANCET_FAILPOINT", None)

    def remember(self, content):
        if content is not None:
            with self.lock:
                self.contents[sha(content)] = content

    def note_attempt(self, attempt):
        with self.lock:
            self.attempts.append(attempt)

    def note_editor_save(self, record):
        with self.lock:
            self.editor_saves.append(record)

    def run(self, args, stdin=b"", timeout=60):
        return subprocess.run([self.lancet, *args, "-C", self.root], input=stdin,
                              capture_output=True, env=self.env, timeout=timeout)


def make_tree(ctx):
    os.makedirs(ctx.root)
    for p in FILES:
        full = os.path.join(ctx.root, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        content = initial(p, ctx.tokens)
        with open(full, "wb") as f:
            f.write(content)
        ctx.remember(content)


def report_of(stdout):
    try:
        return json.loads(stdout)
    except (ValueError, TypeError):
        return None


def refusal_kind(report):
    """The kind a refused report names: the batch's, else its first failed file's."""
    if not report:
        return "unparsable"
    if report.get("error") and report["error"].get("kind"):
        return report["error"]["kind"]
    for f in report.get("files") or []:
        if f.get("kind"):
            return f["kind"]
        for h in f.get("hunks") or []:
            if h.get("status") not in (None, "applied", "already_applied"):
                return h.get("kind") or "not_located"
    return report.get("status", "unknown")


def cli_writer(ctx, rnd, w, rng, editor):
    """One `lancet apply` of one or two line changes; killed, paused or left alone."""
    time.sleep(rng.uniform(0, 0.15))
    paths = rng.sample(FILES, 2 if rng.random() < 0.15 else 1)
    mode = rng.choices(["expect", "base", "plain"], [35, 25, 40])[0]
    attempt = {"actor": f"cli{w}", "mode": mode, "ops": [], "base": {}, "round": rnd}
    # Some run tests that fail: the batch is written, then taken back.
    flags = ["--test", "exit 1"] if rng.random() < 0.1 else []
    for p in paths:
        if mode == "base":
            out = ctx.run(["read", "--json", p])
            read = report_of(out.stdout)
            if out.returncode != 0 or not read:
                return
            content = join_lines([x["text"] for x in read["lines"]]) if read["lines"] else b""
            if sha(content) != read["sha256"]:
                return
            flags += ["--base", f"{p}={read['sha256']}"]
        else:
            content = read_file(ctx.root, p)
            if mode == "expect":
                flags += ["--expect", f"{p}={sha(content)}"]
        op = choose_op(p, content, ctx.tokens.next(), rng)
        if op is None:
            return
        ctx.remember(content)
        attempt["base"][p] = sha(content)
        attempt["ops"].append(op)
    env = dict(ctx.env)
    pause = os.path.join(ctx.base, f"pause-{rnd}-{w}")
    # The plan: paused at a seam (the editor may save then) and killed there, or let go; killed
    # after a random delay; paused, let go and crashed (abort, as kill -9 leaves it) at a later
    # seam; or left alone.
    plan = rng.random()
    seam = None
    if plan < 0.45 or 0.55 <= plan < 0.65:
        seam = rng.choice(SEAMS[:-1] if plan >= 0.55 else SEAMS)
        env.update(LANCET_PAUSE_AT=seam, LANCET_PAUSE_FILE=pause)
    if 0.55 <= plan < 0.65:
        crash = rng.choice(SEAMS[SEAMS.index(seam) + 1:])
        env.update(LANCET_FAILPOINT=f"crash:{crash}:1")
        attempt["crash"] = crash
    kill = plan < 0.15 or (0.45 <= plan < 0.55)
    proc = subprocess.Popen([ctx.lancet, "apply", "--json", *flags, "-C", ctx.root],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    ctx.procs.add(proc)
    proc.stdin.write(patch_text(attempt["ops"]))
    proc.stdin.close()
    how = "ran"
    if seam:
        deadline = time.time() + 20
        while not os.path.exists(pause) and proc.poll() is None and time.time() < deadline:
            time.sleep(0.001)
        if os.path.exists(pause):
            how = f"paused at {seam}"
            if rng.random() < 0.75:
                compared = seam not in UNCOMPARED
                kinds = Editor.KINDS + (["held"] * 2 if compared else [])
                # Sometimes two at once: in place into the file held open, and by rename.
                chosen = ["held", "rename"] if compared and rng.random() < 0.2 else \
                    [rng.choice(kinds)]
                editor.ask(rng.choice(paths), chosen, seam)
                how += f", editor saved ({' and '.join(chosen)})"
                ctx.figures["editor saves at a seam"] += len(chosen)
            if not kill:
                time.sleep(rng.uniform(0, 0.02))
                os.remove(pause)
    elif kill:
        time.sleep(rng.uniform(0, 0.15))
    if kill and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        how += ", killed"
        attempt["killed"] = True
    try:
        stdout = proc.stdout.read()
        proc.wait(timeout=60)
        if attempt.get("crash") and proc.returncode == -signal.SIGABRT:
            how += f", crashed at {attempt['crash']}"
            attempt["killed"] = True
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        ctx.violations.append(f"round {rnd}: cli{w} hung ({how})")
        return
    if os.path.exists(pause):
        os.remove(pause)
    attempt["how"] = how
    settle(ctx, attempt, report_of(stdout) if not attempt.get("killed") else None)


def settle(ctx, attempt, report):
    """Records a write's outcome from its report (None: it was killed)."""
    if attempt.get("killed"):
        attempt["status"] = "killed"
    elif report is None:
        attempt["status"] = "unparsable"
    else:
        attempt["status"] = report.get("status")
        attempt["checkpoint"] = report.get("checkpoint")
        if attempt["status"] != "applied":
            attempt["kind"] = refusal_kind(report)
            attempt["message"] = report.get("message", "")
            # A batch taken back after its tests failed leaves a path someone saved meanwhile
            # as it is, names it (in words only), and stays in the log.
            attempt["left_alone"] = set(re.findall(r"^- (\S+): changed after the batch wrote it",
                                                   attempt["message"], re.M))

    ctx.note_attempt(attempt)


def mcp_actor(ctx, rnd, j, rng):
    """One or two writes by MCP session j: read_file, then write_file, edit or apply_patch."""
    for _ in range(rng.choice([1, 1, 2])):
        time.sleep(rng.uniform(0, 0.12))
        session = ctx.sessions[j]
        if session is None or not session.alive():
            session = ctx.sessions[j] = Mcp(ctx)
        p = rng.choice(FILES)
        read = session.call("read_file", {"path": p})
        if not read or read.get("isError"):
            continue
        lines = read["structuredContent"]["lines"]
        content = join_lines([x["text"] for x in lines]) if lines else b""
        if sha(content) != read["structuredContent"]["sha256"]:
            continue
        op = choose_op(p, content, ctx.tokens.next(), rng)
        if op is None:
            continue
        ctx.remember(content)
        tool = rng.choices(["write_file", "edit", "apply_patch"], [45, 40, 15])[0]
        if tool == "write_file":
            args = {"path": p, "content": op.forward(content).decode()}
        elif tool == "edit":
            old = op.after if op.old is None else op.old
            new = f"{op.after}\n{op.new}" if op.old is None else op.new
            args = {"path": p, "old_string": old, "new_string": new}
        else:
            args = {"text": patch_text([op]).decode()}
        attempt = {"actor": f"mcp{j}", "mode": tool, "ops": [op], "base": {p: sha(content)},
                   "round": rnd}
        killer = None
        if rng.random() < 0.05:
            killer = threading.Timer(rng.uniform(0, 0.08), session.kill)
            killer.start()
        answer = session.call(tool, args)
        if killer:
            killer.cancel()
        if answer is None:
            attempt["killed"] = True
            attempt["how"] = "server killed"
            session.kill()
            settle(ctx, attempt, None)
            continue
        if killer and not session.alive():
            attempt["how"] = "server killed after answering"
        report = answer.get("structuredContent")
        if not report and answer.get("isError"):
            # A refusal in words only (edit: the file changed and the text is not there).
            report = {"status": "refused", "error": {"kind": "words only"}}
        settle(ctx, attempt, report)


def new_checkpoints(ctx):
    """The live checkpoints not judged yet, oldest first, each with its before/after blobs per
    path read from the checkpoint repository."""
    out = ctx.run(["log", "--json"])
    entries = [e for e in json.loads(out.stdout or b"[]") if e["id"] not in ctx.seen_ids]
    entries.reverse()
    git_dir = os.path.join(ctx.root, ".lancet", "git")
    queries = []
    for e in entries:
        for f in e["files"]:
            queries += [f"{e['commit']}^:{f['path']}", f"{e['commit']}:{f['path']}"]
    blobs = {}
    if queries:
        proc = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                              input=("\n".join(queries) + "\n").encode(), capture_output=True)
        data, i = proc.stdout, 0
        for q in queries:
            nl = data.index(b"\n", i)
            header = data[i:nl].split()
            i = nl + 1
            if header[-1] == b"missing":
                blobs[q] = None
                continue
            size = int(header[2])
            blobs[q] = data[i:i + size]
            i += size + 1
    for e in entries:
        ctx.seen_ids.add(e["id"])
        e["images"] = {}
        for f in e["files"]:
            before = blobs[f"{e['commit']}^:{f['path']}"]
            after = blobs[f"{e['commit']}:{f['path']}"]
            ctx.remember(before)
            ctx.remember(after)
            e["images"][f["path"]] = (before, after)
    return entries


def strays(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        if os.path.join(".lancet", "git") in dirpath:
            continue
        found += [os.path.join(dirpath, n) for n in filenames
                  if n.startswith((".lancet-", ".editor-"))]
    state = os.path.join(root, ".lancet")
    pre = os.path.join(state, "pre")
    if os.path.isdir(pre):
        found += [os.path.join(pre, n) for n in os.listdir(pre)]
    for name in ("journal.json", "journal.json.tmp", "journal.rejected", "journal.damaged"):
        if os.path.exists(os.path.join(state, name)):
            found.append(os.path.join(state, name))
    return found


def batch_writer(e, attempts):
    """The attempt whose batch a checkpoint is: each of its lines new in the after-image of
    its path (absent from the before-image), on exactly the checkpoint's paths."""
    def new_in(op):
        before, after = e["images"].get(op.path, (None, None))
        return op.new in (lines_of(after or b"") or []) and \
            op.new not in (lines_of(before or b"") or [])
    found = [a for a in attempts if a["ops"] and {op.path for op in a["ops"]} == set(e["images"])
             and all(new_in(op) for op in a["ops"])]
    return found[0] if len(found) == 1 else None


def judge_round(ctx, rnd, start, end, entries):
    """The oracle (see the module docs): returns the round's violations."""
    problems = []
    live = [e for e in entries if not e.get("undone")]
    for e in live:
        e["attempt"] = batch_writer(e, ctx.attempts)
        if e["attempt"] is None:
            problems.append(f"checkpoint {e['id']} ({e['summary']}) is no single writer's batch")
        elif e["attempt"]["status"] == "killed":
            ctx.figures["killed after their commit point"] += 1
    standing = {id(e["attempt"]): e for e in live if e["attempt"] is not None}
    for a in ctx.attempts:
        ctx.figures[f"writes by {'MCP' if a['actor'].startswith('mcp') else 'CLI'}"] += 1
        e = standing.get(id(a))
        if a["status"] == "applied":
            if e is None or e["id"] != a.get("checkpoint"):
                problems.append(f"{a['actor']} reported applied (checkpoint "
                                f"{a.get('checkpoint')}) but no live checkpoint is its batch")
                continue
            ctx.figures["applied"] += 1
            rebased = False
            for op in a["ops"]:
                before, after = e["images"][op.path]
                if before is None or after is None or op.reverse(after) != before:
                    problems.append(f"{a['actor']} ({a['mode']}): checkpoint {e['id']} of "
                                    f"{op.path} is not its edit applied to its before-image")
                if a["mode"] == "expect" and sha(before or b"") != a["base"][op.path]:
                    problems.append(f"{a['actor']} --expect {op.path}={short(a['base'][op.path])}"
                                    f" applied over {short(sha(before or b''))}")
                rebased |= a["mode"] != "plain" and sha(before or b"") != a["base"][op.path]
            ctx.figures["rebased"] += rebased
        elif a["status"] == "killed":
            ctx.figures["killed"] += 1
        else:
            kind = a.get("kind")
            ctx.figures[a["status"] if kind == a["status"] else f"{a['status']} {kind}"] += 1
            if e is not None and a["left_alone"]:
                ctx.figures["taken back but for paths saved meanwhile (kept in the log)"] += 1
            elif e is not None:
                problems.append(f"{a['actor']} reported {a['status']} ({a.get('kind')}) but its "
                                f"batch stands in the log ({e['id']})")
    for s in ctx.editor_saves:
        ctx.figures["editor saves"] += 1
        ctx.figures[f"editor saves, {s['kind']}"] += 1
    for path in FILES:
        problems += judge_path(ctx, path, start[path], end[path], live, standing)
    return [f"round {rnd}: {p}" for p in problems]


def judge_path(ctx, path, start, end, live, standing):
    """The balance of one file's versions over a round, and the log against the tree."""
    problems = []
    stood, replaced = Counter(), Counter()
    stood[sha(start)] += 1
    who = {sha(start): "the round's start"}
    batches = [e for e in live if path in e["images"] and e["attempt"] is not None]
    for e in batches:
        before, after = e["images"][path]
        replaced[sha(before or b"")] += 1
        stood[sha(after or b"")] += 1
        who[sha(after or b"")] = f"checkpoint {e['id']} ({e['attempt']['actor']})"
        if e["attempt"].get("left_alone") and path not in e["attempt"]["left_alone"]:
            # Taken back: the rollback judged the batch's content and put the pre-image back.
            replaced[sha(after or b"")] += 1
            stood[sha(before or b"")] += 1
    saves = [s for s in ctx.editor_saves if s["path"] == path]
    aside = []
    for s in saves:
        if all(in_tree for _, _, in_tree in s["steps"]):
            for old, new, _ in s["steps"]:
                replaced[old] += 1
                stood[new] += 1
                who[new] = f"editor save ({s['kind']}{', at ' + s['seam'] if s['seam'] else ''})"
        else:
            aside.append(s)
    # A save that landed in a file lancet had taken out of the tree counts where it was found
    # again (lancet put that file back, or a later write judged it); strict where the editor
    # wrote it while lancet was paused before its last comparison.
    # Found again: a later write judged it, or it is the file at the end (a chain of such saves
    # is found from its end, so this runs until nothing more is found).
    pending = list(aside)
    found = True
    while found:
        found = [s for s in pending if replaced[s["steps"][-1][1]] > 0
                 or sha(end) == s["steps"][-1][1]]
        for s in found:
            pending.remove(s)
            ctx.figures["editor saves into a replaced file, found again"] += 1
            for old, new, _ in s["steps"]:
                replaced[old] += 1
                stood[new] += 1
                who[new] = f"editor save ({s['kind']}) into a replaced file"
    for s in aside:
        ctx.figures["editor saves into a replaced file" + (", strict" if strict(s) else "")] += 1
    kept = kept_files(ctx.root)
    for s in pending:
        # The editor's own next save of the file, in the tree, replaces it whatever lancet did.
        later = saves[saves.index(s) + 1:]
        if any(all(t for _, _, t in x["steps"]) for x in later):
            ctx.figures["editor saves into a replaced file, superseded by its next save"] += 1
        elif kept.get(s.get("inode")) == s["steps"][-1][1]:
            # Another save took the path meanwhile: lancet kept this one in <state>/kept/.
            ctx.figures["editor saves into a replaced file, kept in <state>/kept/"] += 1
        elif strict(s):
            problems.append(f"{path}: the editor's save ({s['kind']}) into the file lancet had "
                            f"replaced, written while lancet was paused at {s['seam']}, is lost "
                            f"({short(s['steps'][-1][1])})")
            ctx.figures["lost"] += 1
        else:
            ctx.figures["editor saves into a replaced file after lancet's last comparison"] += 1
    # Lancet's excursions the editor interrupted: the content of a write that does not stand,
    # taken out of the tree by an editor save. Its before-image is its edit reversed.
    for h in [h for h in replaced if stood[h] == 0]:
        a, op, before = excursion_of(ctx.contents.get(h), path, ctx.attempts, standing, stood)
        if a is None:
            problems.append(f"{path}: version {short(h)} was replaced but no writer wrote it "
                            f"whole (torn, or unknown)")
            ctx.figures["torn"] += 1
            continue
        stood[h] += replaced[h]
        replaced[sha(before)] += replaced[h]
        who[h] = f"{a['actor']}'s batch in flight ({a.get('how', a['status'])})"
    final = sha(end) if end is not None else None
    if final not in stood:
        problems.append(f"{path}: the file at the end ({short(final)}) is no version any writer "
                        f"wrote whole, or a write that does not stand")
        ctx.figures["torn"] += 1
    for h in set(stood) | set(replaced) | {final}:
        balance = stood[h] - replaced[h] - (1 if h == final else 0)
        if balance > 0:
            problems.append(f"{path}: {who.get(h, short(h))} ({short(h)}) was overwritten by a "
                            f"write that did not judge it (lost update)")
            ctx.figures["lost"] += 1
        elif balance < 0:
            problems.append(f"{path}: {short(h)} ({who.get(h, '?')}) was judged by {-balance} "
                            f"more write(s) than it stood for: a write replaced bytes it did not "
                            f"judge")
            ctx.figures["lost"] += 1
    # The log against the tree: the newest live batch's after-image is the file now, unless an
    # editor save took it out since.
    if batches:
        e = batches[-1]
        ctx.newest[path] = [e["id"], sha(e["images"][path][1] or b""), False]
    if path in ctx.newest:
        newest = ctx.newest[path]
        newest[2] |= replaced[newest[1]] > 0
        if newest[1] != final and not newest[2]:
            problems.append(f"{path}: the log's newest live batch {newest[0]} wrote "
                            f"{short(newest[1])}, the file is {short(final)}, and no save took "
                            f"it out")
    return problems


def kept_files(root):
    """The files lancet kept aside (`<state>/kept/`): inode -> content hash."""
    kept = os.path.join(root, ".lancet", "kept")
    out = {}
    for dirpath, _, names in os.walk(kept):
        for n in names:
            full = os.path.join(dirpath, n)
            out[os.lstat(full).st_ino] = sha(read_file(dirpath, n) or b"")
    return out


def strict(save):
    """Whether a save into a file lancet had taken out of the tree must be found again: written
    while the batch that took it out (its pre-image or temp name holds it) was paused before its
    last comparison. A file kept aside earlier (the pre-image a recovery kept in kept/ when
    someone had saved over the batch) left the tree for good."""
    in_flight = any(n.startswith(".lancet/pre/") or os.path.basename(n).startswith(".lancet-")
                    for n in save.get("names", []))
    return in_flight and save["seam"] is not None and save["seam"] not in UNCOMPARED


def excursion_of(content, path, attempts, standing, stood):
    """The write (not standing) whose in-flight content this is, its op on `path` and the
    before-image that op reverses to (preferring one that stood)."""
    found = []
    for a in attempts:
        if id(a) in standing:
            continue
        for op in a["ops"]:
            before = op.reverse(content) if content is not None and op.path == path else None
            if before is not None:
                found.append((sha(before) not in stood, a, op, before))
    if not found:
        return None, None, None
    found.sort(key=lambda x: x[0])
    return found[0][1:]


def run_round(ctx, rnd, rng, writers):
    ctx.attempts, ctx.editor_saves = [], []
    start = snapshot(ctx.root)
    editor = Editor(ctx, rnd, random.Random(rng.random()))
    editor.start()
    threads = [threading.Thread(target=cli_writer,
                                args=(ctx, rnd, w, random.Random(rng.random()), editor))
               for w in range(writers)]
    threads += [threading.Thread(target=mcp_actor, args=(ctx, rnd, j, random.Random(rng.random())))
                for j in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        if t.is_alive():
            ctx.violations.append(f"round {rnd}: a writer did not finish in 120 s")
    editor.stop()
    problems = []
    rec = ctx.run(["recover", "--json"])
    recovered = report_of(rec.stdout) or {}
    # Exit 1 with the paths someone else changed left alone is recovery doing its job.
    if rec.returncode != 0 and not (rec.returncode == 1 and recovered.get("status") == "refused"
                                    and "left alone" in recovered.get("message", "")):
        problems.append(f"round {rnd}: lancet recover exited {rec.returncode}: "
                        f"{rec.stdout.decode()[:300]}")
    left = strays(ctx.root)
    if left:
        problems.append(f"round {rnd}: stray files after recover: {left}")
    end = snapshot(ctx.root)
    for content in end.values():
        ctx.remember(content)
    entries = new_checkpoints(ctx)
    problems += judge_round(ctx, rnd, start, end, entries)
    ctx.figures["rounds"] += 1
    if problems and ctx.verbose:
        dump_round(ctx, start, end, entries, rec.stdout.decode())
    return problems


def dump_round(ctx, start, end, entries, recovered):
    """What happened in a round, for a person reading a violation."""
    print("  start:", {p: short(sha(c or b"")) for p, c in start.items()})
    for a in ctx.attempts:
        ops = "; ".join(f"{op.path} {token_of(op.old) if op.old else '+'}->{token_of(op.new)}"
                        for op in a["ops"])
        print(f"  {a['actor']} {a['mode']} base {[short(h) for h in a['base'].values()]} "
              f"[{ops}] {a['status']} {a.get('kind') or ''} {a.get('checkpoint') or ''} "
              f"{a.get('how', '')}")
        if a.get("message") and a["status"] not in ("refused", "test_failed"):
            print("    " + a["message"].replace("\n", "\n    ")[:600])
    for sv in ctx.editor_saves:
        steps = ", ".join(f"{short(o)}->{short(n)}{'' if t else ' (aside)'}"
                          for o, n, t in sv["steps"])
        print(f"  editor {sv['kind']} {sv['path']} at {sv['seam']}: {steps} "
              f"{token_of(sv['op'].new)} {sv.get('names', '')}")
    for e in entries:
        print(f"  checkpoint {e['id']}: " + ", ".join(
            f"{p} {short(sha(b or b''))}->{short(sha(a or b''))}"
            for p, (b, a) in e["images"].items()))
    print("  recover:", recovered.strip()[:400])
    print("  end:", {p: short(sha(c or b"")) for p, c in end.items()})


def final_check(ctx):
    """Locks free after every kill: `lancet recover`, then an apply, succeed."""
    problems = []
    rec = ctx.run(["recover"])
    if rec.returncode != 0:
        problems.append(f"final recover exited {rec.returncode}: {rec.stdout.decode()[:300]}")
    content = read_file(ctx.root, FILES[0])
    op = choose_op(FILES[0], content, ctx.tokens.next(), random.Random(0))
    started = time.time()
    out = ctx.run(["apply", "--json", "--expect", f"{FILES[0]}={sha(content)}"], patch_text([op]))
    ctx.figures["final apply ms"] = int((time.time() - started) * 1000)
    if out.returncode != 0:
        problems.append(f"final apply exited {out.returncode}: {out.stdout.decode()[:300]}")
    elif read_file(ctx.root, FILES[0]) != op.forward(content):
        problems.append("final apply reported applied but the file is not its edit")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lancet")
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--verbose", action="store_true", help="print a round with a violation")
    args = ap.parse_args()
    base = tempfile.mkdtemp(prefix="lancet-torture-")
    ctx = Context(os.path.abspath(args.lancet), base, args.seed)
    ctx.verbose = args.verbose
    make_tree(ctx)
    ctx.sessions = [None, None]
    rng = random.Random(args.seed)
    started = time.time()
    try:
        for rnd in range(args.rounds):
            problems = run_round(ctx, rnd, rng, args.writers)
            ctx.violations += problems
            if problems:
                for p in problems:
                    print("VIOLATION", p, flush=True)
        ctx.violations += final_check(ctx)
    finally:
        for s in ctx.sessions:
            if s is not None:
                s.kill()
        for proc in ctx.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        shutil.rmtree(base, ignore_errors=True)
    f = ctx.figures
    print(f"torture: {args.rounds} rounds in {time.time() - started:.0f} s (seed {args.seed}), "
          f"{args.writers} CLI writers + 2 MCP sessions + 1 editor")
    for k in sorted(f):
        print(f"  {k}: {f[k]}")
    print(f"writes applied {f['applied']}, refused stale {f['refused stale']}, rebased "
          f"{f['rebased']}, killed {f['killed']}; editor saves {f['editor saves']}; "
          f"lost {f['lost']}, torn {f['torn']}")
    for v in ctx.violations[:40]:
        print("VIOLATION", v)
    failed = {v.split(":")[0] for v in ctx.violations if v.startswith("round ")}
    print(f"{args.rounds - len(failed)} of {args.rounds} rounds held")
    sys.exit(1 if ctx.violations else 0)


if __name__ == "__main__":
    main()

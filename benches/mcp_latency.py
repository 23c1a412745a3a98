#!/usr/bin/env python3
"""One small edit over MCP: lancet's `edit` against the reference filesystem server's
`edit_file` (@modelcontextprotocol/server-filesystem), and a 20-file `apply_patch` against 20
`edit_file` calls, measured in the same run, pair by pair (A B A B ...), medians of the
per-pair ratios (issue #42's latency bars: one edit <= 2.0x, the 20-file patch <= 1.0x).

Both servers run for the whole benchmark, each over its own copy of one 200-file git
repository (lancet with its defaults: syntax gate, checkpoint, journal, fsync; the filesystem
server writes the file and nothing else), driven by the same raw JSON-RPC client over stdio,
each call timed from the request written to its response read. Each timed edit is taken back
by the next (x = 1 -> x = 2 -> x = 1), so every call does the same work.

usage: mcp_latency.py [LANCET] [-n PAIRS] [--server-dir DIR]
The filesystem server is installed (pinned) under --server-dir at first use (npm).
Python 3 standard library only; needs git, node and npm.
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

FS_SERVER = "@modelcontextprotocol/server-filesystem@2026.8.31"
BARS = {"edit": 2.0, "patch-20": 1.0}


class Client:
    """A JSON-RPC client over a server's stdio: one request in flight at a time."""

    def __init__(self, argv, cwd):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.next_id = 0
        self.call_raw("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def call_raw(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"server ended while answering {method}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise SystemExit(f"{method}: {reply['error']}")
                return reply["result"]

    def tool(self, name, arguments):
        """Calls a tool; returns the seconds it took. A tool error stops the benchmark."""
        start = time.perf_counter()
        result = self.call_raw("tools/call", {"name": name, "arguments": arguments})
        took = time.perf_counter() - start
        if result.get("isError"):
            raise SystemExit(f"{name} failed: {result['content'][0]['text'][:400]}")
        return took

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def make_repo(path):
    path.mkdir(parents=True)
    for i in range(200):
        (path / f"m{i:03}.py").write_text(f'"""Module {i}."""\n\nx = 1\n\n\ndef f{i}(a):\n    return a + x\n')
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "start"]):
        subprocess.run(["git", *args], cwd=path, check=True)


def fs_server(server_dir):
    main = server_dir / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
    if not main.exists():
        subprocess.run(["npm", "install", "--prefix", str(server_dir), "--cache", str(server_dir / ".npm"),
                        "--no-audit", "--no-fund", "--silent", FS_SERVER], check=True)
    return main


def patch(files, old, new):
    ops = "".join(f"*** Update File: {f}\n@@\n-x = {old}\n+x = {new}\n" for f in files)
    return f"*** Begin Patch\n{ops}*** End Patch\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lancet", nargs="?", default="target/release/lancet")
    ap.add_argument("-n", type=int, default=200, help="pairs per row (default 200)")
    ap.add_argument("--server-dir", default=str(pathlib.Path.home() / ".cache" / "lancet-bench" / "mcp-fs"))
    args = ap.parse_args()
    lancet = os.path.abspath(args.lancet)
    main_js = fs_server(pathlib.Path(args.server_dir))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        make_repo(tmp / "lancet")
        shutil.copytree(tmp / "lancet", tmp / "fs")
        ours = Client([lancet, "mcp"], tmp / "lancet")
        peer = Client(["node", str(main_js), str(tmp / "fs")], tmp / "fs")
        fs = lambda f: str(tmp / "fs" / f)  # noqa: E731
        # One read each first (lancet's edits are judged against what the session read).
        files = [f"m{i:03}.py" for i in range(1, 21)]
        for f in ["m000.py", *files]:
            ours.tool("read_file", {"path": f})
            peer.tool("read_text_file", {"path": fs(f)})
        rows = {}
        state = 1
        pairs = []
        for i in range(args.n + 5):
            new = 2 if state == 1 else 1
            a = ours.tool("edit", {"path": "m000.py", "old_string": f"x = {state}", "new_string": f"x = {new}"})
            b = peer.tool("edit_file", {"path": fs("m000.py"), "edits": [{"oldText": f"x = {state}", "newText": f"x = {new}"}]})
            state = new
            if i >= 5:
                pairs.append((a, b))
        rows["edit"] = pairs
        pairs = []
        state = 1
        for i in range(max(args.n // 4, 10) + 2):
            new = 2 if state == 1 else 1
            a = ours.tool("apply_patch", {"text": patch(files, state, new)})
            b = sum(peer.tool("edit_file", {"path": fs(f), "edits": [{"oldText": f"x = {state}", "newText": f"x = {new}"}]})
                    for f in files)
            state = new
            if i >= 2:
                pairs.append((a, b))
        rows["patch-20"] = pairs
        ours.close()
        peer.close()
    print(f"{'row':<10} {'pairs':>5} {'lancet ms':>10} {'fs-server ms':>13} {'ratio':>6} {'bar':>5}")
    for name, pairs in rows.items():
        la = statistics.median(a for a, _ in pairs) * 1000
        pe = statistics.median(b for _, b in pairs) * 1000
        ratio = statistics.median(a / b for a, b in pairs)
        mark = "ok" if ratio <= BARS[name] else "OVER"
        print(f"{name:<10} {len(pairs):>5} {la:>10.2f} {pe:>13.2f} {ratio:>5.2f}x {BARS[name]:>4}x {mark}")


if __name__ == "__main__":
    main()

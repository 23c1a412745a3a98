#!/usr/bin/env python3
"""A fake LSP server for lancet's `rename --lsp` tests. FAKE_LSP says how it behaves:
  ok       answers initialize, prepareRename and rename; the rename's edits are FAKE_LSP_EDIT
           (a JSON WorkspaceEdit with {ROOT} replaced by the workspace root's URI)
  hang     answers initialize, then never answers again
  crash    exits at once
  null     prepareRename answers null
  huge     answers initialize with a Content-Length of 100 MB (and no body)
  orphan   starts a child in its own process group at initialize, which touches FAKE_LSP_MARKER
           after 2 s unless it is killed, then behaves as ok
  exec     tries to run {ROOT}/tool.sh before answering the rename; the edit it answers puts
           "EXECUTED" instead of the new name when that worked
  tsserver the edit puts "TSSERVER-UNDER-ROOT" instead of the new name unless the
           initializationOptions pin a tsserver.path that exists outside the root
  python   basedpyright's start: runs the Python the client's `python.pythonPath` names (asked
           by workspace/configuration), else {ROOT}/.venv/bin/python when there is one; the
           edit puts "PTH-RAN" instead of the new name when that interpreter printed PTH-RAN (a
           .pth the model wrote ran), "SHM-WRITTEN" when /dev/shm could be written, and
           "SOCKET-CONNECTED" when the Unix socket FAKE_LSP_SOCKET could be connected to
  status   rust-analyzer's loading: says quiescent false at `initialized` and true a second
           later; a rename asked before that puts "EARLY" instead of the new name (a server
           answering from a half-loaded workspace)
  definitions
           the hybrid resolver's server: answers textDocument/definition from
           FAKE_LSP_DEFINITIONS, a JSON object whose keys are "PATH:LINE:CHARACTER" (relative
           to the root, the LSP's 0-based line and UTF-16 character) and whose values are the
           answer (a Location or a list, {ROOT} replaced by the root's URI); a position it has
           no key for is answered null. It reports serverInfo version "0.0-test"; any rename,
           prepareRename or references request is answered with an error (the hybrid asks
           where each site is defined, nothing else).
In every mode, a client that asks for experimental/serverStatus (as lancet does of
rust-analyzer) is told at `initialized` that the server is quiescent (in mode status, a
second later), as rust-analyzer does once its workspace is loaded.
"""
import json
import os
import sys
import threading
import time

MODE = os.environ.get("FAKE_LSP", "ok")
# In mode loading, the first prepareRename requests are answered ContentModified, as
# rust-analyzer answers while it loads the project.
STILL_LOADING = [2]
if MODE == "crash":
    sys.exit(3)


def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length))


SENDING = threading.Lock()


def send(msg):
    body = json.dumps(msg).encode()
    with SENDING:
        sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        sys.stdout.buffer.flush()


LOADED = threading.Event()


def load_workspace():
    time.sleep(1)
    LOADED.set()
    send({"jsonrpc": "2.0", "method": "experimental/serverStatus",
          "params": {"health": "ok", "quiescent": True}})


def python_start(edit, new_name):
    """What basedpyright does at start, and what a confined server must not manage."""
    import socket
    import subprocess
    python = ((configuration or [None])[0] or {}).get("pythonPath")
    venv = root[len("file://"):] + "/.venv/bin/python"
    if not python and os.path.exists(venv):
        python = venv
    if python:
        ran = subprocess.run([python, "-c", "print('interpreter ran')"],
                             capture_output=True, text=True)
        if "PTH-RAN" in ran.stdout:
            edit = edit.replace(new_name, "PTH-RAN")
    shm = "/dev/shm/lancet-fake-lsp-%d" % os.getpid()
    try:
        with open(shm, "w"):
            pass
        os.unlink(shm)
        edit = edit.replace(new_name, "SHM-WRITTEN")
    except OSError:
        pass
    try:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(os.environ["FAKE_LSP_SOCKET"])
        edit = edit.replace(new_name, "SOCKET-CONNECTED")
    except OSError:
        pass
    return edit


root = None
init = {}
configuration = None
reports_status = False
while True:
    msg = read()
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize" and MODE == "huge":
        sys.stdout.buffer.write(b"Content-Length: 100000000\r\n\r\n")
        sys.stdout.buffer.flush()
        continue
    if method == "initialize":
        root = msg["params"]["rootUri"]
        init = msg["params"].get("initializationOptions") or {}
        experimental = msg["params"]["capabilities"].get("experimental") or {}
        reports_status = bool(experimental.get("serverStatusNotification"))
        if MODE == "orphan":
            import subprocess
            subprocess.Popen(["sh", "-c", "sleep 2; touch \"$FAKE_LSP_MARKER\""])
        # The server asks the client something first, as pyright does.
        send({"jsonrpc": "2.0", "id": 99, "method": "workspace/configuration",
              "params": {"items": [{"section": "python"}]}})
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "capabilities": {"renameProvider": True, "definitionProvider": True},
            "serverInfo": {"name": "fake", "version": "0.0-test"}}})
    elif method == "initialized" and reports_status and MODE == "status":
        send({"jsonrpc": "2.0", "method": "experimental/serverStatus",
              "params": {"health": "ok", "quiescent": False}})
        threading.Thread(target=load_workspace, daemon=True).start()
    elif method == "initialized" and reports_status:
        LOADED.set()
        send({"jsonrpc": "2.0", "method": "experimental/serverStatus",
              "params": {"health": "ok", "quiescent": True}})
    elif method is None and mid == 99:
        configuration = msg.get("result")
    elif mid is None:
        continue
    elif MODE == "hang":
        continue
    elif MODE == "definitions" and method == "textDocument/definition":
        uri = msg["params"]["textDocument"]["uri"]
        pos = msg["params"]["position"]
        key = "%s:%d:%d" % (uri[len(root) + 1:], pos["line"], pos["character"])
        answers = json.loads(os.environ["FAKE_LSP_DEFINITIONS"].replace("{ROOT}", root))
        send({"jsonrpc": "2.0", "id": mid, "result": answers.get(key)})
    elif MODE == "definitions" and method != "shutdown":
        send({"jsonrpc": "2.0", "id": mid,
              "error": {"code": -32601, "message": "the fake server answers definitions only"}})
    elif MODE == "loading" and method == "textDocument/prepareRename" and STILL_LOADING[0]:
        STILL_LOADING[0] -= 1
        send({"jsonrpc": "2.0", "id": mid,
              "error": {"code": -32801, "message": "content modified"}})
    elif method == "textDocument/prepareRename":
        send({"jsonrpc": "2.0", "id": mid,
              "result": None if MODE == "null" else msg["params"]["position"] and
              {"start": msg["params"]["position"], "end": msg["params"]["position"]}})
    elif method == "textDocument/rename":
        edit = os.environ["FAKE_LSP_EDIT"].replace("{ROOT}", root)
        new_name = msg["params"]["newName"]
        if MODE == "exec":
            import subprocess
            try:
                subprocess.run([root[len("file://"):] + "/tool.sh"], check=True)
                edit = edit.replace(new_name, "EXECUTED")
            except (OSError, subprocess.CalledProcessError):
                pass
        if MODE == "python":
            edit = python_start(edit, new_name)
        if MODE == "status" and not LOADED.is_set():
            edit = edit.replace(new_name, "EARLY")
        if MODE == "tsserver":
            pinned = (init.get("tsserver") or {}).get("path") or ""
            if not pinned or pinned.startswith(root[len("file://"):]) or not os.path.isfile(pinned):
                edit = edit.replace(new_name, "TSSERVER-UNDER-ROOT")
        send({"jsonrpc": "2.0", "id": mid, "result": json.loads(edit)})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": mid, "result": None})
    elif "id" in msg and "method" not in msg:
        continue

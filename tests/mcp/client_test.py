#!/usr/bin/env python3
"""Drive `lancet mcp` with the official Python MCP SDK's stdio client.

Usage: client_test.py LANCET

Initialises, lists the tools (names, input and output schemas, annotations; every structured
result is validated against its output schema), reads, edits, applies a multi-file patch,
provokes a no-match and an ambiguous edit, runs apply_patch with a failing test command (rolled
back), lists checkpoints, undoes, and checks read-before-edit. Prints a transcript excerpt and
"N passed, N failed" as its last line; exits non-zero on any failure.
"""
import asyncio
import json
import os
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

LANCET = os.path.abspath(sys.argv[1])
results = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    if ok:
        results["passed"] += 1
        print(f"PASS {name}")
    else:
        results["failed"] += 1
        print(f"FAIL {name}: {detail}")


def field(obj, snake, camel):
    """The SDK names fields in snake_case (2.x) or camelCase (1.x)."""
    return getattr(obj, snake, None) if hasattr(obj, snake) else getattr(obj, camel, None)


def schema(tool):
    return field(tool, "input_schema", "inputSchema") or {}


def is_error(result):
    return bool(field(result, "is_error", "isError"))


def structured(result):
    return field(result, "structured_content", "structuredContent") or {}


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


# What each tool declares: (readOnlyHint, destructiveHint, idempotentHint), and a field its
# output schema requires. destructiveHint, meaningless on a read-only tool, is None there.
ANNOTATIONS = {
    "read_file": (True, None, True, "sha256"),
    "checkpoints": (True, None, True, "checkpoints"),
    "edit": (False, True, True, "status"),
    "apply_patch": (False, True, True, "status"),
    "write_file": (False, True, True, "status"),
    "rename_symbol": (False, True, True, "status"),
    "change_signature": (False, True, False, "status"),
    "move_symbol": (False, True, False, "status"),
    "edit_lines": (False, True, False, "status"),
    "undo": (False, True, False, "status"),
}
# Structured content validated against its tool's output schema, refusals included (the SDK
# itself validates only results that are not errors).
validated = {"results": 0, "invalid": []}


def check_outputs_and_annotations(tools):
    for name, (read_only, destructive, idempotent, required) in ANNOTATIONS.items():
        tool = tools[name]
        output = field(tool, "output_schema", "outputSchema") or {}
        # read_file and checkpoints answer their own object, or a refusal's report (anyOf).
        first = (output.get("anyOf") or [output])[0]
        check(f"{name} declares an output schema (an object requiring {required})",
              output.get("type") == "object" and required in first.get("required", []), output)
        a = tool.annotations
        got = (field(a, "read_only_hint", "readOnlyHint"), field(a, "destructive_hint", "destructiveHint"),
               field(a, "idempotent_hint", "idempotentHint"), field(a, "open_world_hint", "openWorldHint"))
        want = (read_only, destructive, idempotent, False)
        check(f"{name} annotations (readOnly, destructive, idempotent, openWorld) = {want}",
              a is not None and got == want and field(a, "title", "title"), a)


def validate_every_result(session, tools):
    """Wraps the session's call_tool: every result carrying structured content is validated
    against the tool's declared output schema."""
    import jsonschema
    call = session.call_tool

    async def checked(name, arguments=None, *args, **kwargs):
        result = await call(name, arguments, *args, **kwargs)
        content = field(result, "structured_content", "structuredContent")
        output = field(tools[name], "output_schema", "outputSchema")
        if content is not None and output:
            validated["results"] += 1
            errors = list(jsonschema.Draft202012Validator(output).iter_errors(content))
            if errors:
                validated["invalid"].append((name, errors[0].message[:200]))
        return result

    session.call_tool = checked


async def run(root, log):
    params = StdioServerParameters(command=LANCET, args=["mcp", "-C", root, "--log", log,
                                                         "--test-command", "exit 1"],
                                   env=dict(os.environ))
    async with stdio_client(params) as (reader, writer):
        async with ClientSession(reader, writer) as s:
            init = await s.initialize()
            check("initialize names the server", field(init, "server_info", "serverInfo").name == "lancet", init)

            tools = {t.name: t for t in (await s.list_tools()).tools}
            expected = {"read_file", "edit", "edit_lines", "apply_patch", "write_file", "rename_symbol",
                        "change_signature", "move_symbol", "undo", "checkpoints"}
            check("tool names", set(tools) == expected, sorted(tools))
            edit_props = schema(tools["edit"]).get("properties", {})
            check("edit schema arguments",
                  {"path", "old_string", "new_string", "replace_all", "expected_replacements",
                   "expected_sha256"} <= set(edit_props), sorted(edit_props))
            check("edit schema requires path, old_string, new_string",
                  set(schema(tools["edit"]).get("required", [])) == {"path", "old_string", "new_string"},
                  schema(tools["edit"]).get("required"))
            check("schemas describe arguments for a model",
                  all(p.get("description") for t in tools.values()
                      for p in schema(t).get("properties", {}).values()),
                  {n: schema(t) for n, t in tools.items()})
            check("apply_patch schema", {"text", "operations", "format", "test"} <= set(schema(tools["apply_patch"])["properties"]))
            check_outputs_and_annotations(tools)
            try:
                r = await s.call_tool("edit", {"path": "shop.py", "old_string": "a", "new_string": "b",
                                               "test": True})
                check("an unknown argument is refused naming it and what the tool takes, nothing written",
                      is_error(r) and "Wrong arguments for edit: there is no argument `test`" in text_of(r)
                      and "old_string (a string, required)" in text_of(r), text_of(r))
            except Exception as e:  # an invalid-params protocol error
                check("an unknown argument is refused, nothing written", False, e)
            validate_every_result(s, tools)
            check("descriptions mention uniqueness and already_applied",
                  "exactly one" in tools["edit"].description and "already_applied" in tools["edit"].description,
                  tools["edit"].description)

            r = await s.call_tool("read_file", {"path": "shop.py"})
            t = text_of(r)
            check("read_file numbers lines and gives the sha256",
                  "     1\tdef total(items):" in t and "sha256" in t and not is_error(r), t)

            r = await s.call_tool("edit", {"path": "shop.py", "old_string": "    return sum(items)",
                                            "new_string": "    return sum(items) + 1"})
            check("edit applies", not is_error(r) and "return sum(items) + 1" in read(root, "shop.py"), text_of(r))
            check("edit returns the report as structured content",
                  structured(r).get("status") == "applied", structured(r))
            print("--- transcript: a successful edit ---")
            print(text_of(r))

            patch = ("*** Begin Patch\n*** Update File: shop.py\n@@ def total(items):\n"
                     "-    return sum(items) + 1\n+    return sum(items) + 2\n"
                     "*** Add File: notes.md\n+# Notes\n*** End Patch\n")
            r = await s.call_tool("apply_patch", {"text": patch})
            check("apply_patch multi-file", not is_error(r) and os.path.exists(os.path.join(root, "notes.md"))
                  and "+ 2" in read(root, "shop.py"), text_of(r))

            r = await s.call_tool("edit", {"path": "shop.py", "old_string": "return totally_absent()",
                                            "new_string": "x"})
            t = text_of(r)
            check("no-match is a tool error with the closest lines",
                  is_error(r) and "Failed to find expected lines in shop.py" in t, t)
            with open(os.path.join(root, "net.py"), "w", encoding="utf-8") as f:
                f.write("def check(mask):\n    if mask < 1 or mask > 32:\n        raise ValueError(mask)\n    return mask\n")
            r = await s.call_tool("edit", {"path": "net.py",
                                            "old_string": "def check(mask):\n    if mask < 1 or mask > 64:\n        raise ValueError(mask)\n    return mask\n",
                                            "new_string": "def check(mask):\n    if not 1 <= mask <= 128:\n        raise ValueError(mask)\n    return mask\n"})
            check("a removed line differing in a number is refused, shown both ways",
                  is_error(r) and "you sent `if mask < 1 or mask > 64:`" in text_of(r)
                  and "mask > 32" in read(root, "net.py"), text_of(r))
            check("a refusal over MCP names MCP tools, never CLI commands",
                  'read_file with path "shop.py"' in t and "lancet read" not in t, t)
            r = await s.call_tool("edit", {"path": "shop.py", "old_string": "    return sum(items) + 1",
                                            "new_string": "x", "expected_sha256": "0" * 64})
            t = text_of(r)
            check("a stale expected_sha256 says the file changed since it was read",
                  is_error(r) and "changed since it was read" in t and "expected_sha256" in t
                  and "--expect" not in t and "lancet read" not in t, t)
            print("--- transcript: a refused edit ---")
            print(t)

            r = await s.call_tool("edit", {"path": "util.py", "old_string": "    pass", "new_string": "    return 1"})
            t = text_of(r)
            check("ambiguous edit is a tool error listing the lines",
                  is_error(r) and "ambiguous" in t and "lines 2, 5" in t, t)

            before = read(root, "shop.py")
            r = await s.call_tool("apply_patch", {
                "text": "*** Begin Patch\n*** Update File: shop.py\n-    return sum(items) + 2\n+    return 0\n*** End Patch\n",
                "test": True})
            check("failing test (the server's own command) rolls the patch back",
                  is_error(r) and structured(r).get("status") == "test_failed"
                  and read(root, "shop.py") == before, text_of(r))

            r = await s.call_tool("apply_patch", {
                "text": "*** Begin Patch\n*** Update File: shop.py\n-    return sum(items) + 2\n+    return 0\n*** End Patch\n",
                "test": "touch pwned"})
            check("a model cannot supply a shell command as test",
                  is_error(r) and not os.path.exists(os.path.join(root, "pwned"))
                  and read(root, "shop.py") == before, text_of(r))

            r = await s.call_tool("checkpoints", {})
            listed = structured(r).get("checkpoints", [])
            check("checkpoints lists the batches newest first", len(listed) >= 3 and not is_error(r), text_of(r))
            r = await s.call_tool("checkpoints", {"limit": 1})
            one = structured(r).get("checkpoints", [])
            check("checkpoints takes a limit", len(one) == 1 and one[0].get("id") == listed[0].get("id"), text_of(r))
            r = await s.call_tool("checkpoints", {"path": "no/such/file.py"})
            check("checkpoints takes a path", structured(r).get("checkpoints", None) == [], text_of(r))

            r = await s.call_tool("undo", {})
            check("undo puts back the newest live batch (the multi-file patch)",
                  not is_error(r) and not os.path.exists(os.path.join(root, "notes.md"))
                  and "+ 1" in read(root, "shop.py"), text_of(r))

            r = await s.call_tool("undo", {"id": "ffffffff"})
            check("undo of an unknown id says so in MCP words",
                  is_error(r) and "no checkpoint ffffffff" in text_of(r)
                  and "checkpoints tool" in text_of(r) and "lancet log" not in text_of(r), text_of(r))

            r = await s.call_tool("write_file", {"path": "new.txt", "content": "hello\n"})
            check("write_file creates a new file", not is_error(r) and read(root, "new.txt") == "hello\n", text_of(r))
            r = await s.call_tool("write_file", {"path": "util.py", "content": "x = 1\n"})
            check("write_file refuses to overwrite an unread file (kind unread)",
                  is_error(r) and "Read it first" in text_of(r)
                  and structured(r).get("error", {}).get("kind") == "unread", text_of(r))
            util_before = read(root, "util.py")
            r = await s.call_tool("apply_patch", {"text": "util.py\n```python\nx = 1\n```\n"})
            check("apply_patch refuses a whole-file overwrite of an unread file, as write_file does",
                  is_error(r) and "Read it first" in text_of(r) and read(root, "util.py") == util_before,
                  text_of(r))

            # Read-before-edit: someone else edits the file after the model's read.
            await s.call_tool("read_file", {"path": "shop.py"})
            with open(os.path.join(root, "shop.py"), encoding="utf-8") as f:
                read_then = f.read()
            with open(os.path.join(root, "shop.py"), "w", encoding="utf-8") as f:
                f.write("import math\n\n" + read_then)
            r = await s.call_tool("edit", {"path": "shop.py", "old_string": "    return sum(items) + 1",
                                            "new_string": "    return sum(items) + 3"})
            check("changed file, edit elsewhere: rebased over the change, and said so",
                  not is_error(r) and "rebased over 2 changed line(s)" in text_of(r)
                  and read(root, "shop.py") == "import math\n\n" + read_then.replace("+ 1", "+ 3"),
                  text_of(r))
            await s.call_tool("read_file", {"path": "shop.py"})
            with open(os.path.join(root, "shop.py"), "w", encoding="utf-8") as f:
                f.write("def total(items):\n    return len(items)\n")
            r = await s.call_tool("edit", {"path": "shop.py", "old_string": "    return sum(items) + 3",
                                            "new_string": "    return 4"})
            t = text_of(r)
            check("changed file, the edited line changed too: a rebase conflict shown three ways",
                  is_error(r) and "as it is now:" in t and "return len(items)" in t
                  and "changed since you read it" in t
                  and "with your edit:" in t and "read_file" in t and "lancet read" not in t
                  and read(root, "shop.py") == "def total(items):\n    return len(items)\n", t)
            await s.call_tool("read_file", {"path": "shop.py"})
            with open(os.path.join(root, "shop.py"), "w", encoding="utf-8") as f:
                f.write("# header\ndef total(items):\n    return len(items)\n")
            r = await s.call_tool("write_file", {"path": "shop.py",
                                                 "content": "def total(items):\n    return len(items) * 2\n"})
            check("write_file of a file changed since the read: merged, the other change kept",
                  not is_error(r) and "rebased over 1 changed line(s)" in text_of(r)
                  and read(root, "shop.py") == "# header\ndef total(items):\n    return len(items) * 2\n",
                  text_of(r))
            check("write_file's reply shows the diff of what it wrote",
                  "+    return len(items) * 2" in text_of(r) and "-    return len(items)" in text_of(r), text_of(r))

            # A sketch through write_file: placed, and the reply shows what it wrote.
            with open(os.path.join(root, "rates.py"), "w", encoding="utf-8") as f:
                f.write("class Rates:\n    base = 1\n\n    def get(self):\n        return self.base\n\n\ndef main():\n    Rates().get()\n")
            await s.call_tool("read_file", {"path": "rates.py"})
            r = await s.call_tool("write_file", {"path": "rates.py", "content":
                                                 "class Rates:\n    # ... existing code ...\n\n    def get(self):\n        return self.base * 2\n"})
            check("write_file of a fragment sketch keeps the rest of the file and shows the diff",
                  not is_error(r) and read(root, "rates.py").endswith("        return self.base * 2\n\n\ndef main():\n    Rates().get()\n")
                  and "+        return self.base * 2" in text_of(r), text_of(r))

            # Over MCP a SEARCH block standing twice is refused, never applied at the first.
            with open(os.path.join(root, "twice.py"), "w", encoding="utf-8") as f:
                f.write("x = 1\ny = 2\nx = 1\n")
            await s.call_tool("read_file", {"path": "twice.py"})
            r = await s.call_tool("apply_patch", {"text": "twice.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 3\n>>>>>>> REPLACE\n```\n"})
            check("an ambiguous SEARCH/REPLACE block is refused over MCP",
                  is_error(r) and "ambiguous" in text_of(r) and read(root, "twice.py") == "x = 1\ny = 2\nx = 1\n",
                  text_of(r))

            # rename_symbol: code renamed, the comment listed and left alone.
            with open(os.path.join(root, "cart.py"), "w", encoding="utf-8") as f:
                f.write("from shop import total\n\n# total of the cart\nprint(total([1]))\n")
            r = await s.call_tool("rename_symbol", {"old": "total", "new": "cart_total"})
            t = text_of(r)
            check("rename_symbol renames code across files and lists the comment",
                  not is_error(r) and read(root, "cart.py") == "from shop import cart_total\n\n# total of the cart\nprint(cart_total([1]))\n"
                  and "def cart_total(items):" in read(root, "shop.py")
                  and "cart.py:3 (comment)" in t
                  and structured(r).get("rename", {}).get("sites") == 3, t)
            r = await s.call_tool("rename_symbol", {"old": "cart_total", "new": "class"})
            check("rename_symbol refuses a keyword", is_error(r) and "reserved word" in text_of(r), text_of(r))

            # rename_symbol by position: only that binding; an unknown receiver is listed, and
            # renamed with include_unresolved; os.close never.
            with open(os.path.join(root, "io_util.py"), "w", encoding="utf-8") as f:
                f.write("import os\n\n\nclass Pipe:\n    def close(self):\n        os.close(3)\n\n    def done(self, fp):\n        self.close()\n        fp.close()\n")
            r = await s.call_tool("rename_symbol", {"old": "", "at": "io_util.py:5:9", "new": "shut"})
            t = text_of(r)
            check("an undecided site (fp.close()) stops rename_symbol, naming its own parameters",
                  is_error(r) and "unresolved_sites" in json.dumps(structured(r)) and "leave_unresolved true" in t
                  and "--" not in t.replace("\n-", "").replace("--allow-lsp", "")
                  and "def close(self)" in read(root, "io_util.py"), t)
            check("without --allow-lsp no server decides it: the refusal names the server and the switch",
                  "pyright-langserver would decide them; asking it is off" in t
                  and "start the server with --allow-lsp" in t, t)
            r = await s.call_tool("rename_symbol", {"old": "", "at": "io_util.py:5:9", "new": "shut",
                                                    "leave_unresolved": True})
            t = text_of(r)
            check("rename_symbol with at renames the binding, lists fp.close() and leaves os.close",
                  not is_error(r) and read(root, "io_util.py") == "import os\n\n\nclass Pipe:\n    def shut(self):\n        os.close(3)\n\n    def done(self, fp):\n        self.shut()\n        fp.close()\n"
                  and "io_util.py:10: fp.close()" in t and "io_util.py:6: os.close(3)" in t, t)
            r = await s.call_tool("rename_symbol", {"old": "close", "new": "stop", "include_unresolved": True,
                                                    "paths": ["io_util.py"]})
            check("include_unresolved renames fp.close() but never os.close()",
                  not is_error(r) and "        fp.stop()\n" in read(root, "io_util.py")
                  and "os.close(3)" in read(root, "io_util.py"), text_of(r))

            r = await s.call_tool("read_file", {"path": "../outside.txt"})
            check("paths outside the root are refused", is_error(r) and "outside the root" in text_of(r), text_of(r))

            # The model never gets a shell and never leaves the root (docs/security.md).
            r = await s.call_tool("rename_symbol", {"old": "", "at": "io_util.py:5:9", "new": "halt", "lsp": True})
            check("lsp is refused unless the user started the server with --allow-lsp",
                  is_error(r) and "--allow-lsp" in text_of(r), text_of(r))
            r = await s.call_tool("apply_patch", {"text": "*** Begin Patch\n*** Add File: docs/HEAD\n+ref: refs/heads/main\n"
                                                          "*** Add File: docs/config\n+[core]\n+\tfsmonitor = touch pwned\n*** End Patch\n"})
            check("no batch plants a git repository lookalike (kind protected)",
                  is_error(r) and structured(r).get("error", {}).get("kind") == "protected"
                  and not os.path.exists(os.path.join(root, "docs")), text_of(r))
            with open(os.path.join(root, "unread.py"), "w", encoding="utf-8") as f:
                f.write("x = 1\n")
            r = await s.call_tool("apply_patch", {"text": "*** Begin Patch\n*** Delete File: unread.py\n*** End Patch\n"})
            check("deleting a file the model never read is refused",
                  is_error(r) and "you have not read it" in text_of(r) and os.path.exists(os.path.join(root, "unread.py")),
                  text_of(r))
            r = await s.call_tool("write_file", {"path": "huge.txt", "content": "x" * (17 * 1024 * 1024)})
            check("a request over the 16 MiB message limit is answered naming the limit",
                  is_error(r) and "16 MiB" in text_of(r) and not os.path.exists(os.path.join(root, "huge.txt")),
                  text_of(r)[:300])
            r = await s.call_tool("apply_patch", {"text": "*** Begin Patch\n*** Update File: util.py\n@@\n-def a():\n+def a0():\n*** End Patch\n",
                                                  "test": True})
            t = text_of(r)
            check("tests run in lancet's sandbox by default (and the report says so)",
                  is_error(r) and "lancet's sandbox" in t and read(root, "util.py").startswith("def a():"), t)

            r = await s.call_tool("apply_patch", {"operations": [
                {"type": "create_file", "path": "plan.md", "diff": "+step one\n+"}]})
            check("apply_patch takes OpenAI apply_patch operations (create_file)",
                  not is_error(r) and read(root, "plan.md") == "step one\n"
                  and structured(r).get("format") == "openai-patch", text_of(r))
            ops = [{"type": "update_file", "path": "plan.md", "diff": "@@\n-step one\n+step two\n"},
                   {"type": "create_file", "path": "todo.md", "diff": "+- ship"}]
            r = await s.call_tool("apply_patch", {"operations": ops})
            check("a list of operations is one transaction",
                  not is_error(r) and read(root, "plan.md") == "step two\n" and read(root, "todo.md") == "- ship",
                  text_of(r))
            r = await s.call_tool("apply_patch", {"operations": [
                {"type": "create_file", "path": "never.md", "diff": "+x\n"},
                {"type": "update_file", "path": "plan.md", "diff": "@@\n-absent line\n+y\n"}]})
            check("a failing operation refuses the whole list, nothing written",
                  is_error(r) and not os.path.exists(os.path.join(root, "never.md")), text_of(r))
            r = await s.call_tool("apply_patch", {"text": "x", "operations": ops})
            check("apply_patch wants text or operations, not both",
                  is_error(r) and "operations" in text_of(r), text_of(r))

            with open(os.path.join(root, "lines.py"), "w", encoding="utf-8") as f:
                f.write("def f():\n    return 1\n\n\ndef g():\n    return 1\n")
            r = await s.call_tool("read_file", {"path": "lines.py", "anchors": True})
            shown = text_of(r).splitlines()[1:]
            check("read_file anchors: true shows LINE:HASH|text",
                  len(shown) == 6 and shown[5].split("|", 1)[1] == "    return 1"
                  and structured(r)["lines"][5].get("hash") == shown[5].split("|")[0].split(":")[1], text_of(r))
            anchor6 = shown[5].split("|")[0]
            with open(os.path.join(root, "lines.py"), "w", encoding="utf-8") as f:
                f.write("import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 1\n")
            r = await s.call_tool("edit_lines", {"path": "lines.py", "edits": [
                {"op": "replace", "start": anchor6, "lines": ["    return 2"]}]})
            check("edit_lines replaces the anchored line (one of two identical ones), rebased over a change since the read",
                  not is_error(r) and read(root, "lines.py") == "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n",
                  text_of(r))
            r = await s.call_tool("edit_lines", {"path": "lines.py", "edits": [
                {"op": "delete", "start": "2:zzz"}]})
            check("edit_lines refuses a stale anchor, saying what the line reads now",
                  is_error(r) and "reads" in text_of(r), text_of(r))
            r = await s.call_tool("edit_lines", {"path": "lines.py", "edits": [
                {"op": "move", "start": anchor6}]})
            check("edit_lines names a bad argument by its parameter",
                  is_error(r) and "edits[1].op" in text_of(r), text_of(r))


async def run_configured(root):
    """Settings that run commands are the person's: a lancet.toml the model writes is refused, one
    planted in the tree counts only once the person ran `lancet trust` (read on every call)."""
    params = StdioServerParameters(command=LANCET, args=["mcp", "-C", root], env=dict(os.environ))
    patch = ("*** Begin Patch\n*** Update File: app.py\n-x = 1\n+x = 2\n*** End Patch\n")
    async with stdio_client(params) as (reader, writer):
        async with ClientSession(reader, writer) as s:
            await s.initialize()
            r = await s.call_tool("apply_patch", {"text": patch, "test": True})
            check("test without any test command is refused, nothing written",
                  is_error(r) and "no test command" in text_of(r) and read(root, "app.py") == "x = 1\n",
                  text_of(r))
            r = await s.call_tool("write_file", {"path": "lancet.toml",
                                                 "content": "[mcp]\ntest_command = \"touch pwned\"\n"})
            check("a model cannot write lancet.toml (configuration is the user's)",
                  is_error(r) and structured(r).get("error", {}).get("kind") == "protected"
                  and not os.path.exists(os.path.join(root, "lancet.toml")), text_of(r))
            with open(os.path.join(root, "lancet.toml"), "w") as f:
                f.write("[mcp]\ntest_command = \"exit 1\"\n")
            r = await s.call_tool("apply_patch", {"text": patch, "test": True})
            check("a planted [mcp] test_command is ignored until the user trusts it",
                  is_error(r) and "no test command" in text_of(r) and read(root, "app.py") == "x = 1\n",
                  text_of(r))
            subprocess.run([LANCET, "trust", "-C", root], check=True, stdout=subprocess.DEVNULL)
            r = await s.call_tool("apply_patch", {"text": patch, "test": True})
            check("[mcp] test_command of a trusted lancet.toml runs, read on the call (no restart)",
                  is_error(r) and structured(r).get("status") == "test_failed"
                  and read(root, "app.py") == "x = 1\n", text_of(r))
            with open(os.path.join(root, "lancet.toml"), "w") as f:
                f.write("[mcp]\ntest_cmd = \"exit 0\"\n")
            r = await s.call_tool("apply_patch", {"text": patch})
            check("an unknown key in lancet.toml is the call's error, naming it; nothing written",
                  is_error(r) and "unknown field `test_cmd`" in text_of(r)
                  and read(root, "app.py") == "x = 1\n", text_of(r))


async def run_scoped(repo):
    """History is the root's own (a server on repo/sub never sees or undoes the batches made at
    repo/), and a forced undo never overwrites a file the model has not read as it is now."""
    sub = os.path.join(repo, "sub")
    params = StdioServerParameters(command=LANCET, args=["mcp", "-C", sub], env=dict(os.environ))
    outer = json.loads(subprocess.run(
        [LANCET, "apply", "-C", repo, "--json"], check=True, capture_output=True,
        input=b"*** Begin Patch\n*** Update File: other/b.py\n-b = 1\n+b = 2\n*** End Patch\n").stdout)
    async with stdio_client(params) as (reader, writer):
        async with ClientSession(reader, writer) as s:
            await s.initialize()
            r = await s.call_tool("checkpoints", {})
            check("checkpoints lists only the batches of the server's root",
                  not is_error(r) and structured(r).get("checkpoints") == [], text_of(r))
            r = await s.call_tool("undo", {"id": outer["checkpoint"]})
            check("undo of a batch made outside the root is an unknown id, nothing written",
                  is_error(r) and structured(r).get("error", {}).get("kind") == "no_checkpoint"
                  and read(repo, "other/b.py") == "b = 2\n", text_of(r))
            r = await s.call_tool("apply_patch", {"text": "*** Begin Patch\n*** Update File: a.py\n-a = 1\n+a = 2\n"
                                                          "*** Update File: c.py\n-c = 1\n+c = 2\n*** End Patch\n"})
            check("a batch of the root's own", not is_error(r), text_of(r))
            with open(os.path.join(sub, "c.py"), "w", encoding="utf-8") as f:
                f.write("c = 3  # the person's work\n")
            r = await s.call_tool("undo", {"force": True})
            check("a forced undo over a file the model has not read is refused (kind unread)",
                  is_error(r) and structured(r).get("error", {}).get("kind") == "unread"
                  and read(sub, "c.py") == "c = 3  # the person's work\n", text_of(r))
            r = await s.call_tool("read_file", {"path": "c.py"})
            r = await s.call_tool("undo", {"force": True})
            undo_id = structured(r).get("checkpoint")
            check("after reading it, force restores it; the undo is a batch of its own",
                  not is_error(r) and read(sub, "c.py") == "c = 1\n" and undo_id, text_of(r))
            r = await s.call_tool("undo", {"id": undo_id})
            check("undoing the undo brings back what it overwrote",
                  not is_error(r) and read(sub, "c.py") == "c = 3  # the person's work\n"
                  and read(sub, "a.py") == "a = 2\n", text_of(r))


def main():
    # Trust records and user settings of this run stay out of the person's home.
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp()
    os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp()
    configured = tempfile.mkdtemp()
    with open(os.path.join(configured, "app.py"), "w") as f:
        f.write("x = 1\n")
    asyncio.run(run_configured(configured))
    repo = tempfile.mkdtemp()
    for path, text in [("sub/a.py", "a = 1\n"), ("sub/c.py", "c = 1\n"), ("other/b.py", "b = 1\n")]:
        os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
        with open(os.path.join(repo, path), "w") as f:
            f.write(text)
    subprocess.run(["git", "init", "-q", repo], check=True)
    asyncio.run(run_scoped(repo))
    root = tempfile.mkdtemp()
    with open(os.path.join(root, "shop.py"), "w") as f:
        f.write("def total(items):\n    return sum(items)\n")
    with open(os.path.join(root, "util.py"), "w") as f:
        f.write("def a():\n    pass\n\ndef b():\n    pass\n")
    log = os.path.join(tempfile.mkdtemp(), "mcp.log")
    asyncio.run(run(root, log))
    with open(log) as f:
        calls = [json.loads(line) for line in f]
    check(f"every structured result validates against its tool's output schema ({validated['results']} results)",
          validated["results"] >= 20 and not validated["invalid"], validated["invalid"])
    check("--log records every call", len(calls) >= 15 and {c["tool"] for c in calls} >= {"edit", "apply_patch"}, len(calls))
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()

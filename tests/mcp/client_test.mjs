#!/usr/bin/env node
// Drive `lancet mcp` with the official TypeScript MCP SDK's stdio client.
//
// Usage: node client_test.mjs LANCET NODE_MODULES_PREFIX
//
// NODE_MODULES_PREFIX is where `npm install --prefix` put @modelcontextprotocol/sdk (pinned by
// .ci/run) and ajv; nothing of it is committed. Lists the tools (every input and output schema
// compiled by Ajv 2020 in strict mode, and not one SDK warning), calls every tool (each argument
// object validated against its input schema, each structured result against its output schema,
// refusals included), cancels a call during its test run (nothing written), receives progress,
// and times a read and a ping during a 5 s test run (each answered within 0.3 s). Prints
// "N passed, N failed" as its last line; exits non-zero on any failure.
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const [lancetArg, prefix] = process.argv.slice(2);
if (!lancetArg || !prefix) {
  console.error("usage: node client_test.mjs LANCET NODE_MODULES_PREFIX");
  process.exit(2);
}
const LANCET = resolve(lancetArg);
const require = createRequire(join(resolve(prefix), "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const Ajv2020 = require("ajv/dist/2020").default;
const SDK_VERSION = JSON.parse(
  readFileSync(join(resolve(prefix), "node_modules/@modelcontextprotocol/sdk/package.json"), "utf8"),
).version;

const results = { passed: 0, failed: 0 };
function check(name, ok, detail = "") {
  if (ok) {
    results.passed += 1;
    console.log(`PASS ${name}`);
  } else {
    results.failed += 1;
    const shown = typeof detail === "string" ? detail : JSON.stringify(detail);
    console.log(`FAIL ${name}: ${shown.slice(0, 1500)}`);
  }
}

// What the SDK says about schemas it cannot use (unknown formats: 488 warnings once).
const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.join(" "));
  warn(...args);
};

const text = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const kind = (r) => r.structuredContent?.error?.kind;
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const read = (root, path) => readFileSync(join(root, path), "utf8");

function tree(files) {
  const root = mkdtempSync(join(tmpdir(), "lancet-mcp-ts-"));
  for (const [path, content] of Object.entries(files)) writeFileSync(join(root, path), content);
  return root;
}

async function connect(root, args) {
  const env = { ...process.env };
  const transport = new StdioClientTransport({
    command: LANCET,
    args: ["mcp", "-C", root, ...args],
    env,
    stderr: "inherit",
  });
  const client = new Client({ name: "lancet-ts-test", version: "0" });
  await client.connect(transport);
  return client;
}

/** Ajv 2020 in strict mode: a schema with a keyword or format it does not know fails to compile. */
function strictAjv() {
  return new Ajv2020({ strict: true, allErrors: true });
}

/** Compiles every tool's schemas strictly; the validators, by tool name. */
function compileSchemas(tools) {
  const validators = {};
  for (const tool of tools) {
    for (const side of ["inputSchema", "outputSchema"]) {
      try {
        const validate = strictAjv().compile(tool[side]);
        validators[`${tool.name}.${side}`] = validate;
        check(`${tool.name} ${side} compiles with Ajv 2020 in strict mode`, true);
      } catch (e) {
        check(`${tool.name} ${side} compiles with Ajv 2020 in strict mode`, false, e.message);
      }
    }
  }
  return validators;
}

/** Calls a tool, its arguments and structured result validated against its schemas. */
function caller(client, validators, invalid) {
  return async (name, args, options) => {
    const input = validators[`${name}.inputSchema`];
    if (input && !input(args)) invalid.push([name, "arguments", input.errors]);
    const result = await client.callTool({ name, arguments: args }, undefined, options);
    const output = validators[`${name}.outputSchema`];
    if (result.structuredContent !== undefined) {
      validated.results += 1;
      if (output && !output(result.structuredContent)) invalid.push([name, "result", output.errors]);
    }
    return result;
  };
}
const validated = { results: 0 };

async function everyTool() {
  const root = tree({
    "shop.py": "def total(items):\n    return sum(items)\n",
    "util.py": "def a():\n    pass\n\ndef b():\n    pass\n",
    "cart.py": "from shop import total\n\nprint(total([1]))\n",
  });
  const client = await connect(root, ["--test-command", "exit 1"]);
  const listed = await client.listTools();
  const names = listed.tools.map((t) => t.name).sort();
  check(`tools/list names the 10 tools (SDK ${SDK_VERSION})`,
    JSON.stringify(names) === JSON.stringify(["apply_patch", "change_signature", "checkpoints", "edit", "edit_lines",
      "move_symbol", "read_file", "rename_symbol", "undo", "write_file"]), names);
  check("tools/list draws no SDK warning (no unknown schema format)", warnings.length === 0, warnings.slice(0, 3));
  const validators = compileSchemas(listed.tools);
  const invalid = [];
  const call = caller(client, validators, invalid);

  let r = await call("read_file", { path: "shop.py" });
  check("read_file numbers lines and gives the sha256",
    !r.isError && text(r).includes("     1\tdef total(items):") && r.structuredContent.sha256, text(r));
  r = await call("edit", { path: "shop.py", old_string: "    return sum(items)", new_string: "    return sum(items) + 1" });
  check("edit applies", !r.isError && read(root, "shop.py").includes("sum(items) + 1"), text(r));
  r = await call("read_file", { path: "util.py", anchors: true });
  const anchor = text(r).split("\n")[2].split("|")[0];
  r = await call("edit_lines", { path: "util.py", edits: [{ op: "replace", start: anchor, lines: ["    return 2"] }] });
  check("edit_lines replaces an anchored line", !r.isError && read(root, "util.py").includes("    return 2"), text(r));
  r = await call("apply_patch", {
    text: "*** Begin Patch\n*** Update File: shop.py\n-    return sum(items) + 1\n+    return sum(items) + 2\n*** Add File: notes.md\n+# Notes\n*** End Patch\n",
  });
  check("apply_patch applies a multi-file patch", !r.isError && existsSync(join(root, "notes.md")), text(r));
  r = await call("apply_patch", {
    text: "*** Begin Patch\n*** Update File: shop.py\n-    return sum(items) + 2\n+    return 0\n*** End Patch\n", test: true,
  });
  check("apply_patch with a failing test is rolled back", r.isError && r.structuredContent.status === "test_failed"
    && read(root, "shop.py").includes("+ 2"), text(r));
  r = await call("write_file", { path: "new.txt", content: "hello\n" });
  check("write_file creates a file", !r.isError && read(root, "new.txt") === "hello\n", text(r));
  r = await call("rename_symbol", { old: "total", new: "cart_total" });
  check("rename_symbol renames across files", !r.isError && read(root, "cart.py").includes("cart_total([1])"), text(r));
  r = await call("checkpoints", {});
  check("checkpoints lists the batches", !r.isError && r.structuredContent.checkpoints.length >= 4, text(r));
  r = await call("undo", {});
  check("undo puts the rename back", !r.isError && read(root, "cart.py").includes("total([1])")
    && !read(root, "cart.py").includes("cart_total"), text(r));

  // Refusals: tool errors carrying a report with their kind, valid under the output schema.
  r = await call("read_file", { path: "../outside.txt" });
  check("read_file of a path outside the root: kind unsafe_path", r.isError && kind(r) === "unsafe_path", r.structuredContent);
  writeFileSync(join(root, "theirs.py"), "t = 1\n");
  r = await call("write_file", { path: "theirs.py", content: "x = 1\n" });
  check("overwriting an unread file: kind unread", r.isError && kind(r) === "unread"
    && read(root, "theirs.py") === "t = 1\n", r.structuredContent);
  r = await call("edit", { path: "../x.py", old_string: "a", new_string: "b" });
  check("edit of a path outside the root: kind unsafe_path", r.isError && kind(r) === "unsafe_path", r.structuredContent);
  r = await call("rename_symbol", { old: "", new: "halt", at: "util.py:1:5", lsp: true });
  check("lsp without --allow-lsp: kind usage", r.isError && kind(r) === "usage", r.structuredContent);

  check(`every argument and structured result validates under Ajv 2020 strict (${validated.results} results)`,
    invalid.length === 0 && validated.results >= 14, invalid.map(([n, s, e]) => `${n} ${s}: ${JSON.stringify(e)}`));
  check("no SDK warning over the whole session", warnings.length === 0, warnings.slice(0, 3));
  await client.close();
  rmSync(root, { recursive: true, force: true });
}

/** A server whose test command touches a marker outside the root, then sleeps `seconds`. */
async function slowTests(seconds) {
  const root = tree({ "a.py": "a = 1\n", "other.py": "o = 1\n" });
  const marker = `${root}.started`;
  const client = await connect(root, ["--test-command", `touch '${marker}'; sleep ${seconds}`, "--no-sandbox"]);
  return { root, marker, client };
}

async function waitFor(path) {
  for (let i = 0; i < 1500 && !existsSync(path); i++) await sleep(20);
  return existsSync(path);
}

const PATCH = "*** Begin Patch\n*** Update File: a.py\n-a = 1\n+a = 2\n*** End Patch\n";

async function readsAndProgressDuringTests() {
  const { root, marker, client } = await slowTests(5);
  await client.callTool({ name: "read_file", arguments: { path: "a.py" } });
  const progress = [];
  const patched = client.callTool({ name: "apply_patch", arguments: { text: PATCH, test: true } }, undefined, {
    onprogress: (p) => progress.push(p),
    resetTimeoutOnProgress: true,
  });
  check("the test run starts", await waitFor(marker), marker);
  let started = performance.now();
  const r = await client.callTool({ name: "read_file", arguments: { path: "other.py" } });
  const readMs = performance.now() - started;
  check(`a read during a 5 s test run is answered within 0.3 s (${readMs.toFixed(1)} ms)`,
    !r.isError && readMs < 300, text(r));
  check("that read says a batch is pending its test verdict", text(r).includes("pending its test verdict"), text(r));
  started = performance.now();
  await client.ping();
  const pingMs = performance.now() - started;
  check(`a ping during a 5 s test run is answered within 0.3 s (${pingMs.toFixed(1)} ms)`, pingMs < 300, pingMs);
  const done = await patched;
  check("the patch applies once its tests pass", !done.isError && read(root, "a.py") === "a = 2\n", text(done));
  check(`progress notifications arrive during the call (${progress.length})`,
    progress.length >= 2 && progress.some((p) => (p.message || "").startsWith("running `"))
    && progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress), progress);
  await client.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(marker, { force: true });
}

async function cancelDuringTests() {
  const { root, marker, client } = await slowTests(60);
  await client.callTool({ name: "read_file", arguments: { path: "a.py" } });
  const abort = new AbortController();
  const patched = client.callTool({ name: "apply_patch", arguments: { text: PATCH, test: true } }, undefined, {
    signal: abort.signal,
  });
  check("the test run starts", await waitFor(marker), marker);
  check("the batch is on disk while its tests run", read(root, "a.py") === "a = 2\n", read(root, "a.py"));
  abort.abort("the host gave up");
  let rejected = false;
  try {
    await patched;
  } catch {
    rejected = true;
  }
  check("the cancelled call rejects in the client", rejected);
  // The next writing call takes its turn once the cancelled batch is over.
  const r = await client.callTool({ name: "write_file", arguments: { path: "b.py", content: "b = 1\n" } });
  check("a call cancelled before its verdict writes nothing (rolled back)",
    !r.isError && read(root, "a.py") === "a = 1\n", read(root, "a.py"));
  const listed = await client.callTool({ name: "checkpoints", arguments: {} });
  const batch = listed.structuredContent.checkpoints.find((b) => b.files[0].path === "a.py");
  check("the cancelled batch is in the log, undone", batch && batch.undone === true, batch);
  await client.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(marker, { force: true });
}

try {
  await everyTool();
  await readsAndProgressDuringTests();
  await cancelDuringTests();
} catch (e) {
  check("the session ran to its end", false, e.stack || String(e));
}
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed ? 1 : 0);

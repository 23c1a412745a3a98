#!/usr/bin/env node
// The reference verdict of gate.py's `ts` corpus: the TypeScript compiler's parser.
//
//   node tests/corpus/ts_parse.js TYPESCRIPT_DIR ROOT < list-of-root-relative-paths
//
// TYPESCRIPT_DIR is an unpacked `typescript` npm package (its `lib/typescript.js` is loaded);
// each path read from stdin (one a line) is parsed with `ts.createSourceFile(name, text,
// ScriptTarget.Latest, true, kind)`, the script kind taken from the extension (.js .mjs .cjs:
// JS, .jsx: JSX, .ts .mts .cts (and .d.ts): TS, .tsx: TSX). A TypeScript file is rejected when
// the parser reports a diagnostic (`sourceFile.parseDiagnostics`; not the binder's or the
// checker's). The parser also reads TypeScript-only syntax in a JavaScript file (a type
// annotation, an interface) and leaves it to the program's syntactic check ("Type annotations
// can only be used in TypeScript files"), so a JavaScript file is rejected on
// `program.getSyntacticDiagnostics(sourceFile)` (its parse diagnostics and those), the program
// holding the JavaScript files only, with no resolution and no lib.
//
// One JSON line is printed per rejected file: {"path", "line", "column", "message"} (1-based
// line and column of the first diagnostic). The last line is {"version": V, "done": N}: the
// compiler's version and the number of files parsed.
"use strict";
const fs = require("fs");
const path = require("path");

const [tsDir, root] = process.argv.slice(2);
if (!tsDir || !root) {
  process.stderr.write("usage: ts_parse.js TYPESCRIPT_DIR ROOT < paths\n");
  process.exit(2);
}
const ts = require(path.resolve(tsDir, "lib", "typescript.js"));

function scriptKind(name) {
  if (/\.(js|mjs|cjs)$/.test(name)) return ts.ScriptKind.JS;
  if (/\.jsx$/.test(name)) return ts.ScriptKind.JSX;
  if (/\.tsx$/.test(name)) return ts.ScriptKind.TSX;
  return ts.ScriptKind.TS;
}
const isJs = (name) => /\.(js|mjs|cjs|jsx)$/.test(name);

const names = fs.readFileSync(0, "utf8").split("\n").filter((l) => l.length > 0);
const absRoot = path.resolve(root);
const parsed = new Map(); // absolute path -> SourceFile
function parse(name) {
  const text = fs.readFileSync(path.join(absRoot, name), "utf8");
  return ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, scriptKind(name));
}

const verdicts = new Map(); // name -> first diagnostic, for rejected files
let done = 0;
function reject(name, sf, diags) {
  done += 1;
  if (diags.length === 0) return;
  const d = diags[0];
  const { line, character } = sf.getLineAndCharacterOfPosition(d.start || 0);
  verdicts.set(name, {
    path: name,
    line: line + 1,
    column: character + 1,
    message: ts.flattenDiagnosticMessageText(d.messageText, " "),
  });
}

for (const name of names) {
  if (isJs(name)) continue;
  const sf = parse(name);
  reject(name, sf, sf.parseDiagnostics || []);
}

const jsNames = names.filter(isJs);
if (jsNames.length > 0) {
  const options = {
    allowJs: true, noResolve: true, noLib: true, types: [], noEmit: true,
    target: ts.ScriptTarget.Latest, jsx: ts.JsxEmit.Preserve,
  };
  const host = ts.createCompilerHost(options);
  host.getSourceFile = (file) => {
    const name = path.relative(absRoot, file).split(path.sep).join("/");
    const sf = parse(name);
    parsed.set(name, sf);
    return sf;
  };
  const program = ts.createProgram(jsNames.map((n) => path.join(absRoot, n)), options, host);
  for (const name of jsNames) {
    const sf = parsed.get(name) || program.getSourceFile(path.join(absRoot, name));
    reject(name, sf, program.getSyntacticDiagnostics(sf));
  }
}

const out = names.filter((n) => verdicts.has(n)).map((n) => JSON.stringify(verdicts.get(n)));
out.push(JSON.stringify({ version: ts.version, done }));
process.stdout.write(out.join("\n") + "\n");

#!/usr/bin/env node
// TypeScript's own "Move to file" refactor, for tsserver_move.py (the oracle of `lancet move` on
// TypeScript projects), and the printer that normalises the results both sides wrote.
//
//   node tests/corpus/ts_move_to_file.js TYPESCRIPT_DIR move ROOT PATH LINE COLUMN TARGET
//   node tests/corpus/ts_move_to_file.js TYPESCRIPT_DIR print ROOT PATH...
//
// TYPESCRIPT_DIR is an unpacked `typescript` npm package (its `lib/typescript.js` is loaded).
//
// `move` builds a LanguageService over ROOT/tsconfig.json and asks it, at PATH:LINE:COLUMN
// (1-based, on the declaration's name), for the refactors it offers with the interactive ones
// included; when "Move to file" is among them, it takes its edits with TARGET (root-relative,
// existing or new) as the target file, writes them into ROOT, and prints one JSON line
// {"applied": true, "files": [root-relative paths written]}. Otherwise it writes nothing and
// prints {"applied": false, "reason": "..."} (the refactor not offered, or its reason for
// being unavailable, or an exception of the refactor).
//
// `print` prints one JSON object {PATH: text} with each file re-printed by TypeScript's printer
// after a normalisation of formatting only: every string literal re-quoted the printer's way,
// named imports of one module written as several declarations merged into the first, each run
// of adjacent import declarations sorted by its printed text and the names inside
// `import { ... }` / `export { ... } from` sorted. A file that does not exist prints null.
"use strict";
const fs = require("fs");
const path = require("path");

const [tsDir, mode, root, ...rest] = process.argv.slice(2);
if (!tsDir || !mode || !root) {
  process.stderr.write("usage: ts_move_to_file.js TYPESCRIPT_DIR move ROOT PATH LINE COLUMN TARGET | print ROOT PATH...\n");
  process.exit(2);
}
const ts = require(path.resolve(tsDir, "lib", "typescript.js"));

function languageService(rootDir) {
  const configPath = path.join(rootDir, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, rootDir);
  const versions = new Map();
  const host = {
    getScriptFileNames: () => parsed.fileNames,
    getScriptVersion: (f) => String(versions.get(f) || 0),
    getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined),
    getCurrentDirectory: () => rootDir,
    getCompilationSettings: () => parsed.options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    useCaseSensitiveFileNames: () => true,
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

// As TypeScript's own textChanges.applyChanges: the changes in order of position (a stable
// sort keeps insertions at one position in the order given), applied from the last.
function applyChanges(text, changes) {
  const sorted = [...changes].sort((a, b) => a.span.start - b.span.start);
  for (let i = sorted.length - 1; i >= 0; i--) {
    const c = sorted[i];
    text = text.slice(0, c.span.start) + c.newText + text.slice(c.span.start + c.span.length);
  }
  return text;
}

function move(rootDir, rel, line, column, target) {
  const file = path.resolve(rootDir, rel);
  const text = fs.readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const pos = sf.getPositionOfLineAndCharacter(line - 1, column - 1);
  const service = languageService(rootDir);
  const preferences = { allowTextChangesInNewFiles: true, quotePreference: "auto",
    importModuleSpecifierPreference: "relative" };
  const offered = service.getApplicableRefactors(file, pos, preferences, undefined, undefined, true);
  const refactor = offered.find((r) => r.name === "Move to file");
  const action = refactor && refactor.actions.find((a) => a.name === "Move to file");
  if (!action) {
    return { applied: false, reason: "Move to file is not offered here (offered: " +
      (offered.map((r) => r.name).join(", ") || "nothing") + ")" };
  }
  if (action.notApplicableReason) {
    return { applied: false, reason: action.notApplicableReason };
  }
  const edits = service.getEditsForRefactor(file, ts.getDefaultFormatCodeSettings("\n"), pos, refactor.name,
    action.name, preferences, { targetFile: path.resolve(rootDir, target) });
  if (!edits || !edits.edits.length) {
    return { applied: false, reason: "Move to file gave no edits" };
  }
  const written = [];
  for (const change of edits.edits) {
    const before = change.isNewFile || !fs.existsSync(change.fileName) ? "" : fs.readFileSync(change.fileName, "utf8");
    fs.mkdirSync(path.dirname(change.fileName), { recursive: true });
    fs.writeFileSync(change.fileName, applyChanges(before, change.textChanges));
    written.push(path.relative(rootDir, change.fileName));
  }
  return { applied: true, files: written };
}

// Named imports of one module (of one kind: type-only or not, no default or namespace import)
// written as several declarations are one declaration: `import { a } from "m"; import { b }
// from "m"` and `import { a, b } from "m"` import the same bindings from the same evaluation
// of "m" (the first declaration's place kept, the names deduplicated and sorted).
function mergeImports(statements) {
  const merged = [];
  const at = new Map();
  for (const s of statements) {
    const clause = ts.isImportDeclaration(s) ? s.importClause : undefined;
    const plain = clause && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings)
      && ts.isStringLiteral(s.moduleSpecifier) && !s.attributes;
    if (!plain) {
      merged.push(s);
      continue;
    }
    const key = (clause.isTypeOnly ? "type " : "") + s.moduleSpecifier.text;
    if (!at.has(key)) {
      at.set(key, merged.length);
      merged.push(s);
      continue;
    }
    const first = merged[at.get(key)];
    const seen = new Map();
    for (const e of [...first.importClause.namedBindings.elements, ...clause.namedBindings.elements]) {
      const name = (e.isTypeOnly ? "type " : "") + (e.propertyName ? e.propertyName.text + " as " : "") + e.name.text;
      if (!seen.has(name)) seen.set(name, e);
    }
    const elements = [...seen.entries()].sort((x, y) => x[0].localeCompare(y[0])).map(([, e]) => e);
    const c = first.importClause;
    merged[at.get(key)] = ts.factory.updateImportDeclaration(first, first.modifiers,
      ts.factory.updateImportClause(c, c.isTypeOnly, undefined, ts.factory.createNamedImports(elements)),
      first.moduleSpecifier, first.attributes);
  }
  return merged;
}

function normalise(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  const requote = (context) => {
    const visit = (node) => {
      if (ts.isStringLiteral(node)) return ts.factory.createStringLiteral(node.text);
      if (ts.isNamedImports(node)) {
        const elements = [...node.elements].sort((a, b) => a.name.text.localeCompare(b.name.text));
        return ts.factory.updateNamedImports(node, ts.visitNodes(ts.factory.createNodeArray(elements), visit));
      }
      if (ts.isNamedExports(node)) {
        const elements = [...node.elements].sort((a, b) => a.name.text.localeCompare(b.name.text));
        return ts.factory.updateNamedExports(node, ts.visitNodes(ts.factory.createNodeArray(elements), visit));
      }
      return ts.visitEachChild(node, visit, context);
    };
    return (node) => ts.visitNode(node, visit);
  };
  const out = ts.transform(sf, [requote]).transformed[0];
  const printed = mergeImports(out.statements).map((s) => [ts.isImportDeclaration(s), printer.printNode(ts.EmitHint.Unspecified, s, sf)]);
  const body = [];
  let run = [];
  for (const [isImport, textOf] of printed) {
    if (isImport) {
      run.push(textOf);
      continue;
    }
    body.push(...run.sort());
    run = [];
    body.push(textOf);
  }
  body.push(...run.sort());
  return body.join("\n") + "\n";
}

if (mode === "move") {
  const [rel, line, column, target] = rest;
  let result;
  try {
    result = move(path.resolve(root), rel, Number(line), Number(column), target);
  } catch (e) {
    result = { applied: false, reason: "the refactor threw: " + String(e && e.message).split("\n")[0] };
  }
  process.stdout.write(JSON.stringify(result) + "\n");
} else if (mode === "print") {
  const out = {};
  for (const rel of rest) {
    const file = path.resolve(root, rel);
    out[rel] = fs.existsSync(file) ? normalise(file, fs.readFileSync(file, "utf8")) : null;
  }
  process.stdout.write(JSON.stringify(out) + "\n");
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}

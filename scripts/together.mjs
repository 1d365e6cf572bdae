#!/usr/bin/env node
// Runs npm scripts side by side and prints each one's output whole, in the order given, once it
// has finished; exits with the first non-zero status. `npm test` runs the type check beside the
// edge tests: tsc keeps about one core busy for 25 s and workerd's tests the other for about a
// minute, where one after the other took both in turn (docs/DESIGN.md, "Testing").
import { spawn } from "node:child_process";

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  console.error("usage: node scripts/together.mjs <npm script> [<npm script> ...]");
  process.exit(2);
}

function run(script) {
  return new Promise((resolve) => {
    const chunks = [];
    const child = spawn("npm", ["run", script], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stderr.on("data", (chunk) => chunks.push(chunk));
    child.on("error", (error) => resolve({ script, status: 1, output: Buffer.from(`${script}: ${error.message}\n`) }));
    child.on("close", (code, signal) => resolve({ script, status: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks) }));
  });
}

const results = await Promise.all(scripts.map(run));
let status = 0;
for (const result of results) {
  process.stdout.write(result.output);
  if (result.status !== 0) {
    process.stdout.write(`\n${result.script} failed (exit ${result.status})\n`);
    status ||= result.status;
  }
}
// Not process.exit(): on a pipe (`npm test | tee`, .ci/run) stdout is written asynchronously, and
// exiting at once cut the edge tests' output mid-line, their summary with it (a fresh-clone
// .ci/run on 2026-12-03 counted 567 tests, the compute ones, of 938). The children are done, so the
// process ends as soon as its output is written.
process.exitCode = status;

#!/usr/bin/env node
// `npm run dev`: the edge (wrangler dev, local mode) and the compute service together.
// COMPUTE_PROCESSES (default 2) compute processes on consecutive ports from COMPUTE_PORT: the
// edge sends jobs and the tasks of large jobs to whichever is free, as production does with
// containers. Ctrl-C stops them all. Secrets come from .dev.vars (created from .dev.vars.example if missing).
// `--help` prints the usage (USAGE below); any other argument is refused.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const USAGE = `Usage: npm run dev [-- --help]

Starts the edge (wrangler dev in local mode, no Cloudflare account) and the compute service on
this machine, together; Ctrl-C stops them all. It takes no arguments: settings come from the
environment. Secrets come from .dev.vars, created from .dev.vars.example on first run (local
admin token: dev-admin-token). npm runs build:dashboard first.

Environment:
  EDGE_PORT=N           the edge's port on 127.0.0.1 (default 8787)
  COMPUTE_PORT=N        the first compute process's port; the others follow (default 8788)
  COMPUTE_PROCESSES=N   compute processes; the edge sends each job and each task of a large job
                        to whichever is free (default 2)
  PREWARM=0|1           whether every compute process prewarms a pipeline thread (default: the
                        first only)

Options:
  -h, --help            print this help and exit

Example:
  COMPUTE_PROCESSES=1 npm run dev
  then open http://127.0.0.1:8787/ (dashboard) or http://127.0.0.1:8787/docs (API)`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (args.length > 0) {
  process.stderr.write(`dev: unknown ${args[0].startsWith("-") ? "option" : "argument"} ${args[0]}; npm run dev takes none (see npm run dev -- --help)\n`);
  process.exit(2);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const devVars = path.join(root, ".dev.vars");
if (!existsSync(devVars)) copyFileSync(path.join(root, ".dev.vars.example"), devVars);
const secrets = Object.fromEntries(
  readFileSync(devVars, "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1).trim()]),
);
const edgePort = Number(process.env.EDGE_PORT ?? 8787);
const computePort = Number(process.env.COMPUTE_PORT ?? 8788);
const computeProcesses = Math.max(1, Number(process.env.COMPUTE_PROCESSES ?? 2));
const computeUrls = Array.from({ length: computeProcesses }, (_, i) => `http://127.0.0.1:${computePort + i}`);
const baseUrl = `http://127.0.0.1:${edgePort}`;
const bin = path.join(root, "node_modules", ".bin");
const env = {
  ...process.env,
  PATH: `${bin}${path.delimiter}${process.env.PATH}`,
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

const children = [
  spawn(
    path.join(bin, "wrangler"),
    ["dev", "--local", "--ip", "127.0.0.1", "--port", String(edgePort), "--enable-containers=false", "--show-interactive-dev-session=false",
      "--var", `BASE_URL:${baseUrl}`, "--var", `CDN_URL:${baseUrl}/cdn`, "--var", `COMPUTE_URL:${computeUrls.join(",")}`],
    { cwd: root, env, stdio: ["ignore", "inherit", "inherit"] },
  ),
  ...computeUrls.map((_, i) =>
    spawn(path.join(bin, "node"), ["--import", "tsx", "compute/server.ts"], {
      cwd: root,
      // Only the first prewarms a pipeline thread: the others mostly run tasks.
      env: { ...env, PORT: String(computePort + i), EDGE_URL: baseUrl, COMPUTE_SECRET: secrets.COMPUTE_SECRET ?? "dev-compute-secret", PREWARM: process.env.PREWARM ?? (i === 0 ? "1" : "0") },
      stdio: ["ignore", "inherit", "inherit"],
    }),
  ),
];

console.log(`
  Edge (API):   ${baseUrl}        docs: ${baseUrl}/docs
  Compute:      ${computeUrls.map((u) => `${u}/healthz`).join("\n                ")}
  Get a local API key:
    curl -s -X POST ${baseUrl}/v1/admin/accounts \\
      -H "Authorization: Bearer ${secrets.ADMIN_TOKEN ?? "dev-admin-token"}" \\
      -H "Content-Type: application/json" -d '{"email":"you@example.com"}'
  Ctrl-C stops them all.
`);

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  setTimeout(() => process.exit(code), 3000).unref();
}
for (const child of children) child.on("exit", (code) => stop(code ?? 0));
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

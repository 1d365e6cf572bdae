#!/usr/bin/env node
// `npm run dev`: the edge (wrangler dev, local mode) and the compute service together.
// Ctrl-C stops both. Secrets come from .dev.vars (created from .dev.vars.example if missing).
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

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
      "--var", `BASE_URL:${baseUrl}`, "--var", `CDN_URL:${baseUrl}/cdn`, "--var", `COMPUTE_URL:http://127.0.0.1:${computePort}`],
    { cwd: root, env, stdio: ["ignore", "inherit", "inherit"] },
  ),
  spawn(path.join(bin, "node"), ["--import", "tsx", "compute/server.ts"], {
    cwd: root,
    env: { ...env, PORT: String(computePort), EDGE_URL: baseUrl, COMPUTE_SECRET: secrets.COMPUTE_SECRET ?? "dev-compute-secret" },
    stdio: ["ignore", "inherit", "inherit"],
  }),
];

console.log(`
  Edge (API):   ${baseUrl}        docs: ${baseUrl}/docs
  Compute:      http://127.0.0.1:${computePort}/healthz
  Get a local API key:
    curl -s -X POST ${baseUrl}/v1/admin/accounts \\
      -H "Authorization: Bearer ${secrets.ADMIN_TOKEN ?? "dev-admin-token"}" \\
      -H "Content-Type: application/json" -d '{"email":"you@example.com"}'
  Ctrl-C stops both.
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

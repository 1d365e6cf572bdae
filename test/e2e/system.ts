/**
 * @module Starts the real system for end-to-end tests: workerd through `wrangler dev` (local
 * mode, its own persistence folder) and one or more compute processes, on free loopback ports.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "node_modules", ".bin");

export interface SystemOptions {
  /** Extra wrangler vars, e.g. a short watchdog for kill tests. */
  vars?: Record<string, string>;
  computeEnv?: Record<string, string>;
  /** Start only the edge (a test plays compute itself). */
  noCompute?: boolean;
  /** Compute processes (default 1); the edge's COMPUTE_URL lists them all. */
  computeProcesses?: number;
}

export interface RunningSystem {
  baseUrl: string;
  /** The first compute process's URL. */
  computeUrl: string;
  computeUrls: string[];
  adminToken: string;
  /** wrangler's --persist-to folder (local R2 and Durable Object SQLite), removed by stop(). */
  persistDir: string;
  /** Starts compute process `index` (default 0) again. */
  startCompute(index?: number): Promise<void>;
  killCompute(signal?: NodeJS.Signals, index?: number): Promise<void>;
  stop(): Promise<void>;
  logs(): string;
}

/**
 * Test files run two at a time, and a port found free here is only taken later by the process
 * started on it (wrangler, compute), so two files asking the OS for "any free port" could be
 * handed the same one. Each vitest worker therefore takes ports from a block of its own, below
 * Linux's ephemeral range (32768–60999) where the OS hands out ports for `listen(0)` and for
 * outgoing connections, and checks each one is free before handing it out.
 */
const PORT_BLOCK = 2000;
const firstPort = 20_000 + (Number(process.env.VITEST_POOL_ID ?? 0) % 6) * PORT_BLOCK;
let nextPortOffset = Math.floor(Math.random() * PORT_BLOCK);

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let tries = 0; tries < PORT_BLOCK; tries++) {
    const port = firstPort + (nextPortOffset++ % PORT_BLOCK);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${firstPort}–${firstPort + PORT_BLOCK - 1}`);
}

async function waitFor(url: string, timeoutMs: number, child: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited (${child.exitCode}) before ${url} answered:\n${logs().slice(-4000)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${url}:\n${logs().slice(-4000)}`);
}

export async function startSystem(options: SystemOptions = {}): Promise<RunningSystem> {
  const edgePort = await freePort();
  const computePorts: number[] = [];
  for (let i = 0; i < (options.computeProcesses ?? 1); i++) computePorts.push(await freePort());
  const inspectorPort = await freePort();
  const persist = await mkdtemp(path.join(os.tmpdir(), "e2e-wrangler-"));
  const workRoot = await mkdtemp(path.join(os.tmpdir(), "e2e-compute-"));
  const baseUrl = `http://127.0.0.1:${edgePort}`;
  const computeUrls = computePorts.map((port) => `http://127.0.0.1:${port}`);
  const secrets = { ADMIN_TOKEN: "e2e-admin-token", SIGNING_SECRET: "e2e-signing-secret-0123456789", COMPUTE_SECRET: "e2e-compute-secret" };
  let output = "";
  const capture = (prefix: string) => (chunk: Buffer) => {
    output += chunk.toString().replace(/^/gm, prefix);
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, WRANGLER_SEND_METRICS: "false", WRANGLER_SEND_ERROR_REPORTS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", CI: "true" };
  const vars = { ...secrets, BASE_URL: baseUrl, CDN_URL: `${baseUrl}/cdn`, COMPUTE_URL: computeUrls.join(","), ...(options.vars ?? {}) };
  const edge = spawn(
    path.join(bin, "wrangler"),
    ["dev", "--local", "--ip", "127.0.0.1", "--port", String(edgePort), "--inspector-port", String(inspectorPort), "--persist-to", persist, "--enable-containers=false", "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`])],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  edge.stdout!.on("data", capture("[edge] "));
  edge.stderr!.on("data", capture("[edge] "));

  const computes: Array<ChildProcess | null> = computePorts.map(() => null);
  async function startCompute(index = 0): Promise<void> {
    // `node --import tsx`, not the tsx CLI: the CLI runs the program in a child process that a
    // SIGKILL of the CLI would leave running, and the kill test must kill compute for real.
    const child = spawn(path.join(bin, "node"), ["--import", "tsx", "compute/server.ts"], {
      cwd: root,
      env: { ...env, PORT: String(computePorts[index]), EDGE_URL: baseUrl, COMPUTE_SECRET: secrets.COMPUTE_SECRET, WORK_DIR: path.join(workRoot, String(index)), HEARTBEAT_SECONDS: "2", ...(options.computeEnv ?? {}) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const prefix = computes.length > 1 ? `[compute ${index}] ` : "[compute] ";
    child.stdout!.on("data", capture(prefix));
    child.stderr!.on("data", capture(prefix));
    computes[index] = child;
    await waitFor(`${computeUrls[index]}/healthz`, 60_000, child, () => output);
  }
  async function killCompute(signal: NodeJS.Signals = "SIGKILL", index = 0): Promise<void> {
    const child = computes[index];
    // A process ended by a signal keeps exitCode null: it has exited all the same.
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill(signal);
    await exited;
  }

  /**
   * `node_modules/.bin/wrangler` runs wrangler's CLI in a child process, which runs workerd:
   * SIGTERM lets the CLI stop workerd; a SIGKILL of the wrapper alone would leave both running.
   */
  async function stopEdge(): Promise<void> {
    if (edge.exitCode !== null || edge.signalCode !== null) return;
    const exited = new Promise((r) => edge.once("exit", r));
    edge.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (edge.exitCode === null && edge.signalCode === null) edge.kill("SIGKILL");
  }

  try {
    await waitFor(`${baseUrl}/v1/openapi.json`, 120_000, edge, () => output);
    if (!options.noCompute) await Promise.all(computePorts.map((_, i) => startCompute(i)));
  } catch (err) {
    await Promise.all(computePorts.map((_, i) => killCompute("SIGKILL", i)));
    await stopEdge();
    throw err;
  }
  return {
    baseUrl,
    computeUrl: computeUrls[0],
    computeUrls,
    adminToken: secrets.ADMIN_TOKEN,
    persistDir: persist,
    startCompute,
    killCompute,
    logs: () => output,
    async stop() {
      await Promise.all(computePorts.map((_, i) => killCompute("SIGTERM", i)));
      await stopEdge();
      await rm(persist, { recursive: true, force: true });
      await rm(workRoot, { recursive: true, force: true });
    },
  };
}

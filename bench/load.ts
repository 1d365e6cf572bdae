/**
 * @module `npm run bench -- load [--seconds 60] [--clients 8]`: a bounded load test of the real
 * stack on loopback (test/e2e/system.ts: wrangler dev + compute).
 *
 * One reconstruction is made first (a rendered photo set) so there is something to download.
 * Then each client, with its own account, loops for the fixed time: create from two tiny blank
 * JPEGs (valid files that the pipeline refuses within a second or two, so creations outpace no
 * compute queue and every one exercises debit + refund), poll its status to the end, and fetch
 * the warm-up model's download record and bytes. Afterwards the unfinished are drained and the
 * credit ledger and R2 are audited against what the clients saw (bench/load-audit.ts).
 * Rate limits are raised for the run: this measures the service, not the limiter.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { createAccount, pollUntilDone, upload, type Api } from "../test/e2e/client.js";
import { startSystem } from "../test/e2e/system.js";
import { renderScene, writeViewsAsImages } from "../test/support/render.js";
import { audit, type Outcome } from "./load-audit.js";

const MAX_SECONDS = 120;
const DRAIN_SECONDS = 90;

interface Sample {
  endpoint: string;
  ms: number;
  ok: boolean;
  detail?: string;
}

function option(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? Number(args[at + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

async function timed(samples: Sample[], endpoint: string, run: () => Promise<Response>, expected: number): Promise<Response | undefined> {
  const start = performance.now();
  try {
    const res = await run();
    const ok = res.status === expected;
    const body = ok ? undefined : await res.clone().text();
    samples.push({ endpoint, ms: performance.now() - start, ok, detail: ok ? undefined : `${res.status} ${body?.slice(0, 120)}` });
    return res;
  } catch (error) {
    samples.push({ endpoint, ms: performance.now() - start, ok: false, detail: (error as Error).message });
    return undefined;
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

const auth = (api: Api) => ({ authorization: `Bearer ${api.apiKey}` });

async function clientLoop(api: Api, owner: Api, blanks: string[], modelId: string, until: number, samples: Sample[], created: string[]): Promise<void> {
  const form = async () => {
    const body = new FormData();
    for (const file of blanks) body.append("files", new Blob([await readFile(file)]), path.basename(file));
    return body;
  };
  while (Date.now() < until) {
    const body = await form();
    const res = await timed(samples, "POST /v1/reconstruction", () => fetch(`${api.baseUrl}/v1/reconstruction`, { method: "POST", headers: auth(api), body }), 202);
    if (res?.status === 202) {
      const { id } = (await res.json()) as { id: string };
      created.push(id);
      for (;;) {
        const status = await timed(samples, "GET status", () => fetch(`${api.baseUrl}/v1/reconstruction/${id}/status`, { headers: auth(api) }), 200);
        const state = status?.status === 200 ? ((await status.json()) as { status: string }).status : "unknown";
        if (state === "completed" || state === "failed" || Date.now() >= until) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const record = await timed(samples, "GET download", () => fetch(`${api.baseUrl}/v1/reconstruction/${modelId}/download/glb`, { headers: auth(owner) }), 200);
    if (record?.status === 200) {
      const { download_url } = (await record.json()) as { download_url: string };
      const bytes = await timed(samples, "GET cdn bytes", () => fetch(download_url), 200);
      await bytes?.arrayBuffer();
    }
  }
}

function report(samples: Sample[], seconds: number): void {
  const endpoints = [...new Set(samples.map((s) => s.endpoint))];
  console.log(`\n${samples.length} requests in ${seconds} s: ${(samples.length / seconds).toFixed(1)} requests/s`);
  console.log("endpoint                  count   errors    p50 ms    p95 ms    p99 ms");
  for (const endpoint of endpoints) {
    const mine = samples.filter((s) => s.endpoint === endpoint);
    const sorted = mine.map((s) => s.ms).sort((a, b) => a - b);
    const errors = mine.filter((s) => !s.ok);
    console.log(`${endpoint.padEnd(24)} ${String(mine.length).padStart(6)} ${String(errors.length).padStart(8)} ${[50, 95, 99].map((p) => percentile(sorted, p).toFixed(1).padStart(9)).join(" ")}`);
    for (const e of errors.slice(0, 3)) console.log(`    error: ${e.detail}`);
  }
}

export async function run(args: string[]): Promise<void> {
  const seconds = Math.min(option(args, "seconds", 60), MAX_SECONDS);
  const clients = option(args, "clients", 8);
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-load-"));
  const system = await startSystem({ vars: { RATE_LIMIT_REQUESTS: "1000000", RATE_LIMIT_CREATES: "1000000" } });
  try {
    console.log(`stack up at ${system.baseUrl}; warm-up: one reconstruction to download from`);
    const scene = renderScene({ scene: "object", views: 10, width: 400, height: 300, seed: 7, stepDegrees: 12 });
    const photos = await writeViewsAsImages(scene.views, path.join(dir, "photos"));
    const owner = await createAccount(system.baseUrl, system.adminToken, 1);
    const warm = await upload(owner, photos, { quality: "preview" });
    if (warm.status !== 202) throw new Error(`warm-up create: ${warm.status} ${await warm.text()}`);
    const modelId = ((await warm.json()) as { id: string }).id;
    const warmEnd = (await pollUntilDone(owner, modelId, 600_000)).at(-1)!;
    if (warmEnd.status !== "completed") throw new Error(`warm-up reconstruction ${warmEnd.status}: ${JSON.stringify(warmEnd.error)}`);

    const blanks = await Promise.all([0, 1].map(async (i) => {
      const file = path.join(dir, `blank-${i}.jpg`);
      await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 90 + i, g: 90, b: 90 } } }).jpeg().toFile(file);
      return file;
    }));
    // Creations go to each client's own account; downloads read the warm-up model with its owner's key.
    const accounts = await Promise.all(Array.from({ length: clients }, () => createAccount(system.baseUrl, system.adminToken, 100_000)));
    const samples: Sample[] = [];
    const created: string[][] = accounts.map(() => []);
    console.log(`load: ${clients} clients for ${seconds} s`);
    const until = Date.now() + seconds * 1000;
    await Promise.all(accounts.map((account, i) => clientLoop(account, owner, blanks, modelId, until, samples, created[i]).catch((e) => samples.push({ endpoint: "client", ms: 0, ok: false, detail: String(e) }))));
    report(samples, seconds);

    // Drain: every creation must end, then the ledger and R2 must agree with the clients.
    const outcomes: Outcome[] = [{ id: modelId, status: "completed", creditRefunded: false }];
    for (const [i, ids] of created.entries()) {
      for (const id of ids) {
        const end = (await pollUntilDone(accounts[i], id, DRAIN_SECONDS * 1000, 500)).at(-1)!;
        outcomes.push({ id, status: end.status, creditRefunded: end.credit_refunded });
      }
    }
    const tally = outcomes.reduce<Record<string, number>>((t, o) => ({ ...t, [o.status]: (t[o.status] ?? 0) + 1 }), {});
    console.log(`\nreconstructions: ${JSON.stringify(tally)}`);
    const { problems, summary } = await audit(system.persistDir, outcomes);
    console.log(`audit: ${JSON.stringify(summary)}`);
    const errors = samples.filter((s) => !s.ok).length;
    if (problems.length) console.log(`LEDGER/R2 DISAGREE:\n  ${problems.slice(0, 20).join("\n  ")}`);
    else console.log("ledger and R2 agree: every debit has a reconstruction, every failed one refunded once");
    console.log(`errors: ${errors} (goal 0)`);
    if (problems.length || errors) process.exitCode = 1;
  } finally {
    await system.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

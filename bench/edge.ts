/**
 * @module `npm run bench -- edge`: the edge Worker in a real workerd, over loopback.
 *
 * 1. Memory: uploads a small request, then ~50 MiB, then a ~200 MiB mixed request (synthetic MP4/MOV
 *    "videos" and JPEGs that pass byte sniffing; no compute runs), sampling the workerd
 *    process's resident memory from /proc, to show that memory does not grow with upload size.
 * 2. Throughput: N concurrent clients read one reconstruction's status for a fixed time;
 *    reports requests/second and workerd CPU time per request (from /proc/<pid>/stat).
 *
 * The Worker is bundled with esbuild and run by Miniflare directly (no `wrangler dev` proxy in
 * front), with the bindings of wrangler.jsonc. Two deliberate departures from production
 * config: the per-account request limit is raised so the throughput loop is not answered 429,
 * and the queue consumer is not attached (dispatch to compute is not what is measured).
 * Options: --upload-mib=200 --clients=8 --seconds=5
 */
import { mkdtemp, rm } from "node:fs/promises";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ADMIN_TOKEN = "bench-admin-token-0123456789";
const BOUNDARY = "----edge-bench-boundary-q8Zp1mW0xY7bN2cD";
const MIB = 1024 * 1024;
/** Linux reports /proc/<pid>/stat times in clock ticks; 100 per second on every common kernel. */
const CLOCK_TICKS_PER_SECOND = 100;

interface Options {
  uploadMiB: number;
  clients: number;
  seconds: number;
}

function parseOptions(args: string[]): Options {
  const value = (name: string, fallback: number) => {
    const arg = args.find((a) => a.startsWith(`--${name}=`));
    return arg ? Number(arg.split("=")[1]) : fallback;
  };
  return { uploadMiB: value("upload-mib", 200), clients: value("clients", 8), seconds: value("seconds", 5) };
}

export async function run(args: string[]): Promise<void> {
  process.env.WRANGLER_SEND_METRICS = "false";
  process.env.WRANGLER_SEND_ERROR_REPORTS = "false";
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  const options = parseOptions(args);
  const workDir = await mkdtemp(path.join(os.tmpdir(), "edge-bench-"));
  const mf = await startWorker(workDir);
  try {
    const baseUrl = (await mf.ready).toString().replace(/\/$/, "");
    const workerdPid = findWorkerdPid(process.pid);
    console.log(`workerd pid ${workerdPid} at ${baseUrl}; ${os.cpus().length} CPU cores shared with this client`);
    const apiKey = await createAccount(baseUrl);
    const rows: string[][] = [];
    const uploads: [string, SyntheticFile[]][] = [
      ["upload (small)", smallUpload()],
      ["upload (quarter)", largeUpload(options.uploadMiB / 4)],
      ["upload (large)", largeUpload(options.uploadMiB)],
    ];
    let small: UploadFigures | undefined;
    for (const [label, files] of uploads) {
      // Uploads run smallest first, so each peak includes whatever the earlier ones left behind.
      const figures = await measureUpload(baseUrl, apiKey, workerdPid, files);
      small ??= figures;
      rows.push([label, mib(figures.bytes), `${figures.seconds.toFixed(2)} s, ${(figures.bytes / MIB / figures.seconds).toFixed(1)} MiB/s`, `RSS peak ${mib(figures.peakRssBytes)} (before ${mib(figures.rssBeforeBytes)})`, `VmHWM ${mib(figures.hwmBytes)}`]);
    }
    const reads = await measureStatusReads(baseUrl, apiKey, small!.id, workerdPid, options);
    rows.push([`GET status x${options.clients} clients`, `${reads.requests} req / ${options.seconds} s`, `${reads.perSecond.toFixed(0)} req/s`, `${reads.cpuMsPerRequest.toFixed(3)} ms workerd CPU/req`, `p50 ${reads.p50Ms.toFixed(1)} ms, p99 ${reads.p99Ms.toFixed(1)} ms, non-200: ${reads.failures}`]);
    const [load1, load5] = os.loadavg();
    console.log(`machine load average during the run: ${load1!.toFixed(1)} (1 min), ${load5!.toFixed(1)} (5 min) on ${os.cpus().length} cores`);
    printTable(["measure", "size / count", "time / rate", "workerd memory / CPU", "notes"], rows);
  } finally {
    await mf.dispose();
    await rm(workDir, { recursive: true, force: true });
  }
}

async function startWorker(workDir: string): Promise<Miniflare> {
  const { workerOptions, main } = unstable_getMiniflareWorkerOptions(path.join(repoRoot, "wrangler.jsonc"));
  const scriptPath = path.join(workDir, "index.js");
  await build({
    entryPoints: [main ?? path.join(repoRoot, "edge/index.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2023",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "import"],
    external: ["cloudflare:*", "node:*"],
    outfile: scriptPath,
    logLevel: "error",
  });
  const bindings = {
    ...(workerOptions.bindings as Record<string, string>),
    ADMIN_TOKEN,
    SIGNING_SECRET: "bench-signing-secret-0123456789",
    COMPUTE_SECRET: "bench-compute-secret",
    RATE_LIMIT_REQUESTS: "100000000",
    RATE_LIMIT_CREATES: "1000",
  };
  // wrangler hands out v4-style worker options; miniflare 5 converts them itself.
  return new Miniflare(convertV4MiniflareOptions({
    host: "127.0.0.1",
    port: 0,
    logRequests: false,
    // Module names are paths relative to rootPath; the bundle lives in workDir.
    rootPath: workDir,
    // On disk, so uploaded objects are not counted in anyone's memory.
    resourcePersistencePath: path.join(workDir, "state"),
    workers: [{ ...portableOptions(workerOptions as Record<string, unknown>), name: "edge", modules: true, scriptPath, bindings, queueConsumers: {} }],
  } as Parameters<typeof convertV4MiniflareOptions>[0]));
}

/** Drops v4 options that only matter for unbundled sources (we hand miniflare one bundle). */
function portableOptions(options: Record<string, unknown>): Record<string, unknown> {
  const { modulesRules: _rules, rootPath: _root, ...rest } = options;
  return rest;
}

/** The workerd process started (directly or through a helper) by this Node process. */
function findWorkerdPid(rootPid: number): number {
  const parentOf = new Map<number, number>();
  const nameOf = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      nameOf.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parentOf.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // The process ended while listing.
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === rootPid) return true;
    return false;
  };
  const found = [...nameOf].filter(([pid, name]) => name === "workerd" && descends(pid)).map(([pid]) => pid);
  if (found.length !== 1) throw new Error(`bench edge: expected one workerd child process, found ${found.length}`);
  return found[0]!;
}

function memoryOf(pid: number): { rssBytes: number; hwmBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { rssBytes: kib("VmRSS"), hwmBytes: kib("VmHWM") };
}

/** User + system CPU seconds of a process so far (fields 14 and 15 of /proc/<pid>/stat). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

async function createAccount(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/admin/accounts`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ email: "bench@example.com", credits: 10 }),
  });
  if (res.status !== 201) throw new Error(`bench edge: account creation answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { api_key: string }).api_key;
}

interface SyntheticFile {
  name: string;
  /** The file's first bytes: a real signature so that sniffing accepts it. */
  head: Uint8Array;
  bytes: number;
}

function ftyp(major: string, compatible: string[]): Uint8Array {
  const size = 16 + 4 * compatible.length;
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, size);
  out.set(new TextEncoder().encode(`ftyp${major}\0\0\x02\0${compatible.join("")}`), 4);
  return out;
}

/** SOI, APP0 JFIF, SOF0 4000×3000 (the estimate reads it), then filler. */
function jpegHead(): Uint8Array {
  return new Uint8Array([
    0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
    0xff, 0xc0, 0, 17, 8, 3000 >> 8, 3000 & 255, 4000 >> 8, 4000 & 255, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
  ]);
}

function smallUpload(): SyntheticFile[] {
  return [
    { name: "a.jpg", head: jpegHead(), bytes: 400 * 1024 },
    { name: "b.jpg", head: jpegHead(), bytes: 400 * 1024 },
  ];
}

/** About `totalMiB`: three MP4s take 80%, two MOVs 12%, JPEGs of 2 MiB the rest. */
function largeUpload(totalMiB: number): SyntheticFile[] {
  const files: SyntheticFile[] = [];
  const mp4Bytes = Math.floor((totalMiB * 0.8 * MIB) / 3);
  for (let i = 0; i < 3; i++) files.push({ name: `walk-${i}.mp4`, head: ftyp("isom", ["isom", "iso2", "avc1", "mp41"]), bytes: mp4Bytes });
  const movBytes = Math.floor((totalMiB * 0.12 * MIB) / 2);
  for (let i = 0; i < 2; i++) files.push({ name: `orbit-${i}.mov`, head: ftyp("qt  ", ["qt  "]), bytes: movBytes });
  const jpegCount = Math.max(1, Math.round((totalMiB * 0.08) / 2));
  for (let i = 0; i < jpegCount; i++) files.push({ name: `photo-${i}.jpg`, head: jpegHead(), bytes: 2 * MIB });
  return files;
}

/** The multipart body, generated chunk by chunk so the client holds no more than one chunk. */
function multipartStream(files: SyntheticFile[]): { stream: ReadableStream<Uint8Array>; bytes: number } {
  const encoder = new TextEncoder();
  const block = new Uint8Array(256 * 1024);
  for (let i = 0, state = 12345; i < block.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    block[i] = state >>> 24;
  }
  const pieces: (Uint8Array | { fill: number })[] = [];
  for (const file of files) {
    pieces.push(encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    pieces.push(file.head, { fill: file.bytes - file.head.length }, encoder.encode("\r\n"));
  }
  pieces.push(encoder.encode(`--${BOUNDARY}--\r\n`));
  const bytes = pieces.reduce((n, p) => n + (p instanceof Uint8Array ? p.length : p.fill), 0);
  let index = 0;
  let filled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[index];
      if (!piece) return controller.close();
      if (piece instanceof Uint8Array) {
        index++;
        return controller.enqueue(piece);
      }
      const take = Math.min(block.length, piece.fill - filled);
      controller.enqueue(block.slice(0, take));
      filled += take;
      if (filled === piece.fill) {
        index++;
        filled = 0;
      }
    },
  });
  return { stream, bytes };
}

interface UploadFigures {
  id: string;
  bytes: number;
  seconds: number;
  rssBeforeBytes: number;
  peakRssBytes: number;
  hwmBytes: number;
}

async function measureUpload(baseUrl: string, apiKey: string, pid: number, files: SyntheticFile[]): Promise<UploadFigures> {
  const { stream, bytes } = multipartStream(files);
  const rssBeforeBytes = memoryOf(pid).rssBytes;
  let peakRssBytes = rssBeforeBytes;
  const sampler = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, memoryOf(pid).rssBytes)), 10);
  const started = performance.now();
  try {
    const res = await fetch(`${baseUrl}/v1/reconstruction`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const body = (await res.json()) as { id?: string };
    if (res.status !== 202 || !body.id) throw new Error(`bench edge: upload answered ${res.status}: ${JSON.stringify(body)}`);
    const seconds = (performance.now() - started) / 1000;
    peakRssBytes = Math.max(peakRssBytes, memoryOf(pid).rssBytes);
    return { id: body.id, bytes, seconds, rssBeforeBytes, peakRssBytes, hwmBytes: memoryOf(pid).hwmBytes };
  } finally {
    clearInterval(sampler);
  }
}

interface ReadFigures {
  requests: number;
  failures: number;
  perSecond: number;
  cpuMsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
}

async function measureStatusReads(baseUrl: string, apiKey: string, id: string, pid: number, options: Options): Promise<ReadFigures> {
  const url = `${baseUrl}/v1/reconstruction/${id}/status`;
  const headers = { Authorization: `Bearer ${apiKey}` };
  for (let i = 0; i < 20; i++) await (await fetch(url, { headers })).arrayBuffer(); // warm-up
  const latenciesMs: number[] = [];
  let failures = 0;
  const cpuBefore = cpuSecondsOf(pid);
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      latenciesMs.push(performance.now() - sent);
      if (res.status !== 200) failures++;
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuSecondsOf(pid) - cpuBefore;
  latenciesMs.sort((a, b) => a - b);
  const pick = (q: number) => latenciesMs[Math.min(latenciesMs.length - 1, Math.floor(q * latenciesMs.length))] ?? 0;
  return {
    requests: latenciesMs.length,
    failures,
    perSecond: latenciesMs.length / elapsed,
    cpuMsPerRequest: (cpu * 1000) / Math.max(1, latenciesMs.length),
    p50Ms: pick(0.5),
    p99Ms: pick(0.99),
  };
}

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const row of rows) console.log(line(row));
}

// Allows `npx tsx bench/edge.ts` as well as `npm run bench -- edge`.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  run(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * @module `npm run bench -- burst [--jobs 30] [--kill-after S] [--timeout 2400]`: a bounded burst
 * of real reconstructions on the real stack on loopback (test/e2e/system.ts: wrangler dev + two
 * compute processes).
 *
 * Many more jobs than compute slots arrive at once, from three accounts of unequal appetite
 * (A 20, B 8, C 2 of the default 30): does every job still end completed, none `dispatch_failed`,
 * how long does each wait before it starts, how far off was the ETA the client was first told,
 * and what place in the queue (the status record's optional `queue`) was it shown? Midway one
 * compute process is SIGKILLed and started again 20 s later, as a platform replaces a dead
 * container, so its jobs must come back through the watchdog (60 s here, not production's).
 * Afterwards every account's charges are audited (one debit per job, no refund for a completed
 * one, the balance to match; bench/load-audit.ts reads the ledger) and every GLB is fetched and
 * checked whole. Rate limits are raised for the run: this measures the queue, not the limiter.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createAccount, getJson, upload, type Api } from "../test/e2e/client.js";
import { startSystem, type RunningSystem } from "../test/e2e/system.js";
import { renderScene, writeViewsAsImages } from "../test/support/render.js";
import { audit } from "./load-audit.js";

const POLL_MS = 2000;
const PROGRESS_MS = 15_000;
const RESTART_AFTER_MS = 20_000;
/** Stop waiting when no status poll has been answered this long (the edge died). */
const EDGE_SILENT_MS = 60_000;
/** The compute process killed midway (of the two). */
const VICTIM = 1;

/** The status record's fields read here; `queue` is optional (only newer edges send it). */
interface JobStatus {
  status: "pending" | "processing" | "completed" | "failed";
  started_at: string | null;
  completed_at: string | null;
  error?: { code: string };
  credit_refunded: boolean;
  queue?: { reason: "queued" | "starting"; position: number; estimated_start: string };
}

interface Account {
  name: string;
  api: Api;
  jobs: number;
  credits: number;
}

interface BurstJob {
  id: string;
  account: Account;
  /** The creation record's `created_at`. */
  createdAt: string;
  /** The creation record's `estimated_completion`: the first ETA the client is told. */
  firstEta: string;
  last?: JobStatus;
  firstQueuePosition?: number;
  everQueued: boolean;
}

interface Options {
  jobs: number;
  killAfterS?: number;
  timeoutS: number;
}

function option(args: string[], name: string): number | undefined {
  const at = args.indexOf(`--${name}`);
  if (at < 0) return undefined;
  const value = Number(args[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

/** A 20, B 8, C 2 by default; `--jobs N` changes A's share (B and C shrink only below 12). */
function shares(total: number): Array<[string, number]> {
  if (total < 3) throw new Error("--jobs must be at least 3 (one per account)");
  const c = total >= 12 ? 2 : 1;
  const b = total >= 12 ? 8 : Math.max(1, Math.round((total * 8) / 30));
  return [["A", total - b - c], ["B", b], ["C", c]];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (from?: string | null, to?: string | null) => (from && to ? (Date.parse(to) - Date.parse(from)) / 1000 : undefined);
const fmt = (n: number | undefined, width = 8) => (n === undefined || Number.isNaN(n) ? "–" : n.toFixed(1)).padStart(width);
const isEnded = (job: BurstJob) => job.last?.status === "completed" || job.last?.status === "failed";
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? (sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2) : NaN;
};
const defined = (values: Array<number | undefined>) => values.filter((v): v is number => v !== undefined);
const waitS = (job: BurstJob) => seconds(job.createdAt, job.last?.started_at);
const runS = (job: BurstJob) => seconds(job.last?.started_at, job.last?.completed_at);
/** First ETA minus the real end, for completed jobs; negative: the first ETA was early. */
const etaErrorS = (job: BurstJob) => (job.last?.status === "completed" ? seconds(job.last.completed_at, job.firstEta) : undefined);

async function createJob(account: Account, photos: string[]): Promise<BurstJob> {
  const res = await upload(account.api, photos, { quality: "preview" });
  if (res.status !== 202) throw new Error(`create for account ${account.name}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  const record = (await res.json()) as { id: string; created_at: string; estimated_completion: string };
  return { id: record.id, account, createdAt: record.created_at, firstEta: record.estimated_completion, everQueued: false };
}

/** Fires every creation at once; throws with every refusal if any. */
async function createBurst(accounts: Account[], photos: string[]): Promise<BurstJob[]> {
  const settled = await Promise.allSettled(accounts.flatMap((account) => Array.from({ length: account.jobs }, () => createJob(account, photos))));
  const refused = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected").map((s) => String(s.reason));
  if (refused.length) throw new Error(`${refused.length} creations refused:\n  ${refused.slice(0, 10).join("\n  ")}`);
  return settled.map((s) => (s as PromiseFulfilledResult<BurstJob>).value);
}

/** Polls every unfinished job once; returns how many answered. */
async function pollOnce(jobs: BurstJob[], pollErrors: string[]): Promise<number> {
  let answered = 0;
  await Promise.all(jobs.filter((job) => !isEnded(job)).map(async (job) => {
    try {
      const res = await fetch(`${job.account.api.baseUrl}/v1/reconstruction/${job.id}/status`, { headers: { authorization: `Bearer ${job.account.api.apiKey}` }, signal: AbortSignal.timeout(10_000) });
      if (res.status !== 200) return void pollErrors.push(`${job.id}: HTTP ${res.status} ${(await res.text()).slice(0, 120)}`);
      const body = (job.last = (await res.json()) as JobStatus);
      answered++;
      if (body.queue && job.firstQueuePosition === undefined) job.firstQueuePosition = body.queue.position;
      if (body.queue?.reason === "queued") job.everQueued = true;
    } catch (error) {
      pollErrors.push(`${job.id}: ${(error as Error).message}`);
    }
  }));
  return answered;
}

function progressLine(jobs: BurstJob[], elapsedS: number): string {
  const count = (state: string) => jobs.filter((job) => (job.last?.status ?? "pending") === state).length;
  const queued = jobs.filter((job) => job.last?.status === "pending" && job.last.queue?.reason === "queued").length;
  return `t=${elapsedS.toFixed(0)} s  pending ${count("pending")} (queued ${queued})  processing ${count("processing")}  completed ${count("completed")}  failed ${count("failed")}`;
}

/** Kills compute VICTIM once at the trigger (elapsed time, or a third completed) and starts it again 20 s later. */
function killPlan(system: RunningSystem, options: Options) {
  let killedAt: number | undefined;
  let restarted = false;
  return {
    async tick(jobs: BurstJob[], elapsedS: number): Promise<void> {
      const completed = jobs.filter((job) => job.last?.status === "completed").length;
      const due = options.killAfterS !== undefined ? elapsedS >= options.killAfterS : completed * 3 >= jobs.length;
      if (killedAt === undefined && due) {
        await system.killCompute("SIGKILL", VICTIM);
        killedAt = Date.now();
        console.log(`t=${elapsedS.toFixed(0)} s  SIGKILL compute ${VICTIM} (${completed} completed)`);
      } else if (killedAt !== undefined && !restarted && Date.now() - killedAt >= RESTART_AFTER_MS) {
        await system.startCompute(VICTIM);
        restarted = true;
        console.log(`t=${elapsedS.toFixed(0)} s  compute ${VICTIM} started again`);
      }
    },
    summary: () => (killedAt === undefined ? "kill: never (trigger not reached)" : `kill: compute ${VICTIM} SIGKILLed, ${restarted ? "restarted 20 s later" : "not restarted (all ended first)"}`),
  };
}

/** Polls until every job ended, the timeout, or the edge stops answering; returns the wall time in seconds. */
async function watch(system: RunningSystem, jobs: BurstJob[], options: Options, startMs: number, pollErrors: string[]) {
  const kill = killPlan(system, options);
  let lastProgressMs = Date.now();
  let lastAnswerMs = Date.now();
  let edgeGone = false;
  while (Date.now() - startMs < options.timeoutS * 1000) {
    if ((await pollOnce(jobs, pollErrors)) > 0) lastAnswerMs = Date.now();
    const elapsedS = (Date.now() - startMs) / 1000;
    if (Date.now() - lastProgressMs >= PROGRESS_MS) {
      console.log(progressLine(jobs, elapsedS));
      lastProgressMs = Date.now();
    }
    if (jobs.every(isEnded)) break;
    if (Date.now() - lastAnswerMs > EDGE_SILENT_MS) {
      console.log(`t=${elapsedS.toFixed(0)} s  the edge answered no status poll for ${EDGE_SILENT_MS / 1000} s: stopping (last error: ${pollErrors.at(-1)})`);
      edgeGone = true;
      break;
    }
    await kill.tick(jobs, elapsedS);
    await sleep(POLL_MS);
  }
  console.log(progressLine(jobs, (Date.now() - startMs) / 1000));
  return { wallS: (Date.now() - startMs) / 1000, killSummary: kill.summary(), edgeGone };
}

function printTable(jobs: BurstJob[]): void {
  console.log("\nid      acct   wait s    run s  state       error                 eta err s  queue pos");
  for (const job of jobs) {
    const state = job.last?.status ?? "unseen";
    console.log(`${job.id.slice(-6)}  ${job.account.name.padEnd(4)} ${fmt(waitS(job))} ${fmt(runS(job))}  ${state.padEnd(10)}  ${(job.last?.error?.code ?? "").padEnd(20)} ${fmt(etaErrorS(job), 10)}  ${String(job.firstQueuePosition ?? "–").padStart(9)}`);
  }
}

function printSummary(jobs: BurstJob[], accounts: Account[], wallS: number): void {
  const completed = jobs.filter((job) => job.last?.status === "completed");
  const failed = jobs.filter((job) => job.last?.status === "failed");
  const dispatchFailed = failed.filter((job) => job.last?.error?.code === "dispatch_failed").length;
  const spread = (label: string, values: number[]) => console.log(`${label}: median ${fmt(median(values), 0)} s, max ${fmt(values.length ? Math.max(...values) : NaN, 0)} s`);
  console.log(`\ncompleted ${completed.length}/${jobs.length}; dispatch_failed ${dispatchFailed}; other failures ${failed.length - dispatchFailed}`);
  spread("wait (created→started)", defined(jobs.map(waitS)));
  spread("run (started→completed)", defined(completed.map(runS)));
  spread("|first ETA error|", defined(completed.map(etaErrorS)).map(Math.abs));
  for (const account of accounts) spread(`  account ${account.name} (${account.jobs} jobs) wait`, defined(jobs.filter((job) => job.account === account).map(waitS)));
  const withQueue = jobs.filter((job) => job.firstQueuePosition !== undefined).length;
  console.log(withQueue ? `queue field: seen on ${withQueue} jobs, "queued" on ${jobs.filter((job) => job.everQueued).length}` : "queue field: never seen in a status record");
  console.log(`total wall time: ${wallS.toFixed(1)} s`);
}

/** Balance and usage from GET /v1/account, and the ledger rows (bench/load-audit.ts) against what the jobs ended as. */
async function auditCharges(system: RunningSystem, accounts: Account[], jobs: BurstJob[]): Promise<string[]> {
  const problems: string[] = [];
  for (const account of accounts) {
    const mine = jobs.filter((job) => job.account === account);
    const charged = mine.filter((job) => !(job.last?.status === "failed" && job.last.credit_refunded)).length;
    const { status, body } = await getJson<{ balance: number; usage: { reconstructions: number } }>(account.api, "/v1/account");
    if (status !== 200) problems.push(`account ${account.name}: GET /v1/account HTTP ${status}`);
    else {
      if (body.balance !== account.credits - charged) problems.push(`account ${account.name}: balance ${body.balance}, expected ${account.credits} − ${charged} = ${account.credits - charged}`);
      if (body.usage.reconstructions !== mine.length) problems.push(`account ${account.name}: ${body.usage.reconstructions} reconstructions charged, created ${mine.length}`);
    }
  }
  const outcomes = jobs.map((job) => ({ id: job.id, status: job.last?.status ?? "unseen", creditRefunded: job.last?.credit_refunded ?? false }));
  problems.push(...(await audit(system.persistDir, outcomes)).problems);
  return problems;
}

/** Why a GLB is not whole (header, declared length, JSON chunk), or undefined. */
function glbProblem(bytes: Uint8Array): string | undefined {
  if (bytes.byteLength < 20) return `only ${bytes.byteLength} bytes`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== 0x46546c67) return "magic is not glTF";
  if (view.getUint32(4, true) !== 2) return `version ${view.getUint32(4, true)}`;
  if (view.getUint32(8, true) !== bytes.byteLength) return `header says ${view.getUint32(8, true)} bytes, got ${bytes.byteLength}`;
  const jsonLength = view.getUint32(12, true);
  if (view.getUint32(16, true) !== 0x4e4f534a) return "first chunk is not JSON";
  if (20 + jsonLength > bytes.byteLength) return "JSON chunk runs past the end";
  try {
    JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
    return undefined;
  } catch (error) {
    return `JSON chunk does not parse: ${(error as Error).message}`;
  }
}

async function checkGlb(job: BurstJob): Promise<string | undefined> {
  const record = await getJson<{ download_url: string; file_size: number }>(job.account.api, `/v1/reconstruction/${job.id}/download/glb`);
  if (record.status !== 200) return `download record HTTP ${record.status}`;
  const res = await fetch(record.body.download_url);
  if (res.status !== 200) return `bytes HTTP ${res.status}`;
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.byteLength !== record.body.file_size) return `${bytes.byteLength} bytes, record says ${record.body.file_size}`;
  return glbProblem(bytes);
}

async function checkGlbs(jobs: BurstJob[]): Promise<string[]> {
  const completed = jobs.filter((job) => job.last?.status === "completed");
  const problems = (await Promise.all(completed.map(async (job) => {
    const problem = await checkGlb(job).catch((error: Error) => error.message);
    return problem ? `${job.id}: ${problem}` : undefined;
  }))).filter((p): p is string => p !== undefined);
  console.log(problems.length ? `glb: ${completed.length - problems.length}/${completed.length} whole; broken:\n  ${problems.join("\n  ")}` : `glb: ${completed.length}/${completed.length} whole`);
  return problems;
}

export async function run(args: string[]): Promise<void> {
  const options: Options = { jobs: option(args, "jobs") ?? 30, killAfterS: option(args, "kill-after"), timeoutS: option(args, "timeout") ?? 2400 };
  const plan = shares(options.jobs);
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-burst-"));
  const system = await startSystem({
    computeProcesses: 2,
    vars: { RATE_LIMIT_REQUESTS: "1000000", RATE_LIMIT_CREATES: "1000000", WATCHDOG_PROCESSING_SECONDS: "60", WATCHDOG_PENDING_SECONDS: "60" },
  });
  try {
    const scene = renderScene({ scene: "object", views: 10, width: 400, height: 300, seed: 7, stepDegrees: 12 });
    const photos = await writeViewsAsImages(scene.views, path.join(dir, "photos"));
    const accounts = await Promise.all(plan.map(async ([name, jobs]): Promise<Account> => ({ name, jobs, credits: jobs + 1, api: await createAccount(system.baseUrl, system.adminToken, jobs + 1) })));
    console.log(`stack up at ${system.baseUrl} with 2 compute processes; burst of ${options.jobs} preview jobs (${plan.map(([n, j]) => `${n} ${j}`).join(", ")})`);
    const startMs = Date.now();
    const jobs = await createBurst(accounts, photos);
    console.log(`created ${jobs.length} in ${((Date.now() - startMs) / 1000).toFixed(1)} s`);
    const pollErrors: string[] = [];
    const { wallS, killSummary, edgeGone } = await watch(system, jobs, options, startMs, pollErrors);

    printTable(jobs);
    printSummary(jobs, accounts, wallS);
    console.log(killSummary);
    console.log(`status polls failed: ${pollErrors.length}${pollErrors.length ? ` (first: ${pollErrors[0]})` : ""}`);
    const chargeProblems = await auditCharges(system, accounts, jobs);
    console.log(chargeProblems.length ? `charges: WRONG\n  ${chargeProblems.slice(0, 20).join("\n  ")}` : "charges: OK");
    const glbProblems = await checkGlbs(jobs);

    const unfinished = jobs.filter((job) => job.last?.status !== "completed").length;
    const dispatchFailed = jobs.filter((job) => job.last?.error?.code === "dispatch_failed").length;
    const verdict = [
      edgeGone && "the edge stopped answering",
      unfinished && `${unfinished} jobs did not complete`,
      dispatchFailed && `${dispatchFailed} dispatch_failed`,
      chargeProblems.length && `${chargeProblems.length} charge problems`,
      glbProblems.length && `${glbProblems.length} broken GLBs`,
    ].filter(Boolean);
    if (verdict.length) throw new Error(`burst failed: ${verdict.join("; ")}`);
    console.log("burst: OK");
  } catch (error) {
    console.log(`\nlast lines of the stack's output:\n${system.logs().slice(-4000)}`);
    throw error;
  } finally {
    await system.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

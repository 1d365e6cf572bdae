/**
 * @module Sends generated cases and checks the invariants every malformed request must keep:
 * a 4xx (never 5xx) whose body is the error envelope with a known code that matches the
 * status. Side effects (credits, stored objects) are checked by the test after the batch.
 */
import { ERROR_CODES, statusOf, type ErrorCode } from "../../../shared/errors.js";
import { createRng, type CaseGenerator, type FuzzCase, type FuzzContext } from "./generator.js";

export interface FuzzFailure {
  index: number;
  label: string;
  problem: string;
}

export interface FuzzRun {
  sent: number;
  failures: FuzzFailure[];
  /** How many answers each status/code pair got, for the test log. */
  tally: Record<string, number>;
}

export interface FuzzSettings {
  seed: number;
  count: number;
  /** Stop generating after this long (ms); the test then checks enough cases ran. */
  budgetMs: number;
  generators: CaseGenerator[];
  send: (c: FuzzCase) => Promise<Response>;
  ctx: FuzzContext;
  /** Called every `every` cases (e.g. to check storage), with the cases sent so far. */
  checkpoint?: { every: number; run: (sent: number) => Promise<string | undefined> };
}

async function problemWith(res: Response, method: string): Promise<string | undefined> {
  if (res.status < 400 || res.status > 499) return `status ${res.status}: ${(await res.text()).slice(0, 200)}`;
  // A HEAD answer has no body to carry the envelope (RFC 9110 §9.3.2).
  if (method === "HEAD") return undefined;
  if (!res.headers.get("content-type")?.startsWith("application/json")) return `content-type ${res.headers.get("content-type")}`;
  let body: { error?: { code?: unknown; message?: unknown; suggestion?: unknown } };
  try {
    body = await res.json();
  } catch {
    return "body is not JSON";
  }
  const e = body.error;
  if (!e || typeof e.message !== "string" || typeof e.suggestion !== "string") return `not the error envelope: ${JSON.stringify(body).slice(0, 200)}`;
  if (!ERROR_CODES.includes(e.code as ErrorCode)) return `unknown code ${String(e.code)}`;
  if (statusOf(e.code as ErrorCode) !== res.status) return `code ${String(e.code)} with status ${res.status}`;
  return undefined;
}

export async function runFuzz(settings: FuzzSettings): Promise<FuzzRun> {
  const rng = createRng(settings.seed);
  const deadline = Date.now() + settings.budgetMs;
  const run: FuzzRun = { sent: 0, failures: [], tally: {} };
  for (let index = 0; index < settings.count && Date.now() < deadline; index++) {
    const fuzzCase = rng.pick(settings.generators)(rng, settings.ctx);
    let problem: string | undefined;
    try {
      const res = await settings.send(fuzzCase);
      const copy = res.clone();
      const method = fuzzCase.init.method ?? "GET";
      problem = await problemWith(res, method);
      const code = problem || method === "HEAD" ? "-" : ((await copy.json()) as { error: { code: string } }).error.code;
      run.tally[`${res.status} ${code}`] = (run.tally[`${res.status} ${code}`] ?? 0) + 1;
    } catch (error) {
      problem = `threw ${(error as Error).stack ?? String(error)}`;
    }
    run.sent++;
    if (problem) run.failures.push({ index, label: fuzzCase.label, problem });
    if (settings.checkpoint && run.sent % settings.checkpoint.every === 0) {
      const broken = await settings.checkpoint.run(run.sent);
      if (broken) run.failures.push({ index, label: `checkpoint after ${run.sent} cases`, problem: broken });
    }
  }
  return run;
}

/**
 * @module Where edge → compute POSTs go, and how one answer is read.
 *
 * With `COMPUTE_URL` (local dev, CI) the POST goes over HTTP to one of its base URLs: they are
 * tried in turn from a random one, and the first 202 wins, so several compute processes share
 * the work. Without it, the POST goes to the Container binding (production), to the instance of
 * the given name. Both speak the same contract: 202 at once, or 503/429 with Retry-After when busy.
 */
import type { JobMessage } from "../../shared/jobs.js";
import type { Env } from "../env.js";
import { configOf } from "../env.js";

export type DispatchOutcome = { kind: "accepted" } | { kind: "busy"; retryAfterSeconds: number } | { kind: "error"; message: string };

/**
 * POSTs the job to compute: the HTTP targets, or in production the Container instance named
 * `containerName` (the waiting line's slot; by default one instance per reconstruction). Never
 * throws: the outcome says what happened.
 */
export function dispatchJob(job: JobMessage, env: Env, containerName = job.reconstruction_id): Promise<DispatchOutcome> {
  return postToCompute(env, { path: "/jobs", body: job, containerName });
}

/** Exponential backoff for the n-th delivery (1-based): 2, 4, 8, … seconds, capped. */
export function backoffSeconds(deliveries: number, maxSeconds = 300): number {
  return Math.min(maxSeconds, 2 ** Math.max(1, deliveries));
}

/** How long a message waits before its next try: compute's Retry-After when busy, else the backoff; both capped. */
export function retryDelaySeconds(outcome: Exclude<DispatchOutcome, { kind: "accepted" }>, deliveries: number, maxSeconds: number): number {
  return outcome.kind === "busy" ? Math.min(outcome.retryAfterSeconds, maxSeconds) : backoffSeconds(deliveries, maxSeconds);
}

/** Retry-After when a busy compute names none. */
const DEFAULT_RETRY_AFTER_SECONDS = 30;

export interface ComputePost {
  /** `/jobs` or `/tasks`. */
  path: string;
  body: unknown;
  /** The Container instance that takes it in production. */
  containerName: string;
}

/** POSTs to compute (HTTP targets or the Container). Never throws: the outcome says what happened. */
export async function postToCompute(env: Env, post: ComputePost): Promise<DispatchOutcome> {
  const config = configOf(env);
  const init = (): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${config.COMPUTE_SECRET}` },
    body: JSON.stringify(post.body),
    signal: AbortSignal.timeout(config.DISPATCH_TIMEOUT_SECONDS * 1000),
  });
  const urls = config.COMPUTE_URL;
  if (urls) {
    const start = Math.floor(Math.random() * urls.length);
    return tryInTurn(urls, start, (url) => answerOf(() => fetch(`${url}${post.path}`, init())));
  }
  return answerOf(() => containerFetch(env, post.containerName, new Request(`http://compute${post.path}`, init())));
}

/**
 * Tries `targets` from index `start` round the list and stops at the first acceptance. When none
 * accepts: busy if any was busy (the soonest Retry-After: that one may free up first), else the
 * errors together.
 */
export async function tryInTurn<T>(targets: readonly T[], start: number, attempt: (target: T) => Promise<DispatchOutcome>): Promise<DispatchOutcome> {
  let soonestRetry: number | undefined;
  const errors: string[] = [];
  for (let offset = 0; offset < targets.length; offset++) {
    const outcome = await attempt(targets[(start + offset) % targets.length]!);
    if (outcome.kind === "accepted") return outcome;
    if (outcome.kind === "busy") soonestRetry = Math.min(soonestRetry ?? Infinity, outcome.retryAfterSeconds);
    else errors.push(outcome.message);
  }
  if (soonestRetry !== undefined) return { kind: "busy", retryAfterSeconds: soonestRetry };
  return { kind: "error", message: errors.join("; ") || "no compute target configured" };
}

/** One POST's outcome: 202 accepted, 503/429 busy, anything else (or no answer) an error. */
async function answerOf(send: () => Promise<Response>): Promise<DispatchOutcome> {
  let res: Response;
  try {
    res = await send();
  } catch (err) {
    return { kind: "error", message: `compute unreachable: ${String(err)}` };
  }
  const text = await res.text().catch(() => "");
  if (res.status === 202) return { kind: "accepted" };
  if (res.status === 503 || res.status === 429) {
    const retryAfter = Number(res.headers.get("retry-after"));
    return { kind: "busy", retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : DEFAULT_RETRY_AFTER_SECONDS };
  }
  return { kind: "error", message: `compute answered HTTP ${res.status}: ${text.slice(0, 200)}` };
}

/**
 * Production path: the compute Container (edge/compute/container.ts), bound as COMPUTE_CONTAINER in
 * wrangler's production environment; one instance per name.
 */
async function containerFetch(env: Env, name: string, request: Request): Promise<Response> {
  if (!env.COMPUTE_CONTAINER) throw new Error("neither COMPUTE_URL nor the COMPUTE_CONTAINER binding is configured");
  const { getContainer } = await import("@cloudflare/containers");
  return getContainer(env.COMPUTE_CONTAINER, name).fetch(request);
}

/** @module Shared helpers for edge tests (inside workerd): accounts, keys, authenticated fetches. */
import { env as workerEnv, exports } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import { createApp } from "../../edge/app.js";
import type { Env } from "../../edge/env.js";

/**
 * The test bindings, typed. Cast because edge/worker-env.d.ts's `interface Env extends
 * import(...)` is not valid TypeScript (TS2499, hidden by skipLibCheck), so `Cloudflare.Env`
 * stays empty.
 */
export const env = workerEnv as unknown as Env;

export const BASE = "http://example.com";

export interface TestAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
  balance: number;
}

/** Headers for an operator request (ADMIN_TOKEN from the test bindings). */
export function adminHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${env.ADMIN_TOKEN}`, "Content-Type": "application/json", ...extra };
}

/** Headers for a public API request with `apiKey`. */
export function keyHeaders(apiKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${apiKey}`, ...extra };
}

/** Test files in the order this worker first sent a request for them (fileAddress). */
const addressOfFile = new Map<string, string>();

/**
 * The client address of the running test file's requests when they name none: one per file, in
 * the benchmarking range 198.18.0.0/15. The files a vitest worker runs share its workerd and
 * storage (vitest.edge.config.ts, `isolate: false`), and this module, so without it every file's
 * operator calls and unauthenticated requests would spend one "local" rate-limit budget together.
 */
function fileAddress(): string {
  const file = expect.getState().testPath ?? "";
  let address = addressOfFile.get(file);
  if (address === undefined) {
    const n = addressOfFile.size + 1;
    address = `198.18.${(n >> 8) & 255}.${n & 255}`;
    addressOfFile.set(file, address);
  }
  return address;
}

/** `init` with the file's client address (fileAddress) unless it names one. */
function fromFileAddress(init: RequestInit): RequestInit {
  const headers = new Headers(init.headers);
  if (!headers.has("CF-Connecting-IP") && !headers.has("X-Forwarded-For")) headers.set("CF-Connecting-IP", fileAddress());
  return { ...init, headers };
}

/** Calls the Worker as a client would (the real `fetch` export, real bindings). */
export function request(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`${BASE}${path}`, fromFileAddress(init)));
}

/**
 * Creates an account through the operator API. Without `credits`, it gets the trial grant.
 * Pass `address` to count the operator call against a client address other than "local".
 */
export async function createAccount(credits?: number, options: { email?: string; address?: string } = {}): Promise<TestAccount> {
  const body: Record<string, unknown> = { email: options.email ?? "test@example.com" };
  if (credits !== undefined) body.credits = credits;
  const headers = adminHeaders(options.address ? { "CF-Connecting-IP": options.address } : {});
  const res = await request("/v1/admin/accounts", { method: "POST", headers, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`createAccount: ${res.status} ${await res.text()}`);
  const created = (await res.json()) as { account_id: string; api_key: string; key_id: string; balance: number };
  return { accountId: created.account_id, apiKey: created.api_key, keyId: created.key_id, balance: created.balance };
}

/**
 * The keys of R2 under `prefix` now that are not in `before` (a list of this function's or a
 * snapshot): what a test stored since. Files run earlier in the same workerd share its R2
 * (vitest.edge.config.ts), so a test asks this to be empty, not the bucket.
 */
export async function keysAddedSince(before: Iterable<string>, prefix = ""): Promise<string[]> {
  const old = new Set(before);
  return (await storedKeys(prefix)).filter((key) => !old.has(key));
}

/** The keys of R2 under `prefix` (the first 1000). */
export async function storedKeys(prefix = ""): Promise<string[]> {
  return (await env.BUCKET.list({ prefix, limit: 1000 })).objects.map((o) => o.key);
}

/** The account's Durable Object, for reading the ledger (`await accountStub(id).ledger()`). */
export function accountStub(accountId: string) {
  return env.ACCOUNTS.get(env.ACCOUNTS.idFromName(accountId));
}

/**
 * Runs a request through a fresh app with some variables overridden (e.g. small rate limits)
 * and the real bindings otherwise; production defaults stay untouched.
 */
export async function requestWithVars(path: string, vars: Partial<Record<keyof Env, string>>, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(new Request(`${BASE}${path}`, fromFileAddress(init)), { ...env, ...vars } as unknown as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/**
 * Waits, when fewer than `marginSeconds` remain in the current fixed rate-limit window of
 * `windowSeconds` (windows start at multiples of their length, edge/objects/rate-limiter.ts),
 * until the next one starts: a test that spends a budget in several requests must not have
 * its counts reset halfway by a window boundary (it did, once, on a loaded machine).
 */
export async function awayFromWindowEnd(windowSeconds: number, marginSeconds: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const leftMs = windowMs - (Date.now() % windowMs);
  if (leftMs < marginSeconds * 1000) await new Promise((resolve) => setTimeout(resolve, leftMs + 50));
}

/**
 * @module Rate limiting: counts requests per account (per client address when unauthenticated)
 * in that caller's RateLimiterObject and writes the rate-limit headers of docs/API.md "Rate limits".
 *
 * Headers follow the IETF draft "RateLimit header fields for HTTP" (structured fields
 * `RateLimit-Policy` and `RateLimit`), plus the widely read `X-RateLimit-*` trio. Each request
 * is counted at most once per budget, however many of these middlewares it passes through.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.js";
import { configOf } from "../env.js";
import { ApiError } from "../errors.js";
import type { Budget, BudgetState } from "../objects/rate-limiter-rpc.js";

export type LimitKind = "request" | "create";

/** Policy names as they appear in the headers: `"default"` is docs/API.md's request budget. */
const POLICY_OF_BUDGET = { request: "default", create: "create" } as const;

export interface LimitOutcome {
  allowed: boolean;
  headers: Record<string, string>;
}

/** Budgets already counted for a request, so stacked middlewares never count twice. */
const counted = new WeakMap<Request, Map<string, BudgetState>>();

/** Who a request is counted against: the account once authenticated, else the client address. */
export function callerOf(c: Context<AppEnv>): string {
  const accountId = c.get("accountId");
  if (accountId) return `account:${accountId}`;
  // CF-Connecting-IP is set by Cloudflare and cannot be forged by the client; X-Forwarded-For
  // is only a fallback for local dev behind a proxy; "local" when neither is present.
  const address = c.req.header("CF-Connecting-IP") ?? c.req.header("X-Forwarded-For")?.split(",")[0]?.trim();
  return `address:${address || "local"}`;
}

/** Counts this request against the caller's budgets for `kind` and returns the headers to send. */
export async function countRequest(c: Context<AppEnv>, kind: LimitKind): Promise<LimitOutcome> {
  const config = configOf(c.env);
  const wanted: Budget[] = [{ name: "request", limit: config.RATE_LIMIT_REQUESTS, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS }];
  if (kind === "create") wanted.push({ name: "create", limit: config.RATE_LIMIT_CREATES, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS });
  const already = counted.get(c.req.raw) ?? new Map<string, BudgetState>();
  const toCount = wanted.filter((budget) => !already.has(budget.name));
  if (toCount.length > 0) {
    const stub = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(callerOf(c)));
    for (const state of await stub.hit(toCount)) already.set(state.name, state);
    counted.set(c.req.raw, already);
  }
  // Non-null: the request budget was counted just now or by an earlier middleware.
  return outcomeOf(c.req.raw) as LimitOutcome;
}

/** What every budget counted so far for this request says; null if none was counted. */
function outcomeOf(request: Request): LimitOutcome | null {
  const states = [...(counted.get(request)?.values() ?? [])];
  if (states.length === 0) return null;
  return { allowed: states.every((s) => s.allowed), headers: headersOf(states, Math.floor(Date.now() / 1000)) };
}

/** Header values for the given budget states; X-RateLimit-* describe the tightest budget. */
export function headersOf(states: BudgetState[], nowSeconds: number): Record<string, string> {
  const ordered = [...states].sort((a, b) => (a.name === "request" ? -1 : b.name === "request" ? 1 : 0));
  const policyName = (s: BudgetState) => POLICY_OF_BUDGET[s.name as LimitKind] ?? s.name;
  const secondsLeft = (s: BudgetState) => Math.max(0, s.resetAt - nowSeconds);
  const tightest = ordered.reduce((a, b) => (b.remaining < a.remaining || (!b.allowed && a.allowed) ? b : a));
  const headers: Record<string, string> = {
    "RateLimit-Policy": ordered.map((s) => `"${policyName(s)}";q=${s.limit};w=${s.windowSeconds}`).join(", "),
    RateLimit: ordered.map((s) => `"${policyName(s)}";r=${s.remaining};t=${secondsLeft(s)}`).join(", "),
    "X-RateLimit-Limit": String(tightest.limit),
    "X-RateLimit-Remaining": String(tightest.remaining),
    "X-RateLimit-Reset": String(tightest.resetAt),
  };
  const blocked = ordered.filter((s) => !s.allowed);
  if (blocked.length > 0) headers["Retry-After"] = String(Math.max(1, ...blocked.map(secondsLeft)));
  return headers;
}

export function rateLimitedError(headers: Record<string, string>): ApiError {
  return new ApiError(
    "rate_limited",
    `Too many requests; the limit resets in ${headers["Retry-After"] ?? "a few"} seconds.`,
    "Wait for the number of seconds in Retry-After, then retry.",
    headers,
  );
}

function applyHeaders(c: Context<AppEnv>, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
}

/**
 * Counts one request against the caller and rejects it with 429 when over a budget. "create"
 * also counts against the creation budget: a creation attempt consumes both.
 */
export function rateLimit(kind: LimitKind): MiddlewareHandler<AppEnv> {
  return async function rateLimitMiddleware(c, next) {
    const outcome = await countRequest(c, kind);
    if (!outcome.allowed) throw rateLimitedError(outcome.headers);
    await next();
    // Set after next(), when errors thrown below are already c.res (made by onError), and from
    // all budgets counted for the request: a later rateLimit("create") may have added one.
    applyHeaders(c, (outcomeOf(c.req.raw) ?? outcome).headers);
  };
}

/**
 * Safety net for every /v1 response that no route counted (unknown paths, a route mounted
 * without `rateLimit`): counts it and adds the headers; over the limit, the answer becomes 429.
 */
export function ensureRateLimitHeaders(): MiddlewareHandler<AppEnv> {
  return async function ensureRateLimitHeadersMiddleware(c, next) {
    await next();
    if (c.res.headers.has("RateLimit-Policy")) return;
    const outcome = await countRequest(c, "request");
    if (!outcome.allowed) {
      const error = rateLimitedError(outcome.headers);
      c.res = c.json({ error: { code: error.code, message: error.message, suggestion: error.suggestion } }, 429);
    }
    applyHeaders(c, outcome.headers);
  };
}

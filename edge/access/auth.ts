/**
 * @module Authentication: API keys for the public API, the operator token for /v1/admin.
 *
 * A rejected request is still counted against the client address and carries the rate-limit
 * headers (docs/API.md: "Rate limits" puts them on every /v1 response; "Which error wins":
 * 401 before 429, so an address over its limit still learns that its key is wrong). Nothing is
 * cached: a revoked key fails on the very next request because every request asks the
 * account's Durable Object.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.js";
import { ApiError } from "../errors.js";
import { constantTimeEqual, parseApiKey, sha256Hex } from "./keys.js";
import { countRequest } from "./rate-limit.js";

/** The credential of a `Bearer` Authorization header; null when absent or another scheme. */
export function bearerToken(c: Context<AppEnv>): string | null {
  const header = c.req.header("Authorization");
  if (!header) return null;
  // Per RFC 9110 §11.1 the auth scheme is case-insensitive.
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return match ? match[1] : null;
}

function missingKey(kind: "API key" | "operator token"): ApiError {
  return new ApiError(
    "missing_api_key",
    `No ${kind}: send the header "Authorization: Bearer <${kind === "API key" ? "API_KEY" : "ADMIN_TOKEN"}>".`,
    kind === "API key" ? "Ask the operator for an API key and send it as a Bearer token." : "Send the ADMIN_TOKEN secret as a Bearer token.",
  );
}

function invalidKey(kind: "API key" | "operator token"): ApiError {
  return new ApiError(
    "invalid_api_key",
    `The ${kind} is not valid (unknown, revoked or malformed).`,
    kind === "API key" ? "Check the key, or ask the operator for a new one." : "Check the ADMIN_TOKEN secret.",
  );
}

/** Rethrows an auth failure with the caller's rate-limit headers attached. */
async function reject(c: Context<AppEnv>, error: ApiError): Promise<never> {
  const outcome = await countRequest(c, "request");
  throw new ApiError(error.code, error.message, error.suggestion, { ...error.headers, ...outcome.headers });
}

/** Returns the account id for a live key, or null. Malformed keys never reach a Durable Object. */
export async function verifyApiKey(c: Context<AppEnv>, apiKey: string): Promise<string | null> {
  const parsed = parseApiKey(apiKey);
  if (!parsed) return null;
  const stub = c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(parsed.accountId));
  return (await stub.verifyKey(parsed.keyId, await sha256Hex(apiKey))) ? parsed.accountId : null;
}

/** Requires a live API key; sets `c.var.accountId`. */
export function requireApiKey(): MiddlewareHandler<AppEnv> {
  return async function requireApiKeyMiddleware(c, next) {
    const token = bearerToken(c);
    if (token === null) return reject(c, missingKey("API key"));
    const accountId = await verifyApiKey(c, token);
    if (accountId === null) return reject(c, invalidKey("API key"));
    c.set("accountId", accountId);
    await next();
  };
}

/** Requires `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
export function requireAdmin(): MiddlewareHandler<AppEnv> {
  return async function requireAdminMiddleware(c, next) {
    const token = bearerToken(c);
    if (token === null) return reject(c, missingKey("operator token"));
    const expected = c.env.ADMIN_TOKEN;
    if (!expected || !(await constantTimeEqual(token, expected))) return reject(c, invalidKey("operator token"));
    await next();
  };
}

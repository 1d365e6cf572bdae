/** @module GET /v1/account: the caller's balance, trial state and usage. */
import { Hono } from "hono";
import type { AppEnv } from "../app-env.js";
import { requireApiKey } from "../access/auth.js";
import { ApiError } from "../errors.js";
import { rateLimit } from "../access/rate-limit.js";

export const accountRoutes = new Hono<AppEnv>();
accountRoutes.use("*", requireApiKey(), rateLimit("request"));

accountRoutes.get("/", async (c) => {
  const accountId = c.get("accountId");
  if (!accountId) throw new ApiError("missing_api_key", "No API key.", "Send an API key as a Bearer token.");
  const summary = await c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(accountId)).summary();
  // A key was verified against this account a moment ago; a null here means it was deleted since.
  if (summary === null) throw new ApiError("invalid_api_key", "The API key's account no longer exists.", "Ask the operator for a new key.");
  return c.json(summary, 200);
});

/**
 * @module Operator API under /v1/admin: accounts, keys, credits (docs/API.md "Accounts and keys").
 *
 * Authorised by ADMIN_TOKEN. It is not limited per account; requests are counted per client
 * address like any other /v1 request (which also slows down guessing the token).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.js";
import { requireAdmin } from "../access/auth.js";
import { configOf } from "../env.js";
import { ApiError } from "../errors.js";
import { isAccountId, isKeyId, issueApiKey, newAccountId } from "../access/keys.js";
import { rateLimit } from "../access/rate-limit.js";

const AccountId = z.string().meta({ description: "Account id", example: "acc_4Fq9zXc2Lm8Rt1Vb6Nw3Yp" });
const KeyId = z.string().meta({ description: "API key id (not secret)", example: "key_7Hs2Kd9Qw1Ze5Rx3" });
const ApiKey = z.string().meta({
  description: "The API key. Shown once, at creation; only its hash is stored.",
  example: "pk_live_4Fq9zXc2Lm8Rt1Vb6Nw3Yp_7Hs2Kd9Qw1Ze5Rx3_Jm2Xc8Vb4Nq7Lp1Zt6Rw9Ys3Ke5Ha0Ud",
});

export const CreateAccountBody = z
  .object({
    email: z.email().max(320).meta({ description: "Contact address of the account owner", example: "dev@example.com" }),
    credits: z.number().int().nonnegative().max(1_000_000).optional().meta({
      description: "Opening credits, recorded as a top-up. Without it, the free-trial grant (TRIAL_CREDITS, default 5).",
      example: 20,
    }),
  })
  .meta({ id: "CreateAccountBody" });

export const CreateAccountResponse = z
  .object({ account_id: AccountId, api_key: ApiKey, key_id: KeyId, balance: z.number().int() })
  .meta({ id: "CreateAccountResponse" });

export const CreateKeyResponse = z.object({ api_key: ApiKey, key_id: KeyId }).meta({ id: "CreateKeyResponse" });

export const CreditsBody = z
  .object({
    amount: z.number().int().min(-1_000_000).max(1_000_000).refine((n) => n !== 0, "amount must not be 0").meta({
      description: "Credits to add (positive: a top-up) or remove (negative: an adjustment). Refused if the balance would go below 0.",
      example: 10,
    }),
    reason: z.string().trim().min(1).max(500).meta({ description: "Why; kept in the ledger", example: "invoice 2026-114" }),
  })
  .meta({ id: "CreditsBody" });

export const CreditsResponse = z.object({ balance: z.number().int().nonnegative() }).meta({ id: "CreditsResponse" });

async function parseJson<T extends z.ZodType>(c: Context<AppEnv>, schema: T): Promise<z.infer<T>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new ApiError("invalid_request", "The body is not valid JSON.", 'Send a JSON body with "Content-Type: application/json".');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; ");
    throw new ApiError("invalid_request", `Invalid body: ${detail}.`, "See the operator API in GET /docs.");
  }
  return parsed.data;
}

function accountNotFound(): ApiError {
  return new ApiError("not_found", "No such account.", "Check the account id.");
}

/** The account's object; ids that are not even well-formed are 404 without touching storage. */
function accountStub(c: Context<AppEnv>, accountId: string) {
  if (!isAccountId(accountId)) throw accountNotFound();
  return c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(accountId));
}

export const adminRoutes = new Hono<AppEnv>();
adminRoutes.use("*", requireAdmin(), rateLimit("request"));

adminRoutes.post("/accounts", async (c) => {
  const body = await parseJson(c, CreateAccountBody);
  const accountId = newAccountId();
  const key = await issueApiKey(accountId);
  const grant = body.credits === undefined ? { kind: "trial" as const, amount: configOf(c.env).TRIAL_CREDITS } : { kind: "topup" as const, amount: body.credits };
  const created = await accountStub(c, accountId).create({ accountId, email: body.email, grant, key: { keyId: key.keyId, hash: key.hash } });
  const response: z.infer<typeof CreateAccountResponse> = { account_id: accountId, api_key: key.apiKey, key_id: key.keyId, balance: created.balance };
  return c.json(response, 201);
});

adminRoutes.post("/accounts/:account_id/keys", async (c) => {
  const accountId = c.req.param("account_id");
  const stub = accountStub(c, accountId);
  const key = await issueApiKey(accountId);
  if (!(await stub.addKey(key.keyId, key.hash))) throw accountNotFound();
  const response: z.infer<typeof CreateKeyResponse> = { api_key: key.apiKey, key_id: key.keyId };
  return c.json(response, 201);
});

adminRoutes.delete("/accounts/:account_id/keys/:key_id", async (c) => {
  const stub = accountStub(c, c.req.param("account_id"));
  const keyId = c.req.param("key_id");
  if (!(await stub.exists())) throw accountNotFound();
  if (!isKeyId(keyId) || !(await stub.revokeKey(keyId))) throw new ApiError("not_found", "No such key on this account.", "Check the key id.");
  return c.body(null, 204);
});

adminRoutes.post("/accounts/:account_id/credits", async (c) => {
  const stub = accountStub(c, c.req.param("account_id"));
  const body = await parseJson(c, CreditsBody);
  const result = await stub.adjustCredits(body.amount, body.reason);
  if (result === null) throw accountNotFound();
  if (!result.ok) {
    throw new ApiError(
      "invalid_request",
      `Refused: the balance is ${result.balance}; a change of ${body.amount} would take it below 0.`,
      "Use an amount no lower than minus the current balance.",
    );
  }
  const response: z.infer<typeof CreditsResponse> = { balance: result.balance };
  return c.json(response, 200);
});

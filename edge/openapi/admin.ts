/** @module The OpenAPI paths of the operator API (/v1/admin): accounts, their keys and credits. */
import { AUTH, errorResponses, jsonBody, ok, rateLimitHeaders, type Json, type OpenApiSettings } from "./common.js";

const ACCOUNT_PARAM = { name: "account_id", in: "path", required: true, schema: { type: "string", pattern: "^acc_[0-9A-Za-z]{22}$" } };
const KEY_PARAM = { name: "key_id", in: "path", required: true, schema: { type: "string", pattern: "^key_[0-9A-Za-z]{16}$" } };

export function adminPaths(s: OpenApiSettings): Json {
  const admin = [{ adminToken: [] }];
  const tags = ["Operator"];
  return {
    "/v1/admin/accounts": {
      post: {
        operationId: "adminCreateAccount",
        tags,
        summary: "Create an account and its first API key",
        description: `Without \`credits\`, the account gets the free trial (${s.trialCredits} credits). The API key is shown once; only its hash is stored.`,
        security: admin,
        requestBody: jsonBody("CreateAccountBody"),
        responses: { "201": ok("Created.", "CreateAccountResponse"), ...errorResponses(["invalid_request", ...AUTH]) },
      },
    },
    "/v1/admin/accounts/{account_id}/keys": {
      post: {
        operationId: "adminCreateKey",
        tags,
        summary: "Issue another API key for an account",
        security: admin,
        parameters: [ACCOUNT_PARAM],
        responses: { "201": ok("Created; the key is shown once.", "CreateKeyResponse"), ...errorResponses(["not_found", ...AUTH]) },
      },
    },
    "/v1/admin/accounts/{account_id}/keys/{key_id}": {
      delete: {
        operationId: "adminRevokeKey",
        tags,
        summary: "Revoke an API key; it fails from the next request on",
        security: admin,
        parameters: [ACCOUNT_PARAM, KEY_PARAM],
        responses: { "204": { description: "Revoked (revoking twice is harmless).", headers: rateLimitHeaders() }, ...errorResponses(["not_found", ...AUTH]) },
      },
    },
    "/v1/admin/accounts/{account_id}/credits": {
      post: {
        operationId: "adminAdjustCredits",
        tags,
        summary: "Add or remove credits (a ledger row with the reason)",
        description: "An amount that would take the available balance below 0 is refused with 400 `invalid_request` and changes nothing.",
        security: admin,
        parameters: [ACCOUNT_PARAM],
        requestBody: jsonBody("CreditsBody"),
        responses: { "200": ok("The new balance.", "CreditsResponse"), ...errorResponses(["invalid_request", "not_found", ...AUTH]) },
      },
    },
  };
}

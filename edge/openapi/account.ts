/** @module The OpenAPI path of the caller's account: GET /v1/account. */
import { AUTH, errorResponses, ok, type Json } from "./common.js";

export function accountPaths(): Json {
  const apiKey = [{ apiKey: [] }];
  return {
    "/v1/account": {
      get: {
        operationId: "getAccount",
        tags: ["Account"],
        summary: "Balance, trial state and usage of the caller's account",
        description:
          "`balance` is the credits available now: the ledger sum minus credits held by creations in progress. " +
          "`trial` is true while every credit the account ever received came from the free-trial grant; the first top-up ends it. " +
          "`usage.reconstructions` counts charged reconstructions; `completed` and `failed` count how they ended.",
        security: apiKey,
        responses: { "200": ok("The account record.", "AccountRecord"), ...errorResponses(AUTH) },
      },
    },
  };
}

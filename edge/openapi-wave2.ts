/**
 * @module The OpenAPI paths of the wave-2 endpoints built on the `hooks` branch: cancel, delete,
 * idempotent creation, webhooks. Kept out of openapi.ts so parallel branches merge cleanly;
 * openapi.ts merges these paths into its own (methods of one path are combined).
 */
import type { ErrorCode } from "../shared/errors.js";

type Json = Record<string, unknown>;

/** openapi.ts's builders, passed in so the two modules do not import each other. */
export interface OpenApiHelpers {
  ok(description: string, schemaName: string): Json;
  errorResponses(codes: ErrorCode[]): Json;
  rateLimitHeaders(): Json;
  jsonBody(schemaName: string): Json;
  ID_PARAM: Json;
  AUTH: ErrorCode[];
}

/** Zod schemas that become `#/components/schemas/<name>`. */
export const wave2Components = {};

/** Paths from several builders; a path present in more than one gets all their methods. */
export function mergePaths(...groups: Json[]): Json {
  const merged: Record<string, Json> = {};
  for (const group of groups) for (const [path, methods] of Object.entries(group)) merged[path] = { ...(merged[path] ?? {}), ...(methods as Json) };
  return merged;
}

export function wave2Paths(h: OpenApiHelpers): Json {
  const { ok, errorResponses, rateLimitHeaders, ID_PARAM, AUTH } = h;
  const security = [{ apiKey: [] }];
  const tags = ["Reconstructions"];
  return {
    "/v1/reconstruction/{id}/cancel": {
      post: {
        operationId: "cancelReconstruction",
        tags,
        summary: "Stop a pending or processing reconstruction",
        description:
          "The reconstruction becomes `failed` with `error.code` `cancelled` and its credit is refunded once (`credit_refunded: true`). " +
          "The compute job stops at its next checkpoint (its next heartbeat, within seconds) and writes no further output. " +
          "An already completed or failed reconstruction answers 409 `already_terminal` and changes nothing.",
        security,
        parameters: [ID_PARAM],
        responses: { "200": ok("The status record after the cancel.", "StatusRecord"), ...errorResponses(["not_found", "already_terminal", ...AUTH]) },
      },
    },
    "/v1/reconstruction/{id}": {
      delete: {
        operationId: "deleteReconstruction",
        tags,
        summary: "Delete a reconstruction and every stored file",
        description:
          "Cancels it first when it is still pending or processing (refunding the credit), removes every uploaded input and every output from storage, " +
          "then the id answers 404 for everyone, its owner included. Download links already issued stop working.",
        security,
        parameters: [ID_PARAM],
        responses: { "204": { description: "Deleted.", headers: rateLimitHeaders() }, ...errorResponses(["not_found", ...AUTH]) },
      },
    },
  };
}

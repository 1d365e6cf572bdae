/**
 * @module The OpenAPI paths of the wave-2 endpoints built on the `hooks` branch: cancel, delete,
 * idempotent creation, webhooks. Kept out of openapi.ts so parallel branches merge cleanly;
 * openapi.ts merges these paths into its own (methods of one path are combined).
 */
import type { ErrorCode } from "../shared/errors.js";
import { CreateWebhookBody, WebhookCreated, WebhookDeliveryList, WebhookList, WebhookPayload } from "../shared/webhooks.js";

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
export const wave2Components = { CreateWebhookBody, WebhookCreated, WebhookList, WebhookDeliveryList, WebhookPayload };

/** Paths from several builders; a path present in more than one gets all their methods. */
export function mergePaths(...groups: Json[]): Json {
  const merged: Record<string, Json> = {};
  for (const group of groups) for (const [path, methods] of Object.entries(group)) merged[path] = { ...(merged[path] ?? {}), ...(methods as Json) };
  return merged;
}

/** Adds the `Idempotency-Key` header and its two errors to the create operation of `paths`. */
export function withIdempotencyKey(paths: Json, h: OpenApiHelpers): Json {
  const create = (paths["/v1/reconstruction"] as Json | undefined)?.post as Json | undefined;
  if (!create) return paths;
  const header = {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    schema: { type: "string", minLength: 1, maxLength: 255 },
    example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
    description:
      "Makes a retried creation safe (IETF draft \"The Idempotency-Key HTTP Header Field\", Stripe's semantics). An sf-string (`\"…\"`) or the bare value, 1–255 visible ASCII characters, unique per logical request and per account. " +
      "Covers both creation bodies. The same key with the same request (a form: the same parts, names, filenames, bytes, in order, the multipart boundary may differ; JSON from uploads: the same body, at most 1 MiB) within 24 h answers the first 202 again, with `Idempotent-Replayed: true`, and creates and charges nothing; " +
      "with a different request it answers 422 `idempotency_key_reused`; while the first request is still uploading, 409 `idempotency_in_progress` (with `Retry-After`). " +
      "A first request that was refused (any 4xx) does not keep the key, so a corrected retry may reuse it. Checked after 401 and 429, before 402.",
  };
  const errors = h.errorResponses(["idempotency_in_progress", "idempotency_key_reused"]) as Record<string, Json>;
  const responses = { ...(create.responses as Record<string, Json>) };
  for (const [status, response] of Object.entries(errors)) {
    const existing = responses[status];
    if (!existing) responses[status] = response;
    else {
      // Same status already documented (409 may be): merge the examples and name all codes.
      const content = (existing.content as Json | undefined)?.["application/json"] as Json | undefined;
      const added = ((response.content as Json)["application/json"] as Json).examples as Json;
      if (content) content.examples = { ...((content.examples as Json) ?? {}), ...added };
      existing.description = `${String(existing.description)} Also: ${Object.keys(added).map((c) => `\`${c}\``).join(", ")}.`;
    }
  }
  const parameters = [...((create.parameters as Json[] | undefined) ?? []), header];
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return { ...paths, "/v1/reconstruction": { ...(paths["/v1/reconstruction"] as Json), post: { ...create, parameters, responses: sorted } } };
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
    ...webhookPaths(h),
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

const WEBHOOK_PARAM = { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^wh_[A-Za-z0-9_-]{20,64}$" }, description: "Webhook endpoint id" };

function webhookPaths(h: OpenApiHelpers): Json {
  const { ok, errorResponses, rateLimitHeaders, jsonBody, AUTH } = h;
  const security = [{ apiKey: [] }];
  const tags = ["Webhooks"];
  return {
    "/v1/webhooks": {
      post: {
        operationId: "createWebhook",
        tags,
        summary: "Register an endpoint for reconstruction events",
        description:
          "Events (Standard Webhooks): `reconstruction.processing`, `reconstruction.completed`, `reconstruction.failed`, each POSTed once as JSON `{type, timestamp, data}` (`WebhookPayload`; `data` is the status record) " +
          "with the headers `webhook-id` (the same on every retry of one event: use it to deduplicate), `webhook-timestamp` (Unix seconds of the attempt) and " +
          "`webhook-signature`: `v1,<base64 HMAC-SHA256 of \"<webhook-id>.<webhook-timestamp>.<raw body>\">`, keyed by the base64-decoded part of the secret after `whsec_`. " +
          "Verify with a constant-time comparison and refuse timestamps more than 5 minutes away. Any 2xx within 15 s is a success; anything else is retried after " +
          "5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h (about 3 days); redirects are not followed. An endpoint that answers 410, or fails without a success for 3 days, is disabled with a reason. " +
          "In production the URL must be https on a public host (private, loopback and link-local addresses are refused with 400 `invalid_request`). The `secret` is shown only in this response. At most 20 endpoints per account.",
        security,
        requestBody: jsonBody("CreateWebhookBody"),
        responses: { "201": ok("Registered; keep the secret, it is not shown again.", "WebhookCreated"), ...errorResponses(["invalid_request", ...AUTH]) },
      },
      get: {
        operationId: "listWebhooks",
        tags,
        summary: "The caller's webhook endpoints (without secrets)",
        security,
        responses: { "200": ok("The endpoints, oldest first; disabled ones carry `disabled_reason`.", "WebhookList"), ...errorResponses(AUTH) },
      },
    },
    "/v1/webhooks/{id}": {
      delete: {
        operationId: "deleteWebhook",
        tags,
        summary: "Remove an endpoint and its delivery records",
        security,
        parameters: [WEBHOOK_PARAM],
        responses: { "204": { description: "Deleted; no further attempts are made.", headers: rateLimitHeaders() }, ...errorResponses(["not_found", ...AUTH]) },
      },
    },
    "/v1/webhooks/{id}/deliveries": {
      get: {
        operationId: "listWebhookDeliveries",
        tags,
        summary: "Recent deliveries of an endpoint, each with every attempt",
        description: "Newest first, up to 100. Each attempt records its time, the HTTP status answered (null when there was no answer) and the error.",
        security,
        parameters: [WEBHOOK_PARAM],
        responses: { "200": ok("The deliveries.", "WebhookDeliveryList"), ...errorResponses(["not_found", ...AUTH]) },
      },
    },
  };
}

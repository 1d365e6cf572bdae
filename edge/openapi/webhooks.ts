/**
 * @module The OpenAPI paths of the webhook endpoints (/v1/webhooks): register, list, delete, and
 * the deliveries of one endpoint. The events and their signature are described on the creation.
 */
import { AUTH, errorResponses, jsonBody, ok, rateLimitHeaders, type Json } from "./common.js";

const WEBHOOK_PARAM = { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^wh_[A-Za-z0-9_-]{20,64}$" }, description: "Webhook endpoint id" };

/** The caller's webhook endpoints and their deliveries. */
export function webhookPaths(): Json {
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

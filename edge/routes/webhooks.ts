/**
 * @module /v1/webhooks: register, list and delete endpoints, and list an endpoint's deliveries.
 *
 * Endpoints live in the caller's AccountObject, so another account's endpoint id is simply
 * unknown there (404, exactly like a made-up id). The signing secret is returned once, by the
 * creation; lists never show it.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.js";
import { requireApiKey } from "../access/auth.js";
import { configOf } from "../env.js";
import { ApiError } from "../errors.js";
import { rateLimit } from "../access/rate-limit.js";
import { MAX_ENDPOINTS_PER_ACCOUNT } from "../webhooks/store.js";
import { newWebhookSecret, randomId } from "../webhooks/signing.js";
import { refuseWebhookUrl, urlPolicyOf } from "../webhooks/url-policy.js";
import { CreateWebhookBody, WEBHOOK_EVENT_TYPES, WebhookCreated, WebhookId } from "../../shared/webhooks.js";

export const webhookRoutes = new Hono<AppEnv>();
webhookRoutes.use("*", requireApiKey(), rateLimit("request"));

const notFound = () => new ApiError("not_found", "No webhook endpoint with this id.", "List your endpoints with GET /v1/webhooks.");

function accountOf(c: { env: AppEnv["Bindings"]; get(key: "accountId"): string | undefined }) {
  return c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(c.get("accountId")!));
}

webhookRoutes.post("/", async function createWebhook(c) {
  const raw: unknown = await c.req.json().catch(() => undefined);
  const parsed = CreateWebhookBody.safeParse(raw);
  if (!parsed.success) {
    throw new ApiError("invalid_request", `The body must be JSON {url, events?}: ${z.prettifyError(parsed.error).replace(/\s+/g, " ")}`, `events are any of ${WEBHOOK_EVENT_TYPES.join(", ")}.`);
  }
  const config = configOf(c.env);
  const refused = refuseWebhookUrl(parsed.data.url, urlPolicyOf(config.BASE_URL, c.env.WEBHOOK_ALLOW_PRIVATE_URLS));
  if (refused) throw new ApiError("invalid_request", refused, "Use a public https URL that answers POST requests.");
  const secret = newWebhookSecret();
  const events = [...new Set(parsed.data.events ?? WEBHOOK_EVENT_TYPES)];
  const created = await accountOf(c).createWebhook({ id: randomId("wh_"), url: parsed.data.url, events, secret });
  if (created === null) throw new ApiError("invalid_api_key", "The API key's account no longer exists.", "Ask the operator for a new key.");
  if (created === "too_many") throw new ApiError("invalid_request", `An account can have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints.`, "Delete an endpoint you no longer use.");
  return c.json(WebhookCreated.parse({ ...created, secret }), 201);
});

webhookRoutes.get("/", async function listWebhooks(c) {
  return c.json({ data: await accountOf(c).listWebhooks() });
});

webhookRoutes.delete("/:id", async function deleteWebhook(c) {
  const id = WebhookId.safeParse(c.req.param("id"));
  if (!id.success || !(await accountOf(c).deleteWebhook(id.data))) throw notFound();
  return c.body(null, 204);
});

webhookRoutes.get("/:id/deliveries", async function listDeliveries(c) {
  const id = WebhookId.safeParse(c.req.param("id"));
  const deliveries = id.success ? await accountOf(c).listWebhookDeliveries(id.data) : null;
  if (!deliveries) throw notFound();
  return c.json({ data: deliveries });
});

/** @module The Hono application: routes mounted in one place, one error handler. */
import { Hono } from "hono";
import type { AppEnv } from "./app-env.js";
import { ApiError } from "./errors.js";
import { ensureRateLimitHeaders } from "./access/rate-limit.js";
import { accountRoutes } from "./routes/account.js";
import { adminRoutes } from "./routes/admin.js";
import { cdnRoutes, isCdnHostRequest, serveCdn } from "./routes/cdn.js";
import { configOf } from "./env.js";
import { docsRoutes } from "./routes/docs.js";
import { internalRoutes } from "./routes/internal.js";
import { dashboardRoutes } from "./dashboard/index.js";
import { reconstructionsRoutes } from "./routes/reconstructions.js";
import { reconstructionLifecycleRoutes } from "./routes/reconstruction-lifecycle.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { uploadsRoutes } from "./routes/uploads.js";
import { reconstructionListRoutes, reconstructionReportRoutes } from "./routes/reconstruction-list.js";


export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async function requestId(c, next) {
    c.set("requestId", crypto.randomUUID());
    await next();
  });
  // In production CDN_URL is a hostname of its own routed to this Worker: serve it before any API route.
  app.use("*", async function cdnHost(c, next) {
    const config = configOf(c.env);
    if (isCdnHostRequest(c.req.url, config.CDN_URL, config.BASE_URL)) return serveCdn(c);
    await next();
  });
  app.get("/healthz", (c) => c.json({ ok: true }));
  // Rate-limit headers on every /v1 response, including unknown paths (edge/access/rate-limit.ts).
  app.use("/v1/*", ensureRateLimitHeaders());
  // Public API (API key, rate-limited). Mount order matters only for middleware declared here.
  app.route("/v1/reconstruction", reconstructionsRoutes);
  app.route("/v1/reconstruction", reconstructionLifecycleRoutes);
  app.route("/v1/reconstruction", reconstructionReportRoutes);
  app.route("/v1/reconstructions", reconstructionListRoutes);
  app.route("/v1/account", accountRoutes);
  app.route("/v1/webhooks", webhookRoutes);
  // tus 1.0 resumable uploads.
  app.route("/v1/uploads", uploadsRoutes);
  // Operator API (ADMIN_TOKEN, not rate-limited per account).
  app.route("/v1/admin", adminRoutes);
  // Public docs: GET /v1/openapi.json and GET /docs.
  app.route("/", docsRoutes);
  // Signed model downloads; in production CDN_URL is its own hostname routed to this Worker.
  app.route("/cdn", cdnRoutes);
  // Compute's way to inputs, outputs and the state machine (Bearer COMPUTE_SECRET).
  app.route("/internal", internalRoutes);
  // The dashboard: pages, its session endpoints and assets (edge/dashboard/index.ts).
  app.route("/", dashboardRoutes);
  app.notFound((c) =>
    c.json({ error: { code: "not_found", message: `No route for ${c.req.method} ${new URL(c.req.url).pathname}`, suggestion: "See GET /docs for the API." } }, 404),
  );
  app.onError((err, c) => {
    if (err instanceof ApiError) {
      for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
      return c.json({ error: { code: err.code, message: err.message, suggestion: err.suggestion } }, err.status as 400);
    }
    const requestId = c.get("requestId") ?? crypto.randomUUID();
    console.error(JSON.stringify({ level: "error", request_id: requestId, error: String(err), stack: (err as Error)?.stack }));
    return c.json(
      { error: { code: "internal_error", message: "Something went wrong on our side.", suggestion: "Retry later; quote the request_id if it persists.", request_id: requestId } },
      500,
    );
  });
  return app;
}

/**
 * @module The dashboard, mounted at `/` beside the API: pages (`/`, `/signup`, `/signin`,
 * `/dashboard/...`), its session endpoints (`/dashboard/api/...`, JSON, session cookie, never
 * an API key) and the bundled assets (`/assets/...`, Workers static assets).
 *
 * Order: security headers wrap everything; the session is loaded; then every state-changing
 * request passes the CSRF check before any handler runs; `/dashboard/*` needs a session.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { ApiError } from "../errors.js";
import { authRoutes } from "./auth-routes.js";
import { securityHeaders } from "./headers.js";
import { keyRoutes } from "./key-routes.js";
import { creditRoutes } from "./credit-routes.js";
import { reconstructionPages } from "./reconstruction-pages.js";
import { dashboardApi } from "./api-routes.js";
import { settingsRoutes } from "./settings-routes.js";
import { csrfMatches, loadSession, sameOrigin, type DashboardEnv } from "./session.js";

export const dashboardRoutes = new Hono<DashboardEnv>();

/** The dashboard's paths; its middleware is scoped to them so the API's answers stay untouched. */
const PAGE_PATHS = ["/", "/signup", "/signin", "/signout", "/dashboard", "/dashboard/*"];

for (const path of [...PAGE_PATHS, "/assets/*"]) dashboardRoutes.use(path, securityHeaders());

dashboardRoutes.get("/assets/*", async function serveAsset(c) {
  const asset = await c.env.ASSETS.fetch(c.req.raw);
  const response = new Response(asset.body, asset); // headers of a fetched response are immutable
  response.headers.set("Cache-Control", "public, max-age=300");
  return response;
});

for (const path of PAGE_PATHS) dashboardRoutes.use(path, loadSession(), csrfProtection());

function csrfProtection(): MiddlewareHandler<DashboardEnv> {
  return async function csrfProtectionMiddleware(c, next) {
    if (c.req.method === "GET" || c.req.method === "HEAD" || c.req.method === "OPTIONS") return next();
    if (!sameOrigin(c)) throw new ApiError("forbidden", "Cross-site request refused.", "Use the dashboard's own pages.");
    // Multipart uploads are streamed, so their token travels in the header or the query, not the body.
    const streamed = (c.req.header("Content-Type") ?? "").startsWith("multipart/form-data");
    const fromBody = streamed ? undefined : (await c.req.parseBody())["csrf"];
    const presented = c.req.header("X-CSRF-Token") ?? c.req.query("csrf") ?? (typeof fromBody === "string" ? fromBody : undefined);
    if (!csrfMatches(c, presented)) throw new ApiError("forbidden", "Missing or wrong CSRF token.", "Reload the page and submit the form again.");
    await next();
  };
}

dashboardRoutes.get("/dashboard", (c) => c.redirect("/dashboard/reconstructions", 303));
dashboardRoutes.use("/dashboard/*", async function requireUser(c, next) {
  if (c.get("user")) return next();
  if (c.req.path.startsWith("/dashboard/api/")) throw new ApiError("missing_api_key", "Not signed in (no live session).", "Sign in to the dashboard first.");
  return c.redirect("/signin", 303);
});

dashboardRoutes.route("/", authRoutes);
dashboardRoutes.route("/dashboard/keys", keyRoutes);
dashboardRoutes.route("/dashboard/credits", creditRoutes);
dashboardRoutes.route("/dashboard/settings", settingsRoutes);
dashboardRoutes.route("/dashboard/reconstructions", reconstructionPages);
dashboardRoutes.route("/dashboard/api", dashboardApi);

/**
 * @module Security headers for every dashboard response (pages, form answers, assets).
 *
 * The Content-Security-Policy allows scripts and styles only from this origin (no inline code,
 * no third-party CDN), models from this origin and the CDN origin (signed download links),
 * `blob:` for the textures three.js decodes, and no framing at all.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.js";
import { configOf } from "../env.js";

export function contentSecurityPolicy(cdnOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `connect-src 'self' blob: data: ${cdnOrigin}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async function securityHeadersMiddleware(c, next) {
    await next();
    const cdnOrigin = new URL(configOf(c.env).CDN_URL).origin;
    c.res.headers.set("Content-Security-Policy", contentSecurityPolicy(cdnOrigin));
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    c.res.headers.set("Referrer-Policy", "same-origin");
    c.res.headers.set("X-Frame-Options", "DENY");
    c.res.headers.set("Cross-Origin-Opener-Policy", "same-origin");
    if (!c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "no-store");
  };
}

/**
 * @module Dashboard sessions and CSRF protection.
 *
 * The session cookie is `<user>.<secret>`: `<user>` names the UserObject (a keyed hash of the
 * email, so the request reaches the one object that can check it, and the email cannot be read
 * back from it), `<secret>` is 190 random bits whose SHA-256 that object stores. `HttpOnly`,
 * `SameSite=Lax`, `Path=/`, and `Secure` whenever BASE_URL is https (everywhere but local dev).
 *
 * CSRF: every state-changing dashboard request must (1) come from this origin when the browser
 * says where it comes from (`Origin`, else `Sec-Fetch-Site`), and (2) carry a token — a form
 * field `csrf` or the `X-CSRF-Token` header — equal to an HMAC of the session cookie (or, before
 * sign-in, of a random `csrf_seed` cookie). The token is bound to the session, so one stolen from
 * another session is worthless, and it needs no storage.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import type { AppEnv } from "../app-env.js";
import { configOf } from "../env.js";
import { randomBase62, sha256Hex } from "../access/keys.js";
import type { SessionUser } from "../objects/user-rpc.js";
import { userStubByName } from "./users.js";

export const SESSION_COOKIE = "session";
const SEED_COOKIE = "csrf_seed";
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;
const COOKIE_PATTERN = /^([0-9a-f]{64})\.([0-9A-Za-z]{32})$/;

export type DashboardEnv = AppEnv & { Variables: AppEnv["Variables"] & { user?: SessionUser; csrf?: string } };
export type DashboardContext = Context<DashboardEnv>;

function secureCookies(c: DashboardContext): boolean {
  return configOf(c.env).BASE_URL.startsWith("https://");
}

function cookieOptions(c: DashboardContext, maxAge: number) {
  return { httpOnly: true, sameSite: "Lax" as const, path: "/", secure: secureCookies(c), maxAge };
}

/** Opens a session for the user named `userName` and sets its cookie. */
export async function startSession(c: DashboardContext, userName: string): Promise<void> {
  const secret = randomBase62(32);
  await userStubByName(c.env, userName).openSession(await sha256Hex(secret), SESSION_TTL_SECONDS);
  setCookie(c, SESSION_COOKIE, `${userName}.${secret}`, cookieOptions(c, SESSION_TTL_SECONDS));
}

/** The session cookie split into the user's object name and the secret's hash; null if malformed. */
export async function sessionParts(c: DashboardContext): Promise<{ userName: string; tokenHash: string } | null> {
  const match = COOKIE_PATTERN.exec(getCookie(c, SESSION_COOKIE) ?? "");
  return match ? { userName: match[1], tokenHash: await sha256Hex(match[2]) } : null;
}

export async function endSession(c: DashboardContext): Promise<void> {
  const parts = await sessionParts(c);
  if (parts) await userStubByName(c.env, parts.userName).endSession(parts.tokenHash);
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: secureCookies(c) });
}

/** Loads the signed-in user (if any) and the CSRF token for the page's forms. */
export function loadSession(): MiddlewareHandler<DashboardEnv> {
  return async function loadSessionMiddleware(c, next) {
    const parts = await sessionParts(c);
    const user = parts ? await userStubByName(c.env, parts.userName).session(parts.tokenHash) : null;
    if (user) {
      c.set("user", user);
      c.set("accountId", user.accountId);
    }
    c.set("csrf", await csrfToken(c, user ? getCookie(c, SESSION_COOKIE)! : seedOf(c)));
    await next();
  };
}

/** The pre-session CSRF seed, set on first sight. */
function seedOf(c: DashboardContext): string {
  const existing = getCookie(c, SEED_COOKIE);
  if (existing && /^[0-9A-Za-z]{32}$/.test(existing)) return existing;
  const seed = randomBase62(32);
  setCookie(c, SEED_COOKIE, seed, cookieOptions(c, SESSION_TTL_SECONDS));
  return seed;
}

async function csrfToken(c: DashboardContext, bound: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(configOf(c.env).SIGNING_SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`csrf:${bound}`)));
  return btoa(String.fromCharCode(...mac)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** False when the browser says the request comes from another site. */
export function sameOrigin(c: DashboardContext): boolean {
  const origin = c.req.header("Origin");
  if (origin !== undefined) return origin === new URL(c.req.url).origin;
  const site = c.req.header("Sec-Fetch-Site");
  return site === undefined || site === "same-origin" || site === "none";
}

/** Whether `presented` is this session's (or seed's) token, compared in constant time. */
export function csrfMatches(c: DashboardContext, presented: string | undefined): boolean {
  const expected = c.get("csrf");
  if (!presented || !expected || presented.length !== expected.length) return false;
  const encoder = new TextEncoder();
  return crypto.subtle.timingSafeEqual(encoder.encode(presented), encoder.encode(expected));
}

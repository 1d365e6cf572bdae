/**
 * @module Where a dashboard user lives: the UserObject named by an HMAC (keyed with
 * SIGNING_SECRET) of the normalised email. Emails compare case-insensitively (docs/API.md
 * "Dashboard and sign-up"), so "Ana@Example.com" and "ana@example.com" name the same object and
 * the second sign-up is refused.
 */
import type { Env } from "../env.js";
import { configOf } from "../env.js";

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** 64 hex characters: the UserObject's name, also the first half of the session cookie. */
export async function userNameOf(env: Env, email: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(configOf(env).SIGNING_SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`user:${normaliseEmail(email)}`));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function userStubByName(env: Env, userName: string) {
  return env.USERS.get(env.USERS.idFromName(userName));
}

/**
 * @module Sign-in throttling: every attempt counts against the client address and against the
 * email tried (whether or not an account has it, so the limit itself reveals nothing), in the
 * same RateLimiterObject windows the API uses, under their own budget name. Sign-ups are
 * limited per address too, since each one grants free-trial credits.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env.js";
import { configOf } from "../env.js";
import { callerOf } from "../access/rate-limit.js";

export async function signInAllowed(c: Context<AppEnv>, userName: string): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  const config = configOf(c.env);
  const windowSeconds = config.SIGNIN_LIMIT_WINDOW_SECONDS;
  const hit = async (caller: string, limit: number) =>
    (await c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(caller)).hit([{ name: "signin", limit, windowSeconds }]))[0];
  const [byAddress, byUser] = await Promise.all([
    hit(`signin:${callerOf(c)}`, config.SIGNIN_LIMIT_PER_ADDRESS),
    hit(`signin:user:${userName}`, config.SIGNIN_LIMIT_PER_ACCOUNT),
  ]);
  const now = Math.floor(Date.now() / 1000);
  const blocked = [byAddress, byUser].filter((s) => !s.allowed);
  return { allowed: blocked.length === 0, retryAfterSeconds: Math.max(0, ...blocked.map((s) => s.resetAt - now)) };
}

export async function signUpAllowed(c: Context<AppEnv>): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  const config = configOf(c.env);
  const budget = { name: "signup", limit: config.SIGNUP_LIMIT_PER_ADDRESS, windowSeconds: config.SIGNUP_LIMIT_WINDOW_SECONDS };
  const [state] = await c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(`signup:${callerOf(c)}`)).hit([budget]);
  return { allowed: state.allowed, retryAfterSeconds: Math.max(0, state.resetAt - Math.floor(Date.now() / 1000)) };
}

/** @module RateLimiterObject: fixed-window counters for one account or one client address. */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";

export class RateLimiterObject extends DurableObject<Env> {}

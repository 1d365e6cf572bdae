/** @module AccountObject: one SQLite Durable Object per account (keys, credit ledger, usage). */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";

export class AccountObject extends DurableObject<Env> {}

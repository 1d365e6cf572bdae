/** @module ReconstructionObject: one SQLite Durable Object per reconstruction (state machine, watchdog alarm). */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";

export class ReconstructionObject extends DurableObject<Env> {}

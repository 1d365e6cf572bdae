/**
 * @module What a caller may ask of a RateLimiterObject (edge/objects/rate-limiter.ts): the
 * budgets it counts and their state. Its own module, so that env.ts types the binding without
 * importing the object (which imports env.ts).
 */
import { z } from "zod";

export const Budget = z.object({
  name: z.string().regex(/^[a-z]{1,32}$/),
  limit: z.number().int().positive(),
  windowSeconds: z.number().int().positive(),
});
export type Budget = z.infer<typeof Budget>;

export interface BudgetState {
  name: string;
  limit: number;
  windowSeconds: number;
  /** Attempts counted in the current window, this one included. */
  count: number;
  remaining: number;
  /** Unix time (seconds) at which the current window ends. */
  resetAt: number;
  allowed: boolean;
}

export interface RateLimiterRpc extends Rpc.DurableObjectBranded {
  hit(budgets: Budget[]): Promise<BudgetState[]>;
}

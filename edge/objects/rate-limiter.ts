/**
 * @module RateLimiterObject: fixed-window counters for one account or one client address.
 *
 * One object per caller (never one global object), so limits scale with callers. A fixed
 * window (counts reset at multiples of the window length) is chosen over a sliding log: it
 * gives the exact `remaining` and `reset` that the RateLimit headers promise, at one row per
 * budget. Every attempt counts, rejected ones too (docs/API.md "Rate limits": rejected attempts count).
 * An alarm deletes the object's storage once all its windows are over, so the per-address
 * objects of one-off visitors do not accumulate.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import type { Env } from "../env.js";
import { Budget, type BudgetState, type RateLimiterRpc } from "./rate-limiter-rpc.js";

const HitInput = z.array(Budget).min(1).max(4);

const COUNTERS_TABLE =
  "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, window_start_ms INTEGER NOT NULL, window_ms INTEGER NOT NULL, count INTEGER NOT NULL)";

export class RateLimiterObject extends DurableObject<Env> implements RateLimiterRpc {
  private readonly sql = this.ctx.storage.sql;

  /** Counts one attempt against each budget and reports each budget's state after it. */
  async hit(budgets: Budget[]): Promise<BudgetState[]> {
    const nowMs = Date.now();
    // Created per hit, not in the constructor: the cleanup alarm's deleteAll drops the table.
    this.sql.exec(COUNTERS_TABLE);
    const states = HitInput.parse(budgets).map((budget) => this.count(budget, nowMs));
    // The counting above is synchronous, hence atomic; scheduling cleanup may await safely.
    if ((await this.ctx.storage.getAlarm()) === null) {
      const latestReset = Math.max(...states.map((s) => s.resetAt * 1000));
      await this.ctx.storage.setAlarm(latestReset + 1000);
    }
    return states;
  }

  override async alarm(): Promise<void> {
    const nowMs = Date.now();
    const hasTable = this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'counters'").toArray().length > 0;
    if (!hasTable) return;
    const live = this.sql
      .exec<{ end_ms: number }>("SELECT MAX(window_start_ms + window_ms) AS end_ms FROM counters")
      .one().end_ms;
    if (live !== null && live > nowMs) {
      await this.ctx.storage.setAlarm(live + 1000);
      return;
    }
    await this.ctx.storage.deleteAll();
  }

  private count(budget: Budget, nowMs: number): BudgetState {
    const windowMs = budget.windowSeconds * 1000;
    const windowStartMs = Math.floor(nowMs / windowMs) * windowMs;
    const row = this.sql
      .exec<{ count: number }>(
        `INSERT INTO counters (name, window_start_ms, window_ms, count) VALUES (?, ?, ?, 1)
         ON CONFLICT (name) DO UPDATE SET
           count = CASE WHEN window_start_ms = excluded.window_start_ms AND window_ms = excluded.window_ms THEN count + 1 ELSE 1 END,
           window_start_ms = excluded.window_start_ms, window_ms = excluded.window_ms
         RETURNING count`,
        budget.name,
        windowStartMs,
        windowMs,
      )
      .one();
    return {
      ...budget,
      count: row.count,
      remaining: Math.max(0, budget.limit - row.count),
      resetAt: (windowStartMs + windowMs) / 1000,
      allowed: row.count <= budget.limit,
    };
  }
}

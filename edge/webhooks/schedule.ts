/**
 * @module When a failed webhook attempt is tried again, and when an endpoint is given up.
 *
 * The default schedule is the Standard Webhooks example: after the first attempt fails, 5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (about 75 h in all, so more than 24 h of
 * retries, and past the 3 days after which a still-failing endpoint is disabled). Both are
 * configurable (Worker vars) so end-to-end tests can run a schedule of seconds.
 */
import { z } from "zod";

export const DEFAULT_RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];
export const DEFAULT_DISABLE_AFTER_SECONDS = 3 * 24 * 60 * 60;
/** Cloudflare Queues delay a message at most 12 h; a longer wait is taken in several hops. */
export const MAX_QUEUE_DELAY_SECONDS = 12 * 60 * 60;

export interface WebhookSchedule {
  /** Delay before attempt n + 1, indexed by n - 1; no entry left means the delivery has failed. */
  retrySeconds: number[];
  /** An endpoint failing without a success for this long is disabled. */
  disableAfterSeconds: number;
}

const ScheduleVars = z.object({
  WEBHOOK_RETRY_SCHEDULE_SECONDS: z
    .string()
    .regex(/^\d+(,\d+)*$/)
    .transform((s) => s.split(",").map(Number))
    .optional(),
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce.number().int().positive().optional(),
});

export function scheduleOf(env: object): WebhookSchedule {
  const vars = ScheduleVars.parse(env);
  return {
    retrySeconds: vars.WEBHOOK_RETRY_SCHEDULE_SECONDS ?? DEFAULT_RETRY_SCHEDULE_SECONDS,
    disableAfterSeconds: vars.WEBHOOK_DISABLE_AFTER_SECONDS ?? DEFAULT_DISABLE_AFTER_SECONDS,
  };
}

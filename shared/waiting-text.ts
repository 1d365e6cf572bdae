/**
 * @module A pending job's wait in words, for the dashboard's page and its live script (which
 * must not bundle zod, so this module imports nothing).
 */

/** The `queue` part of a status record (shared/records.ts QueuePlace), structurally. */
export interface QueuePlaceLike {
  reason: "queued" | "starting";
  position: number;
}

/** "queued, 3rd in line", "starting"; "waiting" without a place. */
export function waitingText(queue: QueuePlaceLike | undefined): string {
  if (!queue) return "waiting";
  if (queue.reason === "starting") return "starting";
  const n = queue.position;
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `queued, ${n}${suffix} in line`;
}

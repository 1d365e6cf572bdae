/**
 * @module Reading a work key (shared/storage-keys.ts `workKey`): whose job attempt it belongs to.
 *
 * shared/tasks.ts `WorkKey` fixes the form; this also refuses `.` and `..` segments, which the
 * form's character class lets through and which no builder ever produces.
 */
import { WorkKey } from "../../shared/tasks.js";

export interface WorkKeyOwner {
  reconstructionId: string;
  attempt: number;
}

/** The reconstruction and attempt a work key belongs to; null when `key` is not a plain work key. */
export function workKeyOwner(key: string): WorkKeyOwner | null {
  if (!WorkKey.safeParse(key).success) return null;
  const segments = key.split("/");
  if (segments.some((segment) => segment === "." || segment === "..")) return null;
  const attempt = Number(segments[2]!.slice(1));
  // `a07` is not how an attempt is spelled: one spelling per key.
  if (segments[2] !== `a${attempt}`) return null;
  return { reconstructionId: segments[1]!, attempt };
}

/** Whether `key` is a plain work key of this reconstruction's `attempt`. */
export function isWorkKeyOf(key: string, reconstructionId: string, attempt: number): boolean {
  const owner = workKeyOwner(key);
  return owner !== null && owner.reconstructionId === reconstructionId && owner.attempt === attempt;
}

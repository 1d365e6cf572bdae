/**
 * @module The content digest of a task (shared/tasks.ts `content_sha256`): SHA-256 of the compute
 * version, the task kind and the payload bytes, with the attempt's own work prefix
 * (`work/<id>/a<N>/`) written as one fixed mark wherever it occurs.
 *
 * Payloads name the photos they need by work key, and those keys carry the attempt; the photos'
 * own SHA-256 is in the payload beside each key (task-coordinator.ts `storePhotos`). So two
 * attempts of one job that would give a task the same inputs get the same digest, and any
 * change of input (other photos, other cameras from SfM, other options) or of compute version
 * gives another: the edge hands an earlier attempt's result only to a task that would compute
 * it again (content addressing, as build systems such as Bazel key their action cache).
 */
import { createHash } from "node:crypto";
import { workKey } from "../../shared/storage-keys.js";
import type { TaskKind } from "../../shared/tasks.js";
import { VERSION } from "./version.js";

/** What the attempt's work prefix is replaced with; no work key can contain it (`<` is not allowed). */
const ATTEMPT_MARK = Buffer.from("work/<job>/a<attempt>/");

export function taskContentDigest(kind: TaskKind, payload: string | Uint8Array, reconstructionId: string, attempt: number): string {
  const bytes = typeof payload === "string" ? Buffer.from(payload, "utf8") : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const prefix = Buffer.from(workKey(reconstructionId, attempt, ""));
  const hash = createHash("sha256").update(`${VERSION}\n${kind}\n`);
  let from = 0;
  for (let at = bytes.indexOf(prefix, from); at >= 0; at = bytes.indexOf(prefix, from)) {
    hash.update(bytes.subarray(from, at));
    hash.update(ATTEMPT_MARK);
    from = at + prefix.length;
  }
  hash.update(bytes.subarray(from));
  return hash.digest("hex");
}

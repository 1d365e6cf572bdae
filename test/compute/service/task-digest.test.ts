/**
 * The content digest of a task (compute/service/task-digest.ts): the same for two attempts that
 * would give a task the same inputs, different as soon as any input differs.
 */
import { describe, expect, it } from "vitest";
import { workKey } from "../../../shared/storage-keys.js";
import { taskContentDigest } from "../../../compute/service/task-digest.js";

const ID = "rec_abcdefghijklmnopqrstuvwx";
const OTHER = "rec_zyxwvutsrqponmlkjihgfedc";

/** A dense payload naming its photo by the attempt's work key, with the photo's own digest. */
function densePayload(attempt: number, photoSha: string, cameras = [1, 0, 0]): string {
  return JSON.stringify({ job: { cluster: 0, R: cameras }, photos: [{ imageIndex: 3, key: workKey(ID, attempt, "photos/00003.jpg"), extension: ".jpg", sha256: photoSha }] });
}

/** A binary payload (as matching batches are) with a work key inside its header. */
function binaryPayload(attempt: number, body: number[]): Uint8Array {
  const header = new TextEncoder().encode(JSON.stringify({ source: workKey(ID, attempt, "tasks/x.bin") }));
  const bytes = new Uint8Array(header.length + body.length + 8);
  bytes.set(header, 4);
  bytes.set(body, 4 + header.length);
  return bytes.subarray(4, 4 + header.length + body.length);
}

describe("task content digest", () => {
  const photo = "a".repeat(64);

  it("does not depend on the attempt the payload was written by", () => {
    expect(taskContentDigest("dense-cluster", densePayload(1, photo), ID, 1)).toBe(taskContentDigest("dense-cluster", densePayload(3, photo), ID, 3));
    expect(taskContentDigest("matching-batch", binaryPayload(1, [1, 2, 3]), ID, 1)).toBe(taskContentDigest("matching-batch", binaryPayload(2, [1, 2, 3]), ID, 2));
  });

  it("differs when a photo, the cameras, the kind, the bytes or the job differ", () => {
    const base = taskContentDigest("dense-cluster", densePayload(1, photo), ID, 1);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(taskContentDigest("dense-cluster", densePayload(1, "b".repeat(64)), ID, 1)).not.toBe(base);
    expect(taskContentDigest("dense-cluster", densePayload(1, photo, [0, 1, 0]), ID, 1)).not.toBe(base);
    expect(taskContentDigest("features-batch", densePayload(1, photo), ID, 1)).not.toBe(base);
    expect(taskContentDigest("matching-batch", binaryPayload(1, [1, 2, 3]), ID, 1)).not.toBe(taskContentDigest("matching-batch", binaryPayload(1, [1, 2, 4]), ID, 1));
    // Another job's keys are not its own prefix: they stay in the digest as written.
    expect(taskContentDigest("dense-cluster", densePayload(1, photo), OTHER, 1)).not.toBe(base);
  });

  it("replaces only the attempt's own prefix, not an earlier attempt's key quoted in the payload", () => {
    const quotesAttempt1 = JSON.stringify({ from: workKey(ID, 1, "tasks/a.result") });
    expect(taskContentDigest("dense-cluster", quotesAttempt1, ID, 2)).not.toBe(taskContentDigest("dense-cluster", quotesAttempt1, ID, 1));
  });
});

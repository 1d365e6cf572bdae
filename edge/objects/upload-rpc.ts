/**
 * @module What a caller may ask of an UploadObject (edge/objects/upload.ts): a tus upload's
 * state, its PATCH lease and its claim by a creation. Its own module, so that env.ts types the
 * binding without importing the object (which imports env.ts).
 */
import { z } from "zod";
import { InputKind } from "../../shared/jobs.js";
import { UploadId } from "../../shared/uploads.js";

const UploadedPart = z.object({ partNumber: z.number().int().min(1), etag: z.string() });

export const UploadInit = z.object({
  id: UploadId,
  account_id: z.string().min(1),
  length: z.number().int().positive(),
  /** The Upload-Metadata header as sent, echoed by HEAD. */
  metadata: z.string().max(4096),
  filename: z.string().min(1).max(255),
});
export type UploadInit = z.infer<typeof UploadInit>;

/** What a PATCH changes once its bytes are safely in R2. */
export const UploadUpdate = z.object({
  offset: z.number().int().nonnegative(),
  multipart_id: z.string().nullable(),
  parts: z.array(UploadedPart),
  tail_generation: z.number().int().nonnegative(),
  kind: InputKind.nullable(),
  pixels: z.number().int().positive().nullable(),
  complete: z.boolean(),
});
export type UploadUpdate = z.infer<typeof UploadUpdate>;

export interface UploadState extends UploadInit, UploadUpdate {
  created_at: string;
  /** Epoch ms after which the alarm deletes the upload. */
  expires_at: number;
  /** The reconstruction taking the finished upload over, until it consumes or releases it. */
  claimed_by: string | null;
  /** Epoch ms after which a claim whose creation never finished (the Worker died) lapses. */
  claimed_until?: number;
  lock: { token: string; until: number } | null;
}

export type LockOutcome =
  | { ok: true; token: string; state: UploadState }
  | { ok: false; reason: "not_found" | "locked" | "complete"; state?: UploadState }
  | { ok: false; reason: "offset_mismatch"; state: UploadState };

export type ClaimOutcome = { ok: true; state: UploadState } | { ok: false; reason: "not_found" | "incomplete" | "claimed" };

export interface UploadRpc extends Rpc.DurableObjectBranded {
  create(init: UploadInit): Promise<UploadState>;
  view(accountId: string): Promise<UploadState | null>;
  lock(accountId: string, offset: number): Promise<LockOutcome>;
  renew(token: string): Promise<boolean>;
  commit(token: string, update: UploadUpdate): Promise<UploadState | null>;
  unlock(token: string): Promise<void>;
  terminate(accountId: string): Promise<boolean>;
  purge(accountId: string): Promise<boolean>;
  claim(accountId: string, reconstructionId: string): Promise<ClaimOutcome>;
  release(reconstructionId: string): Promise<void>;
  consume(reconstructionId: string): Promise<void>;
}

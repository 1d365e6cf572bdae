/**
 * @module UploadObject: one Durable Object per tus upload (named by its id), the source of truth
 * for the upload's offset, its R2 multipart upload and the parts written so far.
 *
 * A PATCH holds a lease (`lock` → `commit`/`unlock`) so two requests never write the same
 * upload at once; the lease is renewed while the body streams and lapses by itself if the
 * Worker dies, so a client resuming later is never locked out for long. The alarm enforces the
 * expiration extension: an upload untouched for UPLOAD_TTL_SECONDS (finished or not, unless a
 * reconstruction is taking it over) is aborted and every R2 object under `uploads/<id>/` is
 * deleted with its state.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import type { Env } from "../env.js";
import { UploadInit, UploadUpdate, type ClaimOutcome, type LockOutcome, type UploadRpc, type UploadState } from "./upload-rpc.js";
import { ReconstructionId } from "../../shared/records.js";
import { uploadDataKey, uploadPrefix } from "../../shared/storage-keys.js";

/** How long a PATCH may go without renewing its lease before another request may take over. */
export const LOCK_LEASE_MS = 60_000;
/** How long a creation from uploads may hold them before they return to `complete`. */
export const CLAIM_LEASE_MS = 15 * 60_000;

const UploadConfig = z.object({ UPLOAD_TTL_SECONDS: z.coerce.number().positive().default(24 * 60 * 60) });

const STATE_KEY = "state";

/** Whether a creation holds the upload now (a lapsed claim counts as none). */
export function isClaimed(state: UploadState, now = Date.now()): boolean {
  return state.claimed_by !== null && (state.claimed_until ?? Infinity) > now;
}

export class UploadObject extends DurableObject<Env> implements UploadRpc {
  private readonly ttlMs: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ttlMs = UploadConfig.parse(env).UPLOAD_TTL_SECONDS * 1000;
  }

  async create(init: UploadInit): Promise<UploadState> {
    const data = UploadInit.parse(init);
    const existing = await this.load();
    if (existing) return existing;
    const now = Date.now();
    const state: UploadState = {
      ...data,
      offset: 0,
      multipart_id: null,
      parts: [],
      tail_generation: 0,
      kind: null,
      pixels: null,
      complete: false,
      created_at: new Date(now).toISOString(),
      expires_at: now + this.ttlMs,
      claimed_by: null,
      lock: null,
    };
    await this.save(state);
    return state;
  }

  /** The upload if it belongs to `accountId` and has not expired; null otherwise (one answer for both). */
  async view(accountId: string): Promise<UploadState | null> {
    const state = await this.load();
    return state && state.account_id === accountId && state.expires_at > Date.now() ? state : null;
  }

  /** Takes the PATCH lease when the client's offset is the stored one. */
  async lock(accountId: string, offset: number): Promise<LockOutcome> {
    const state = await this.view(accountId);
    if (!state) return { ok: false, reason: "not_found" };
    const now = Date.now();
    if (state.lock && state.lock.until > now) return { ok: false, reason: "locked", state };
    if (state.complete || isClaimed(state)) return { ok: false, reason: "complete", state };
    if (state.offset !== offset) return { ok: false, reason: "offset_mismatch", state };
    const token = crypto.randomUUID();
    state.lock = { token, until: now + LOCK_LEASE_MS };
    await this.save(state);
    return { ok: true, token, state };
  }

  /** Extends the lease of a PATCH that is still streaming; false if it was lost. */
  async renew(token: string): Promise<boolean> {
    const state = await this.load();
    if (!state || state.lock?.token !== token) return false;
    state.lock.until = Date.now() + LOCK_LEASE_MS;
    await this.save(state);
    return true;
  }

  /** Records a PATCH's progress and releases its lease; false (nothing changed) if the lease was lost. */
  async commit(token: string, update: UploadUpdate): Promise<UploadState | null> {
    const data = UploadUpdate.parse(update);
    const state = await this.load();
    if (!state || state.lock?.token !== token || data.offset < state.offset || data.offset > state.length) return null;
    const next: UploadState = { ...state, ...data, lock: null, expires_at: Date.now() + this.ttlMs };
    await this.save(next);
    return next;
  }

  async unlock(token: string): Promise<void> {
    const state = await this.load();
    if (!state || state.lock?.token !== token) return;
    state.lock = null;
    await this.save(state);
  }

  /** tus termination: the owner deletes the upload and all its bytes. */
  async terminate(accountId: string): Promise<boolean> {
    const state = await this.view(accountId);
    if (!state || isClaimed(state)) return false;
    await this.destroy(state);
    return true;
  }

  /** Account deletion: the upload and all its bytes go, claimed or not; false when it is not the account's (or already gone). */
  async purge(accountId: string): Promise<boolean> {
    const state = await this.load();
    if (!state || state.account_id !== accountId) return false;
    await this.destroy(state);
    return true;
  }

  /** A creation takes a finished upload; no second creation can take it meanwhile. */
  async claim(accountId: string, reconstructionId: string): Promise<ClaimOutcome> {
    ReconstructionId.parse(reconstructionId);
    const state = await this.view(accountId);
    if (!state) return { ok: false, reason: "not_found" };
    if (!state.complete) return { ok: false, reason: "incomplete" };
    if (state.claimed_by !== reconstructionId && isClaimed(state)) return { ok: false, reason: "claimed" };
    state.claimed_by = reconstructionId;
    state.claimed_until = Date.now() + CLAIM_LEASE_MS;
    state.expires_at = Math.max(state.expires_at, Date.now() + CLAIM_LEASE_MS);
    await this.save(state);
    return { ok: true, state };
  }

  /** The creation failed: the upload is the client's again, for another try. */
  async release(reconstructionId: string): Promise<void> {
    const state = await this.load();
    if (!state || state.claimed_by !== reconstructionId) return;
    state.claimed_by = null;
    await this.save(state);
  }

  /** The creation copied the bytes to its inputs: the upload is gone (its id answers 404). */
  async consume(reconstructionId: string): Promise<void> {
    const state = await this.load();
    if (!state || state.claimed_by !== reconstructionId) return;
    await this.destroy(state);
  }

  override async alarm(): Promise<void> {
    const state = await this.load();
    if (!state) return;
    const now = Date.now();
    if (state.lock && state.lock.until > now) {
      await this.ctx.storage.setAlarm(state.lock.until);
      return;
    }
    if (state.expires_at > now) {
      await this.ctx.storage.setAlarm(state.expires_at);
      return;
    }
    await this.destroy(state);
  }

  private async destroy(state: UploadState): Promise<void> {
    if (state.multipart_id && !state.complete) {
      // An unknown or already finished multipart upload throws; there is nothing left to abort then.
      await this.env.BUCKET.resumeMultipartUpload(uploadDataKey(state.id), state.multipart_id).abort().catch(() => undefined);
    }
    for (;;) {
      const listing = await this.env.BUCKET.list({ prefix: uploadPrefix(state.id), limit: 1000 });
      if (listing.objects.length > 0) await this.env.BUCKET.delete(listing.objects.map((o) => o.key));
      if (!listing.truncated) break;
    }
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  private async load(): Promise<UploadState | null> {
    return (await this.ctx.storage.get<UploadState>(STATE_KEY)) ?? null;
  }

  private async save(state: UploadState): Promise<void> {
    await this.ctx.storage.put(STATE_KEY, state);
    // The alarm follows the expiry; it re-arms itself while a lease is held.
    await this.ctx.storage.setAlarm(state.expires_at);
  }
}

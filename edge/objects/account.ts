/**
 * @module AccountObject: one SQLite Durable Object per account (keys, credit ledger, usage).
 *
 * Credits are a ledger: every grant, debit and refund is a row, and the balance is derived
 * (sum of rows minus open reservations), so a retried request can never charge twice and the
 * balance can be audited. A creation first reserves a credit (held while the upload streams),
 * then commits it to a debit row or releases it. Every method runs its SQL synchronously, with
 * no await in between, so the object's single thread makes each method atomic: five concurrent
 * reservations against one credit see one success.
 *
 * The schema is created only when an account is created: RPCs on an id that names no account
 * (e.g. a well-formed but invented API key) read nothing and write nothing.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { ReconstructionId } from "../../shared/records.js";
import type { AccountRecord } from "../../shared/records.js";
import type { Env } from "../env.js";
import { claimKey, completeKey, releaseKey, type IdempotencyClaim } from "../idempotency/store.js";
import * as webhooks from "../webhooks/store.js";
import { scheduleOf } from "../webhooks/schedule.js";
import { randomId } from "../webhooks/signing.js";
import { WebhookEventType, type WebhookEndpoint } from "../../shared/webhooks.js";
import { UploadId } from "../../shared/uploads.js";
import { labelKey, listKeys, touchKey, type KeyListing } from "./account-keys.js";
import { CreateAccountInput, type AccountRpc, type LedgerKind, type LedgerRow } from "./account-rpc.js";

/**
 * A reservation not committed or released within this time (the request that took it died)
 * stops holding the credit. Generous: a 500 MiB upload on a slow link can take many minutes.
 */
export const RESERVATION_TTL_MS = 2 * 60 * 60 * 1000;

const KeyId = z.string().regex(/^key_[0-9A-Za-z]{16}$/);
const KeyHash = z.string().regex(/^[0-9a-f]{64}$/);
const Reason = z.string().min(1).max(500);
const Amount = z.number().int().refine((n) => n !== 0, "amount must not be 0");
const Outcome = z.enum(["completed", "failed"]);
const IdempotencyKeyValue = z.string().min(1).max(255);

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS account (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    account_id TEXT NOT NULL, email TEXT NOT NULL, created_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS api_keys (
    key_id TEXT PRIMARY KEY, hash TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT);
  CREATE TABLE IF NOT EXISTS ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('debit','refund','topup','trial','adjustment')),
    amount INTEGER NOT NULL, reconstruction_id TEXT, reason TEXT, created_at TEXT NOT NULL);
  CREATE UNIQUE INDEX IF NOT EXISTS ledger_once_per_reconstruction
    ON ledger (reconstruction_id, kind) WHERE reconstruction_id IS NOT NULL;
  CREATE TABLE IF NOT EXISTS reservations (
    reconstruction_id TEXT PRIMARY KEY, created_at_ms INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS outcomes (
    reconstruction_id TEXT PRIMARY KEY, outcome TEXT NOT NULL, created_at TEXT NOT NULL);
`;

/** tus upload ids per account, created on first use (accounts from before it need no migration). */
const UPLOADS_SCHEMA = `CREATE TABLE IF NOT EXISTS uploads (upload_id TEXT PRIMARY KEY, created_at_ms INTEGER NOT NULL)`;

export class AccountObject extends DurableObject<Env> implements AccountRpc {
  private readonly sql = this.ctx.storage.sql;

  /** Creates the account with its first key and its opening grant; throws if it already exists. */
  create(input: CreateAccountInput): { balance: number; created_at: string } {
    const { accountId, email, grant, key } = CreateAccountInput.parse(input);
    return this.ctx.storage.transactionSync(() => {
      this.sql.exec(SCHEMA);
      if (this.sql.exec("SELECT 1 FROM account").toArray().length > 0) throw new Error(`account ${accountId} already exists`);
      const createdAt = new Date().toISOString();
      this.sql.exec("INSERT INTO account (singleton, account_id, email, created_at) VALUES (1, ?, ?, ?)", accountId, email, createdAt);
      if (key) this.sql.exec("INSERT INTO api_keys (key_id, hash, created_at) VALUES (?, ?, ?)", key.keyId, key.hash, createdAt);
      if (grant.amount > 0) this.appendLedger(grant.kind, grant.amount, null, grant.kind === "trial" ? "free trial" : "initial credits");
      return { balance: this.availableBalance(), created_at: createdAt };
    });
  }

  exists(): boolean {
    return this.hasSchema() && this.sql.exec("SELECT 1 FROM account").toArray().length > 0;
  }

  /** Adds a key; false when the account does not exist. */
  addKey(keyId: string, hash: string): boolean {
    KeyId.parse(keyId);
    KeyHash.parse(hash);
    if (!this.exists()) return false;
    this.sql.exec("INSERT INTO api_keys (key_id, hash, created_at) VALUES (?, ?, ?)", keyId, hash, new Date().toISOString());
    return true;
  }

  /** Revokes a key from the next request on; revoking twice is harmless. False for an unknown key. */
  revokeKey(keyId: string): boolean {
    KeyId.parse(keyId);
    if (!this.exists()) return false;
    const found = this.sql.exec("SELECT 1 FROM api_keys WHERE key_id = ?", keyId).toArray().length > 0;
    if (found) this.sql.exec("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ?", new Date().toISOString(), keyId);
    return found;
  }

  /** True only for a live (unrevoked) key whose stored hash equals `hash`, compared in constant time. */
  verifyKey(keyId: string, hash: string): boolean {
    if (!KeyId.safeParse(keyId).success || !KeyHash.safeParse(hash).success || !this.hasSchema()) return false;
    const rows = this.sql.exec<{ hash: string }>("SELECT hash FROM api_keys WHERE key_id = ? AND revoked_at IS NULL", keyId).toArray();
    if (rows.length === 0) return false;
    const encoder = new TextEncoder();
    const valid = crypto.subtle.timingSafeEqual(encoder.encode(rows[0].hash), encoder.encode(hash));
    if (valid) touchKey(this.sql, keyId, Date.now());
    return valid;
  }

  /** Adds a key with a name and its shown prefix (dashboard); false when the account does not exist. */
  addNamedKey(keyId: string, hash: string, name: string, prefix: string): boolean {
    z.string().min(1).max(100).parse(name);
    z.string().max(40).parse(prefix);
    if (!this.addKey(keyId, hash)) return false;
    labelKey(this.sql, keyId, name, prefix);
    return true;
  }

  /** Every key, revoked ones too, newest first, without secrets or hashes. */
  keys(): KeyListing[] {
    return this.exists() ? listKeys(this.sql) : [];
  }

  /**
   * Deletes the account's whole storage: keys, ledger, upload registry, webhook endpoints and their
   * deliveries (edge/webhooks/store.ts keeps both here, so a queued attempt then plans `done`).
   * Its API keys fail from the next request on.
   */
  async deleteAccount(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  /** Notes a tus upload of this account, so that deleting the account can delete it too. */
  recordUpload(uploadId: string): void {
    this.sql.exec(UPLOADS_SCHEMA);
    this.sql.exec("INSERT OR IGNORE INTO uploads (upload_id, created_at_ms) VALUES (?, ?)", UploadId.parse(uploadId), Date.now());
  }

  /** Every tus upload id recorded for this account (finished, consumed or expired ones included). */
  uploadIds(): string[] {
    this.sql.exec(UPLOADS_SCHEMA);
    return this.sql.exec<{ upload_id: string }>("SELECT upload_id FROM uploads ORDER BY created_at_ms").toArray().map((r) => r.upload_id);
  }

  /**
   * Operator credit change: a positive amount is a "topup", a negative one an "adjustment".
   * One that would take the available balance below 0 changes nothing. Null: no such account.
   */
  adjustCredits(amount: number, reason: string): { ok: boolean; balance: number } | null {
    Amount.parse(amount);
    Reason.parse(reason);
    if (!this.exists()) return null;
    const balance = this.availableBalance();
    if (balance + amount < 0) return { ok: false, balance };
    this.appendLedger(amount > 0 ? "topup" : "adjustment", amount, null, reason);
    return { ok: true, balance: balance + amount };
  }

  /** Opens a reservation for this reconstruction if a credit is available; idempotent per id. */
  reserveCredit(reconstructionId: string): { ok: true; balance: number } | { ok: false; balance: number } {
    ReconstructionId.parse(reconstructionId);
    if (!this.exists()) return { ok: false, balance: 0 };
    if (this.isReserved(reconstructionId) || this.hasLedgerRow(reconstructionId, "debit")) {
      return { ok: true, balance: this.availableBalance() };
    }
    const balance = this.availableBalance();
    if (balance < 1) return { ok: false, balance };
    this.sql.exec("INSERT OR REPLACE INTO reservations (reconstruction_id, created_at_ms) VALUES (?, ?)", reconstructionId, Date.now());
    return { ok: true, balance: balance - 1 };
  }

  /**
   * Turns the reservation into a debit row; idempotent. A debit is written even when the
   * reservation has expired meanwhile: the reconstruction exists, so it is paid for.
   */
  commitReservation(reconstructionId: string): void {
    ReconstructionId.parse(reconstructionId);
    if (!this.exists()) return;
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM reservations WHERE reconstruction_id = ?", reconstructionId);
      if (!this.hasLedgerRow(reconstructionId, "debit")) this.appendLedger("debit", -1, reconstructionId, null);
    });
  }

  /** Drops the reservation and writes no ledger row; idempotent. */
  releaseReservation(reconstructionId: string): void {
    ReconstructionId.parse(reconstructionId);
    if (!this.exists()) return;
    this.sql.exec("DELETE FROM reservations WHERE reconstruction_id = ?", reconstructionId);
  }

  /** Gives the credit back once, and only for a reconstruction that was debited. */
  refund(reconstructionId: string, reason: string): { refunded: boolean; balance: number } {
    ReconstructionId.parse(reconstructionId);
    Reason.parse(reason);
    if (!this.exists()) return { refunded: false, balance: 0 };
    const refundable = this.hasLedgerRow(reconstructionId, "debit") && !this.hasLedgerRow(reconstructionId, "refund");
    if (refundable) this.appendLedger("refund", 1, reconstructionId, reason);
    return { refunded: refundable, balance: this.availableBalance() };
  }

  /** Records how a reconstruction ended, for usage counts; the first outcome recorded wins. */
  recordOutcome(reconstructionId: string, outcome: "completed" | "failed"): void {
    ReconstructionId.parse(reconstructionId);
    Outcome.parse(outcome);
    if (!this.exists()) return;
    this.sql.exec(
      "INSERT OR IGNORE INTO outcomes (reconstruction_id, outcome, created_at) VALUES (?, ?, ?)",
      reconstructionId,
      outcome,
      new Date().toISOString(),
    );
  }

  /** Idempotency-Key of a creation (edge/idempotency/store.ts): claim before the body is read. */
  claimIdempotencyKey(key: string): IdempotencyClaim | null {
    IdempotencyKeyValue.parse(key);
    return this.exists() ? claimKey(this.sql, key) : null;
  }

  completeIdempotencyKey(key: string, fingerprint: string, status: number, body: string): void {
    IdempotencyKeyValue.parse(key);
    if (this.exists()) completeKey(this.sql, key, fingerprint, status, body);
  }

  releaseIdempotencyKey(key: string): void {
    IdempotencyKeyValue.parse(key);
    if (this.exists()) releaseKey(this.sql, key);
  }

  /** Webhooks (edge/webhooks/store.ts); null when the account does not exist. */
  createWebhook(input: { id: string; url: string; events: WebhookEventType[]; secret: string }): WebhookEndpoint | "too_many" | null {
    return this.exists() ? webhooks.createEndpoint(this.sql, input) : null;
  }

  listWebhooks(): WebhookEndpoint[] {
    return this.exists() ? webhooks.listEndpoints(this.sql) : [];
  }

  deleteWebhook(id: string): boolean {
    return this.exists() && webhooks.deleteEndpoint(this.sql, id);
  }

  listWebhookDeliveries(endpointId: string) {
    return this.exists() ? webhooks.listDeliveries(this.sql, endpointId) : null;
  }

  /** Records one delivery per subscribed endpoint (once per reconstruction and type) and queues them. */
  async emitWebhookEvent(event: { type: WebhookEventType; reconstructionId: string; body: string }): Promise<number> {
    WebhookEventType.parse(event.type);
    ReconstructionId.parse(event.reconstructionId);
    if (!this.exists()) return 0;
    const accountId = this.sql.exec<{ account_id: string }>("SELECT account_id FROM account").one().account_id;
    const ids = webhooks.enqueueEvent(this.sql, event, () => randomId("msg_"));
    if (ids.length === 0) return 0;
    try {
      await this.env.WEBHOOKS.sendBatch(ids.map((id) => ({ body: { account_id: accountId, delivery_id: id } })));
    } catch (err) {
      // Unqueued deliveries would wait forever: drop them so the caller's retry creates them again.
      webhooks.forgetDeliveries(this.sql, ids);
      throw err;
    }
    return ids.length;
  }

  planWebhookAttempt(deliveryId: string): webhooks.AttemptPlan {
    return this.exists() ? webhooks.planAttempt(this.sql, deliveryId) : { action: "done" };
  }

  recordWebhookAttempt(deliveryId: string, result: webhooks.AttemptResult): ReturnType<typeof webhooks.recordAttempt> {
    return this.exists() ? webhooks.recordAttempt(this.sql, deliveryId, result, scheduleOf(this.env)) : { next: "done" };
  }

  ledger(): LedgerRow[] {
    if (!this.exists()) return [];
    return this.sql
      .exec<{ id: number; kind: string; amount: number; reconstruction_id: string | null; reason: string | null; created_at: string }>(
        "SELECT id, kind, amount, reconstruction_id, reason, created_at FROM ledger ORDER BY id",
      )
      .toArray()
      .map((row) => ({ ...row, kind: row.kind as LedgerKind }));
  }

  /**
   * The account's charged reconstructions, newest first: its debit rows (a debit row is written
   * exactly once per created reconstruction), below ledger row `beforeRow` (the list cursor).
   * `outcomes` narrows by recorded outcome; null matches those with none recorded yet (still
   * running, or settled but not yet told), so callers confirm the status with each object.
   */
  chargedReconstructions(limit: number, beforeRow: number | null, outcomes: Array<"completed" | "failed" | null>): Array<{ row: number; reconstruction_id: string }> {
    const size = z.number().int().min(1).max(1000).parse(limit);
    if (!this.exists()) return [];
    const wanted = outcomes.length === 0 ? "1" : outcomes.map((o) => (o === null ? "o.outcome IS NULL" : `o.outcome = '${Outcome.parse(o)}'`)).join(" OR ");
    return this.sql
      .exec<{ row: number; reconstruction_id: string }>(
        `SELECT l.id AS row, l.reconstruction_id FROM ledger l LEFT JOIN outcomes o ON o.reconstruction_id = l.reconstruction_id
         WHERE l.kind = 'debit' AND l.reconstruction_id IS NOT NULL AND l.id < ? AND (${wanted}) ORDER BY l.id DESC LIMIT ?`,
        beforeRow ?? Number.MAX_SAFE_INTEGER,
        size,
      )
      .toArray();
  }

  /** Available credits: the ledger sum minus reservations still open. */
  balance(): number {
    return this.exists() ? this.availableBalance() : 0;
  }

  /**
   * GET /v1/account. `trial` is true while every credit ever granted came from the free-trial
   * grant (a trial row exists and no top-up does); the first top-up ends the trial.
   */
  summary(): AccountRecord | null {
    if (!this.exists()) return null;
    const account = this.sql.exec<{ account_id: string; created_at: string }>("SELECT account_id, created_at FROM account").one();
    const kinds = this.sql.exec<{ kind: string; n: number }>("SELECT kind, COUNT(*) AS n FROM ledger GROUP BY kind").toArray();
    const countOf = (kind: string) => kinds.find((row) => row.kind === kind)?.n ?? 0;
    const outcomes = this.sql.exec<{ outcome: string; n: number }>("SELECT outcome, COUNT(*) AS n FROM outcomes GROUP BY outcome").toArray();
    const outcomeCount = (outcome: string) => outcomes.find((row) => row.outcome === outcome)?.n ?? 0;
    return {
      account_id: account.account_id,
      balance: this.availableBalance(),
      trial: countOf("trial") > 0 && countOf("topup") === 0,
      created_at: account.created_at,
      usage: { reconstructions: countOf("debit"), completed: outcomeCount("completed"), failed: outcomeCount("failed") },
    };
  }

  private hasSchema(): boolean {
    return this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'account'").toArray().length > 0;
  }

  private availableBalance(): number {
    const ledgerSum = this.sql.exec<{ total: number }>("SELECT COALESCE(SUM(amount), 0) AS total FROM ledger").one().total;
    const held = this.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM reservations WHERE created_at_ms > ?", Date.now() - RESERVATION_TTL_MS)
      .one().n;
    return ledgerSum - held;
  }

  private isReserved(reconstructionId: string): boolean {
    return this.sql
      .exec("SELECT 1 FROM reservations WHERE reconstruction_id = ? AND created_at_ms > ?", reconstructionId, Date.now() - RESERVATION_TTL_MS)
      .toArray().length > 0;
  }

  private hasLedgerRow(reconstructionId: string, kind: LedgerKind): boolean {
    return this.sql.exec("SELECT 1 FROM ledger WHERE reconstruction_id = ? AND kind = ?", reconstructionId, kind).toArray().length > 0;
  }

  private appendLedger(kind: LedgerKind, amount: number, reconstructionId: string | null, reason: string | null): void {
    this.sql.exec(
      "INSERT INTO ledger (kind, amount, reconstruction_id, reason, created_at) VALUES (?, ?, ?, ?, ?)",
      kind,
      amount,
      reconstructionId,
      reason,
      new Date().toISOString(),
    );
  }
}

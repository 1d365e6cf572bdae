/**
 * @module What a caller may ask of an AccountObject (edge/objects/account.ts): keys, the credit
 * ledger and its holds, usage outcomes, idempotency keys, webhook endpoints and deliveries, tus
 * upload ids. Its own module, so that env.ts types the binding without importing the object
 * (which imports env.ts).
 */
import { z } from "zod";
import type { AccountRecord } from "../../shared/records.js";
import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from "../../shared/webhooks.js";
import type { IdempotencyClaim } from "../idempotency/store.js";
import type { AttemptPlan, AttemptResult } from "../webhooks/store.js";
import type { KeyListing } from "./account-keys.js";

export const LEDGER_KINDS = ["debit", "refund", "topup", "trial", "adjustment"] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export interface LedgerRow {
  id: number;
  kind: LedgerKind;
  amount: number;
  reconstruction_id: string | null;
  reason: string | null;
  created_at: string;
}

export const CreateAccountInput = z.object({
  accountId: z.string().regex(/^acc_[0-9A-Za-z]{22}$/),
  email: z.email(),
  grant: z.object({ kind: z.enum(["trial", "topup"]), amount: z.number().int().nonnegative() }),
  // Optional: a dashboard sign-up starts with no key; the user creates named ones.
  key: z.object({ keyId: z.string().regex(/^key_[0-9A-Za-z]{16}$/), hash: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
});
export type CreateAccountInput = z.infer<typeof CreateAccountInput>;

export interface AccountRpc extends Rpc.DurableObjectBranded {
  create(input: CreateAccountInput): { balance: number; created_at: string };
  exists(): boolean;
  addKey(keyId: string, hash: string): boolean;
  revokeKey(keyId: string): boolean;
  verifyKey(keyId: string, hash: string): boolean;
  addNamedKey(keyId: string, hash: string, name: string, prefix: string): boolean;
  keys(): KeyListing[];
  deleteAccount(): Promise<void>;
  recordUpload(uploadId: string): void;
  uploadIds(): string[];
  adjustCredits(amount: number, reason: string): { ok: boolean; balance: number } | null;
  reserveCredit(reconstructionId: string): { ok: true; balance: number } | { ok: false; balance: number };
  commitReservation(reconstructionId: string): void;
  releaseReservation(reconstructionId: string): void;
  refund(reconstructionId: string, reason: string): { refunded: boolean; balance: number };
  recordOutcome(reconstructionId: string, outcome: "completed" | "failed"): void;
  claimIdempotencyKey(key: string): IdempotencyClaim | null;
  completeIdempotencyKey(key: string, fingerprint: string, status: number, body: string): void;
  releaseIdempotencyKey(key: string): void;
  createWebhook(input: { id: string; url: string; events: WebhookEventType[]; secret: string }): WebhookEndpoint | "too_many" | null;
  listWebhooks(): WebhookEndpoint[];
  deleteWebhook(id: string): boolean;
  listWebhookDeliveries(endpointId: string): WebhookDelivery[] | null;
  emitWebhookEvent(event: { type: WebhookEventType; reconstructionId: string; body: string }): Promise<number>;
  planWebhookAttempt(deliveryId: string): AttemptPlan;
  recordWebhookAttempt(deliveryId: string, result: AttemptResult): { next: "done" } | { next: "retry"; delaySeconds: number };
  ledger(): LedgerRow[];
  chargedReconstructions(limit: number, beforeRow: number | null, outcomes: Array<"completed" | "failed" | null>): Array<{ row: number; reconstruction_id: string }>;
  balance(): number;
  summary(): AccountRecord | null;
}

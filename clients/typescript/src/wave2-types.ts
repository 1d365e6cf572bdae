/**
 * @module Hand-written types for the wave-2 endpoints of API.md ("Wave 2 additions"), which
 * this branch's OpenAPI document does not describe yet.
 *
 * TODO(merge): once idempotency, cancel/delete, webhooks, tus uploads, camera exports and the
 * list endpoint are merged into edge/openapi.ts, replace each type below with its generated
 * counterpart from ./generated/openapi.ts and delete this file.
 */
import type { components } from "./generated/openapi.js";

type StatusRecord = components["schemas"]["StatusRecord"];

/** Camera exports (wave 2) on top of the six model formats. */
export type Wave2Format = "colmap" | "transforms";

/** `GET /v1/reconstructions?limit=&cursor=&status=` */
export interface ReconstructionList {
  data: StatusRecord[];
  next_cursor: string | null;
}

export interface ListParams {
  /** 1–100, default 20 (server side). */
  limit?: number;
  cursor?: string;
  status?: StatusRecord["status"];
}

export type WebhookEvent = "reconstruction.processing" | "reconstruction.completed" | "reconstruction.failed";

/** `POST /v1/webhooks` → 201; `secret` is shown only here. */
export interface WebhookEndpointCreated {
  id: string;
  url: string;
  events: WebhookEvent[];
  secret: string;
}

/** The body a webhook delivers (Standard Webhooks: `type`, `timestamp`, `data`). */
export interface WebhookPayload {
  type: WebhookEvent;
  timestamp?: string;
  data: StatusRecord;
}

/** `POST /v1/reconstruction` with `application/json`: finished tus uploads. */
export interface CreateFromUploadsBody {
  uploads: string[];
  quality?: "preview" | "standard" | "high";
}

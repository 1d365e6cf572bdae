/**
 * @module Hand-written types for the one wave-2 endpoint of API.md ("Wave 2 additions") that the
 * OpenAPI document does not describe yet: `GET /v1/reconstructions` (the dashboard branch).
 * Everything else of wave 2 (idempotency, cancel/delete, webhooks, tus uploads, camera exports)
 * is generated from edge/openapi.ts into ./generated/openapi.ts and named in ./types.ts.
 *
 * TODO(merge): once the list endpoint is in edge/openapi.ts, replace these with the generated
 * types and delete this file (and its re-export in ./index.ts).
 */
import type { StatusRecord } from "./types.js";

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

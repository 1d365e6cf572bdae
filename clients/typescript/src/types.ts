/** @module The public records, named: generated from the OpenAPI document (edge/openapi/document.ts). */
import type { components, operations } from "./generated/openapi.js";

type Schemas = components["schemas"];

export type CreationRecord = Schemas["CreationRecord"];
export type StatusRecord = Schemas["StatusRecord"];
export type DownloadRecord = Schemas["DownloadRecord"];
export type AccountRecord = Schemas["AccountRecord"];
/** Every downloadable format: the six model formats and the camera exports (colmap, transforms). */
export type Format = DownloadRecord["format"];
export type Quality = "preview" | "standard" | "high";
export type Stage = NonNullable<StatusRecord["stage"]>;

/** `POST /v1/reconstruction` with `application/json`: finished tus uploads. */
export type CreateFromUploadsBody = Schemas["CreateFromUploads"];
/** A tus upload's record (`POST /v1/uploads`, `GET /v1/uploads/{id}`). */
export type UploadRecord = Schemas["UploadRecord"];

/** `GET /v1/reconstructions?limit=&cursor=&status=`: a page, newest first; `next_cursor` is null on the last. */
export type ReconstructionList = Schemas["ReconstructionPage"];
/** The query of `GET /v1/reconstructions` (limit 1–100, default 20, server side). */
export type ListParams = NonNullable<operations["listReconstructions"]["parameters"]["query"]>;
/** `GET /v1/reconstruction/{id}/report`: the reconstruction's per-file report. */
export type ReportRecord = Schemas["ReportRecord"];
/** A report's `survey`: the accuracy report's figures of a georeferenced reconstruction. */
export type SurveyReport = Schemas["SurveyReport"];
/** Model coordinates plus `offset` are coordinates in `crs` (status record and report). */
export type Georeference = Schemas["Georeference"];

export type WebhookEvent = Schemas["WebhookPayload"]["type"];
/** `POST /v1/webhooks` → 201; `secret` is shown only here. */
export type WebhookCreated = Schemas["WebhookCreated"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
/** The body a webhook delivers (Standard Webhooks: `type`, `timestamp`, `data`). */
export type WebhookPayload = Schemas["WebhookPayload"];

export const TERMINAL_STATUSES: ReadonlyArray<StatusRecord["status"]> = ["completed", "failed"];

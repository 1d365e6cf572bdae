/** @module The public records, named: generated from the OpenAPI document, plus wave 2. */
import type { components } from "./generated/openapi.js";
import type { Wave2Format } from "./wave2-types.js";

export type CreationRecord = components["schemas"]["CreationRecord"];
export type StatusRecord = components["schemas"]["StatusRecord"];
export type DownloadRecord = components["schemas"]["DownloadRecord"];
export type AccountRecord = components["schemas"]["AccountRecord"];
export type ModelFormat = DownloadRecord["format"];
export type Format = ModelFormat | Wave2Format;
export type Quality = "preview" | "standard" | "high";
export type Stage = NonNullable<StatusRecord["stage"]>;

export const TERMINAL_STATUSES: ReadonlyArray<StatusRecord["status"]> = ["completed", "failed"];

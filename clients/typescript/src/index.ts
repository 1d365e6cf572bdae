/** @module The photogrammetry API's TypeScript SDK. */
export { PhotogrammetryClient, defaultFileName, type ClientOptions, type CreateOptions, type WaitOptions } from "./client.js";
export { ApiError, NetworkError, PhotogrammetryError, ReconstructionFailedError, WaitTimeoutError, WebhookVerificationError, type ApiErrorCode } from "./errors.js";
export { verifyWebhook, signWebhook, WEBHOOK_TOLERANCE_SECONDS, type WebhookHeaders, type VerifyOptions } from "./webhooks.js";
export type { InputSource, NamedStream } from "./sources.js";
export type { UploadProgress } from "./multipart.js";
export type { DownloadProgress } from "./download.js";
export type { RetryOptions } from "./retry.js";
export type * from "./types.js";

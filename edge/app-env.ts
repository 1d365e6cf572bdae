/**
 * @module The Hono environment every route, middleware and the app share: the Worker's bindings
 * and the per-request variables. Its own module beside env.ts, so that routes import it without
 * importing the app that mounts them (imports stay one way: app → routes → app-env).
 */
import type { Env } from "./env.js";
import type { MultipartReader } from "./uploads/multipart.js";

/** How the create route opens its multipart body; set by the Idempotency-Key middleware to fingerprint it. */
export type MultipartReaderFactory = (body: ReadableStream<Uint8Array>, boundary: string) => MultipartReader;

export type AppEnv = { Bindings: Env; Variables: { requestId: string; accountId?: string; multipartReader?: MultipartReaderFactory } };

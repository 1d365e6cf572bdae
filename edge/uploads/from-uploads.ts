/**
 * @module Creation from finished tus uploads: `POST /v1/reconstruction` with
 * `{"uploads": [ids], "quality"?}` as JSON.
 *
 * The same rules as the multipart path (edge/uploads/ingest.ts): the caller's files only (an
 * unknown or foreign id is 404, never telling which), the kinds judged by their bytes when they
 * were uploaded, the per-file, per-request and file-count limits. Each upload is first claimed
 * in its UploadObject (so two creations cannot take the same upload), then its object is copied
 * to `inputs/<id>/…` — where compute reads every reconstruction's inputs — and only once the
 * reconstruction exists are the uploads consumed (deleted). A failure releases the claims; the
 * route deletes the copied inputs with the rest of its clean-up.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env.js";
import type { Config } from "../env.js";
import { ApiError } from "../errors.js";
import type { UploadState } from "../objects/upload-rpc.js";
import type { IngestResult, IngestedInput } from "./ingest.js";
import { HEADER_PROBE_BYTES, STORED_CONTENT_TYPES, mib } from "./ingest.js";
import { isVideo, jpegDisplayedSize, pngSize } from "./sniff.js";
import { CreateFromUploads } from "../../shared/uploads.js";
import { inputKey, uploadDataKey } from "../../shared/storage-keys.js";

/** A JSON creation body is a list of ids and maybe a gcp file (itself at most 1 MiB); the idempotency middleware holds a body with a key to 1 MiB as well. */
const MAX_JSON_BYTES = 1024 * 1024 + 64 * 1024;

export function isJsonRequest(c: Context<AppEnv>): boolean {
  return c.req.header("Content-Type")?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

/** The uploads a creation has claimed, to consume on success or release on failure. */
export class UploadClaims {
  private readonly claimed: string[] = [];

  constructor(
    private readonly c: Context<AppEnv>,
    private readonly reconstructionId: string,
  ) {}

  /** Reads the JSON body, claims every upload, copies their bytes to the inputs; throws 400/404/409/413/423. */
  async take(config: Config): Promise<IngestResult> {
    const body = CreateFromUploads.safeParse(await readJson(this.c));
    if (!body.success) throw bodyError(body.error.issues);
    const ids = body.data.uploads;
    if (new Set(ids).size !== ids.length) throw new ApiError("invalid_request", "An upload id is listed twice.", "List each upload once.");
    if (ids.length > config.MAX_FILES_PER_REQUEST) throw tooLarge(`The request has more than the limit of ${config.MAX_FILES_PER_REQUEST} files.`);
    const states: UploadState[] = [];
    for (const id of ids) states.push(await this.claim(id));
    checkLimits(states, config);
    const inputs: IngestedInput[] = [];
    for (const [index, state] of states.entries()) inputs.push(await this.copy(state, index));
    const { gcp, checkpoints, control_points: controlPoints, output_crs: outputCrs } = body.data;
    // The marks are checked against the photos' displayed sizes, which an upload does not keep: read them from the copies' headers.
    if (gcp !== undefined || controlPoints !== undefined) await Promise.all(inputs.map((input) => measure(this.c.env.BUCKET, input)));
    return { inputs, quality: body.data.quality ?? "standard", survey: { gcp, checkpoints, controlPoints, outputCrs } };
  }

  /** The reconstruction exists: its inputs are the copies; the uploads go. */
  async consume(): Promise<void> {
    await Promise.all(this.claimed.map((id) => this.stub(id).consume(this.reconstructionId)));
  }

  async release(): Promise<void> {
    await Promise.all(this.claimed.map((id) => this.stub(id).release(this.reconstructionId)));
  }

  private async claim(id: string): Promise<UploadState> {
    const outcome = await this.stub(id).claim(this.c.get("accountId")!, this.reconstructionId);
    if (outcome.ok) {
      this.claimed.push(id);
      return outcome.state;
    }
    if (outcome.reason === "incomplete") throw new ApiError("upload_incomplete", `The upload ${id} is not finished.`, "Finish it (HEAD tells its offset, PATCH sends the rest), then create the reconstruction.");
    if (outcome.reason === "claimed") throw new ApiError("upload_locked", `The upload ${id} is being used by another reconstruction request.`, "Wait for that request to finish; a failed one releases it.");
    throw new ApiError("not_found", `No finished upload with id ${id}.`, "Use ids of your own finished tus uploads (the last segment of each upload URL).");
  }

  /** Copies the upload's object to the reconstruction's inputs, streaming (R2 needs the length up front). */
  private async copy(state: UploadState, index: number): Promise<IngestedInput> {
    const bucket = this.c.env.BUCKET;
    const source = await bucket.get(uploadDataKey(state.id));
    if (!source) throw new Error(`upload ${state.id} is complete but its object is missing`);
    const key = inputKey(this.reconstructionId, index, state.filename);
    const { readable, writable } = new FixedLengthStream(source.size);
    const [, written] = await Promise.all([
      source.body.pipeTo(writable),
      bucket.put(key, readable, { httpMetadata: { contentType: STORED_CONTENT_TYPES[state.kind!] } }),
    ]);
    if (!written || written.size !== state.length) throw new Error(`copy of upload ${state.id} to ${key} is incomplete`);
    const input: IngestedInput = { key, name: state.filename, kind: state.kind!, size: state.length };
    if (state.pixels) input.pixels = state.pixels;
    return input;
  }

  private stub(id: string) {
    return this.c.env.UPLOADS.get(this.c.env.UPLOADS.idFromName(id));
  }
}

/** Sets a JPEG's or PNG's displayed size from the first bytes of its stored copy (EXIF sits within the first 64 KiB). */
async function measure(bucket: R2Bucket, input: IngestedInput): Promise<void> {
  if (input.kind !== "jpeg" && input.kind !== "png") return;
  const head = await bucket.get(input.key, { range: { offset: 0, length: HEADER_PROBE_BYTES } });
  if (!head) return;
  const bytes = new Uint8Array(await head.arrayBuffer());
  const size = input.kind === "png" ? pngSize(bytes) : jpegDisplayedSize(bytes);
  if (size && size.width > 0 && size.height > 0) Object.assign(input, { width: size.width, height: size.height });
}

/** Limits may have changed since the upload was made: hold each file and the total to today's. */
function checkLimits(states: UploadState[], config: Config): void {
  let total = 0;
  for (const state of states) {
    const video = isVideo(state.kind!);
    const max = video ? config.MAX_VIDEO_BYTES : config.MAX_IMAGE_BYTES;
    if (state.length > max) throw tooLarge(`The file "${state.filename}" is larger than the limit of ${mib(max)} per ${video ? "video" : "image"}.`);
    total += state.length;
  }
  if (total > config.MAX_REQUEST_BYTES) throw tooLarge(`The uploads add up to more than the limit of ${mib(config.MAX_REQUEST_BYTES)} per request.`);
}

async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const text = await readBounded(c.req.raw.body, MAX_JSON_BYTES);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The body is not valid JSON.", 'Send {"uploads": ["upl_…"], "quality": "standard"}.');
  }
}

async function readBounded(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return "";
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (bytes > limit) throw new ApiError("invalid_request", `The JSON body is longer than ${limit} bytes.`, "List fewer upload ids, or send a shorter gcp file.");
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** A body without any upload id is `no_files`, as a form without a file part; anything else malformed is `invalid_request`. */
function bodyError(issues: { path: PropertyKey[]; message: string; code: string }[]): ApiError {
  const aboutUploads = issues.find((issue) => issue.path[0] === "uploads" && issue.path.length === 1);
  if (aboutUploads && (aboutUploads.code === "too_small" || aboutUploads.message.toLowerCase().includes("received undefined"))) {
    return new ApiError("no_files", "The request lists no upload.", 'Send {"uploads": ["upl_…"]} with the ids of finished uploads.');
  }
  const first = issues[0]!;
  return new ApiError("invalid_request", `Invalid JSON body at "${first.path.join(".") || "(root)"}": ${first.message}.`, 'Send {"uploads": ["upl_…"], "quality": "preview" | "standard" | "high"}.');
}

function tooLarge(message: string): ApiError {
  return new ApiError("payload_too_large", message, "Send fewer or smaller files.");
}

/**
 * @module Routes of /v1/reconstruction: create (streaming upload), status, download link.
 *
 * Creation order (docs/API.md "Which error wins"): 401 and 429 in middleware, then an
 * `Idempotency-Key` when sent (edge/idempotency/middleware.ts: 409 while the first runs,
 * replay or 422 after it), then a credit hold (402) before a single
 * body byte is read, then the streamed upload (413/400). Any rejection releases the hold and
 * deletes what was written; success turns the hold into exactly one ledger debit.
 * A JSON body `{"uploads": [ids]}` takes finished tus uploads instead of a form
 * (edge/uploads/from-uploads.ts), under the same order and rules. Control points and
 * `output_crs` (edge/uploads/control-points.ts) are checked last, against the stored files.
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../app-env.js";
import { requireApiKey } from "../access/auth.js";
import { configOf, type Config } from "../env.js";
import { ApiError } from "../errors.js";
import { estimateCompletion } from "../scheduling/estimate.js";
import { rateLimit } from "../access/rate-limit.js";
import { idempotentCreate } from "../idempotency/middleware.js";
import { signedUrl } from "../downloads/signing.js";
import { deleteInputs, ingestUpload, mib, type IngestResult } from "../uploads/ingest.js";
import { boundaryOf } from "../uploads/multipart.js";
import { surveyOptions, type SurveyOptions } from "../uploads/control-points.js";
import { UploadClaims, isJsonRequest } from "../uploads/from-uploads.js";
import { FORMATS, isFormat } from "../../shared/formats.js";
import { CreationRecord, DownloadRecord, ReconstructionId, StatusRecord } from "../../shared/records.js";

export const reconstructionsRoutes = new Hono<AppEnv>();

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const ID_RANDOM_CHARS = 24;

/** `rec_` + 24 URL-safe characters: 144 random bits (64 symbols, so `byte & 63` is unbiased). */
export function newReconstructionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(ID_RANDOM_CHARS));
  let id = "rec_";
  for (const b of bytes) id += ID_ALPHABET[b & 63];
  return id;
}

reconstructionsRoutes.post("/", requireApiKey(), rateLimit("create"), idempotentCreate(), (c) => createReconstruction(c));

/** The creation handler; the dashboard's upload calls it too (same hold, checks, limits, credit rules and record; no Idempotency-Key there). */
export async function createReconstruction(c: Context<AppEnv>): Promise<Response> {
  const config = configOf(c.env);
  const accountId = c.get("accountId")!;
  const id = newReconstructionId();
  const account = c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(accountId));
  const hold = await account.reserveCredit(id);
  if (!hold.ok) throw new ApiError("insufficient_credits", "Your balance is 0 credits; a reconstruction costs 1.", "Ask the operator to add credits to your account.");
  let upload: IngestResult;
  let survey: SurveyOptions;
  const claims = isJsonRequest(c) ? new UploadClaims(c, id) : undefined;
  try {
    upload = claims ? await claims.take(config) : await receiveFiles(c, id, config);
    // Control points name the stored files, so they are checked once every file is in; a refusal cleans up below.
    survey = await surveyOptions(upload.survey, upload.inputs);
    await account.commitReservation(id);
  } catch (err) {
    // The rejection the client sees is `err`; a failing clean-up is logged, not substituted
    // (an unreleased hold lapses by itself, see RESERVATION_TTL_MS in the AccountObject).
    await Promise.all([account.releaseReservation(id), deleteInputs(c.env.BUCKET, id), claims?.release()]).catch((cleanupError: unknown) =>
      console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), reconstruction_id: id, msg: "creation clean-up failed", error: String(cleanupError) })),
    );
    throw err;
  }
  const createdAt = new Date();
  const estimated = estimateCompletion(upload.inputs, upload.quality, createdAt.getTime());
  const inputs = upload.inputs.map(({ key, name, kind, size }) => ({ key, name, kind, size }));
  const init = { id, account_id: accountId, created_at: createdAt.toISOString(), estimated_completion: estimated.toISOString(), quality: upload.quality, ...survey, inputs };
  let estimatedCompletion: string;
  try {
    // The object's estimate includes the forecast wait in the line.
    ({ estimated_completion: estimatedCompletion } = await c.env.RECONSTRUCTIONS.get(c.env.RECONSTRUCTIONS.idFromName(id)).create(init));
  } catch (err) {
    // Without a state machine nothing would ever finish or refund: undo the charge and the files.
    await account.refund(id, "internal_error");
    await deleteInputs(c.env.BUCKET, id);
    await claims?.release();
    throw err;
  }
  // The inputs are the reconstruction's own copies now; a failure here only leaves uploads to expire.
  await claims?.consume().catch((err: unknown) =>
    console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), reconstruction_id: id, msg: "consuming uploads failed", error: String(err) })),
  );
  const record = CreationRecord.parse({
    id,
    status: "pending",
    created_at: init.created_at,
    estimated_completion: estimatedCompletion,
    files_uploaded: inputs.length,
    status_url: `${config.BASE_URL}/v1/reconstruction/${id}/status`,
  });
  return c.json(record, 202);
}

async function receiveFiles(c: Context<AppEnv>, id: string, config: Config): Promise<IngestResult> {
  const boundary = boundaryOf(c.req.header("content-type"));
  const body = c.req.raw.body;
  if (!boundary || !body) {
    throw new ApiError("invalid_request", "The body must be multipart/form-data with a boundary.", "Send the files as multipart/form-data, one `files` part per file.");
  }
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > config.MAX_REQUEST_BYTES) {
    throw new ApiError("payload_too_large", `The request is larger than the limit of ${mib(config.MAX_REQUEST_BYTES)} per request.`, "Split the upload or send smaller files.");
  }
  return ingestUpload(body, boundary, c.env.BUCKET, id, {
    maxFiles: config.MAX_FILES_PER_REQUEST,
    maxImageBytes: config.MAX_IMAGE_BYTES,
    maxVideoBytes: config.MAX_VIDEO_BYTES,
    maxRequestBytes: config.MAX_REQUEST_BYTES,
  }, c.get("multipartReader"));
}

reconstructionsRoutes.get("/:id/status", requireApiKey(), rateLimit("request"), async function getStatus(c) {
  return c.json(await ownedStatus(c, c.req.param("id")));
});

reconstructionsRoutes.get("/:id/download/:format", requireApiKey(), rateLimit("request"), async function getDownload(c) {
  const config = configOf(c.env);
  const record = await ownedStatus(c, c.req.param("id"));
  const format = c.req.param("format");
  if (!isFormat(format)) throw new ApiError("unsupported_format", `"${format}" is not a downloadable format.`, `Use one of ${FORMATS.join(", ")}.`);
  if (record.status === "failed") {
    throw new ApiError("reconstruction_failed", `The reconstruction failed (${record.error?.code ?? "failed"}); it has no files.`, record.error?.suggestion ?? "Submit the files again.");
  }
  if (record.status !== "completed") {
    throw new ApiError("not_ready", `The reconstruction is ${record.status}; files are ready once it is completed.`, "Poll the status URL until status is completed.");
  }
  const entry = record.formats?.find((f) => f.format === format);
  if (!entry) throw new ApiError("not_found", `This reconstruction has no ${format} file.`, "See `formats` in the status record.");
  const expires = Math.floor(Date.now() / 1000) + config.DOWNLOAD_TTL_SECONDS;
  const downloadUrl = await signedUrl(config.CDN_URL, { reconstructionId: record.id, format, expires }, config.SIGNING_SECRET);
  return c.json(DownloadRecord.parse({ download_url: downloadUrl, expires_at: new Date(expires * 1000).toISOString(), file_size: entry.file_size, format }));
});

/** The caller's reconstruction, or 404 — identical for malformed, unknown and foreign ids. */
export async function ownedStatus(c: Context<AppEnv>, rawId: string): Promise<StatusRecord> {
  const id = ReconstructionId.safeParse(rawId);
  const record = id.success ? await c.env.RECONSTRUCTIONS.get(c.env.RECONSTRUCTIONS.idFromName(id.data)).status(c.get("accountId")!) : null;
  if (!record) throw new ApiError("not_found", "No reconstruction with this id.", "Check the id returned when the reconstruction was created.");
  return StatusRecord.parse(record);
}

/**
 * @module The OpenAPI 3.1 document, generated from the zod schemas (shared/ and the operator
 * API's), so the docs cannot drift from what the routes parse and return.
 *
 * zod 4's `z.toJSONSchema` emits JSON Schema 2020-12, which OpenAPI 3.1 uses as is. All
 * components are converted in one call so schemas carrying `.meta({id})` become shared
 * `$defs` (then renamed to `#/components/schemas/...`) instead of being inlined twice.
 */
import { z } from "zod";
import { CREATE_FORM_SCHEMA } from "./uploads/ingest.js";
import { ERROR_CODES, ErrorBody, statusOf, type ErrorCode } from "../shared/errors.js";
import { FORMATS } from "../shared/formats.js";
import { AccountRecord, CreationRecord, DownloadRecord, ReconstructionId, StatusRecord } from "../shared/records.js";
import { mergePaths, wave2Components, wave2Paths, withIdempotencyKey } from "./openapi-wave2.js";
import { ReconstructionPage, ReportRecord, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from "../shared/listing.js";
import { CreateAccountBody, CreateAccountResponse, CreateKeyResponse, CreditsBody, CreditsResponse } from "./routes/admin.js";
import { CreateFromUploads, UploadRecord } from "../shared/uploads.js";
import { uploadPaths } from "./openapi-uploads.js";

type Json = Record<string, unknown>;

export interface OpenApiSettings {
  /** Largest tus Upload-Length (the per-video limit); defaults to 500 MiB. */
  maxVideoBytes?: number;
  baseUrl: string;
  cdnUrl: string;
  requestLimit: number;
  createLimit: number;
  windowSeconds: number;
  trialCredits: number;
  downloadTtlSeconds: number;
}

const COMPONENTS = {
  CreationRecord,
  StatusRecord,
  DownloadRecord,
  AccountRecord,
  ReconstructionPage,
  ReportRecord,
  Error: ErrorBody,
  CreateAccountBody,
  CreateAccountResponse,
  CreateKeyResponse,
  CreditsBody,
  CreditsResponse,
  ...wave2Components,
  UploadRecord,
  CreateFromUploads,
};

/** JSON Schemas of all components, with refs pointing into `#/components/schemas`. */
export function componentSchemas(): Record<string, Json> {
  const all = z.toJSONSchema(z.object(COMPONENTS), { target: "draft-2020-12", unrepresentable: "any" }) as Json;
  const defs = (all.$defs ?? {}) as Record<string, Json>;
  const text = JSON.stringify(defs).replaceAll('"#/$defs/', '"#/components/schemas/');
  return JSON.parse(text) as Record<string, Json>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const RATE_LIMIT_HEADER_NAMES = ["RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];

function headerComponents(s: OpenApiSettings): Json {
  const header = (description: string, schema: Json, example: unknown) => ({ description, schema, example });
  return {
    "RateLimit-Policy": header("IETF structured field: the request budget (`default`) and, on creation, the `create` budget.", { type: "string" }, `"default";q=${s.requestLimit};w=${s.windowSeconds}`),
    RateLimit: header("IETF structured field: remaining requests `r` and seconds to the window's reset `t`, per policy.", { type: "string" }, `"default";r=${s.requestLimit - 1};t=42`),
    "X-RateLimit-Limit": header("Limit of the tightest budget in this window.", { type: "integer" }, s.requestLimit),
    "X-RateLimit-Remaining": header("Requests left in the tightest budget.", { type: "integer" }, s.requestLimit - 1),
    "X-RateLimit-Reset": header("Unix time (seconds) at which the window resets.", { type: "integer" }, 1795860000),
    "Retry-After": header("Seconds to wait before retrying (on 429 only).", { type: "integer" }, 42),
  };
}

const rateLimitHeaders = (): Json =>
  Object.fromEntries(RATE_LIMIT_HEADER_NAMES.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** One response per HTTP status, each listing the error codes it can carry, with an example each. */
function errorResponses(codes: ErrorCode[]): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  const responses: Json = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Json = { ...rateLimitHeaders(), ...(status === 429 ? { "Retry-After": { $ref: "#/components/headers/Retry-After" } } : {}) };
    responses[String(status)] = {
      description: `Error; \`error.code\` is one of: ${group.map((code) => `\`${code}\``).join(", ")}.`,
      headers,
      content: {
        "application/json": {
          schema: ref("Error"),
          examples: Object.fromEntries(group.map((code) => [code, { value: { error: { code, message: ERROR_MESSAGES[code], suggestion: "…" } } }])),
        },
      },
    };
  }
  return responses;
}

const ERROR_MESSAGES: Record<ErrorCode, string> = {
  invalid_file_format: 'The file "notes.txt" is not JPEG, PNG, HEIC, MP4 or MOV (judged by its bytes).',
  no_files: "The request has no file part.",
  invalid_request: "The request or its body is malformed.",
  unsupported_format: `The file type must be one of ${FORMATS.join(", ")}.`,
  missing_api_key: 'No API key: send "Authorization: Bearer <API_KEY>".',
  invalid_api_key: "The API key is not valid (unknown, revoked or malformed).",
  insufficient_credits: "The balance is 0 credits; a reconstruction costs 1.",
  forbidden: "Not allowed.",
  not_found: "No such reconstruction.",
  not_ready: "The reconstruction is still processing.",
  reconstruction_failed: "The reconstruction failed; see its status for the reason.",
  already_terminal: "The reconstruction is already completed or failed; there is nothing to cancel.",
  idempotency_in_progress: "A request with this Idempotency-Key is still being processed.",
  idempotency_key_reused: "This Idempotency-Key was used with a different request.",
  payload_too_large: "The file exceeds the per-file limit.",
  range_not_satisfiable: "The requested range is outside the file.",
  rate_limited: "Too many requests; retry after the number of seconds in Retry-After.",
  internal_error: "Something went wrong on our side.",
  service_unavailable: "The service is temporarily unavailable.",
  offset_mismatch: "Upload-Offset is 0 but the upload is at 5242880.",
  upload_incomplete: 'The upload "upl_…" has 1048576 of 5242880 bytes; finish it first.',
  upload_locked: "Another request is writing this upload.",
  unsupported_tus_version: "The Tus-Resumable header is missing.",
  unsupported_media_type: "A PATCH body must be application/offset+octet-stream.",
  checksum_mismatch: "The PATCH body does not match its Upload-Checksum; nothing of it was stored.",
};

/** A JSON success response with the rate-limit headers. */
function ok(description: string, schemaName: string): Json {
  return { description, headers: rateLimitHeaders(), content: { "application/json": { schema: ref(schemaName) } } };
}

const AUTH: ErrorCode[] = ["missing_api_key", "invalid_api_key", "rate_limited", "internal_error"];
const ID_PARAM = { name: "id", in: "path", required: true, schema: z.toJSONSchema(ReconstructionId), description: "Reconstruction id" };
const ACCOUNT_PARAM = { name: "account_id", in: "path", required: true, schema: { type: "string", pattern: "^acc_[0-9A-Za-z]{22}$" } };
const KEY_PARAM = { name: "key_id", in: "path", required: true, schema: { type: "string", pattern: "^key_[0-9A-Za-z]{16}$" } };

function jsonBody(schemaName: string): Json {
  return { required: true, content: { "application/json": { schema: ref(schemaName) } } };
}

/** The signed download route, on CDN_URL (the links come from the download endpoint). */
function cdnPaths(s: OpenApiSettings): Json {
  const cdnPath = new URL(s.cdnUrl).pathname.replace(/\/+$/, "");
  const file = { description: "The model file.", headers: { ETag: { schema: { type: "string" } }, "Content-Disposition": { schema: { type: "string" }, description: 'attachment; filename="<id>.<ext>"' }, "Accept-Ranges": { schema: { type: "string" } } }, content: { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } } };
  const operation = (method: string) => ({
    operationId: `${method}ModelFile`,
    tags: ["Downloads"],
    summary: "A model file behind a signed, time-limited link",
    description: "Use the `download_url` of the download record as it is. No API key and no rate-limit headers; supports HEAD, a single `Range`, and `If-None-Match`.",
    security: [],
    servers: [{ url: new URL(s.cdnUrl).origin }],
    parameters: [
      ID_PARAM,
      { name: "file-type", in: "path", required: true, schema: { type: "string", enum: [...FORMATS] } },
      { name: "expires", in: "query", required: true, schema: { type: "integer" }, description: "Unix time (s) after which the link is refused" },
      { name: "sig", in: "query", required: true, schema: { type: "string" }, description: "HMAC-SHA256 over the id, the format and `expires`" },
    ],
    responses: {
      "200": file,
      "206": { ...file, description: "The requested byte range." },
      "304": { description: "Not modified (If-None-Match matched the ETag)." },
      "403": { description: "Bad or expired signature (`forbidden`).", content: { "application/json": { schema: ref("Error") } } },
      "404": { description: "No such file (`not_found`).", content: { "application/json": { schema: ref("Error") } } },
      "416": { description: "Range outside the file (`range_not_satisfiable`).", content: { "application/json": { schema: ref("Error") } } },
    },
  });
  return { [`${cdnPath}/{id}/{file-type}`]: { get: operation("get"), head: operation("head") } };
}

function publicPaths(s: OpenApiSettings): Json {
  const apiKey = [{ apiKey: [] }];
  return {
    "/v1/reconstruction": {
      post: {
        operationId: "createReconstruction",
        tags: ["Reconstructions"],
        summary: "Start a reconstruction from photos and/or videos",
        description:
          `Costs 1 credit, taken at creation (a rejected request takes none and stores nothing). Error precedence: 401, 429, 402 (checked before the body is read), then 413 and 400. ` +
          `A creation attempt counts against both the request budget and the creation budget (${s.createLimit} per ${s.windowSeconds} s).`,
        security: apiKey,
        requestBody: {
          required: true,
          description: "One or more parts named `files`, each with a filename and content type; the kind is judged by the bytes. Up to 1,000 files; images up to 50 MiB, videos up to 500 MiB, 500 MiB per request (defaults).",
          content: {
            "multipart/form-data": {
              // Unknown form fields are refused with 400 invalid_request.
              schema: CREATE_FORM_SCHEMA,
              encoding: { files: { contentType: "image/jpeg, image/png, image/heic, video/mp4, video/quicktime" } },
            },
            // Wave 2: finished tus uploads of the caller instead of a form (same checks, limits and credit).
            "application/json": { schema: ref("CreateFromUploads") },
          },
        },
        responses: {
          "202": ok("Accepted; processing runs in the background. Poll `status_url`.", "CreationRecord"),
          ...errorResponses(["invalid_file_format", "no_files", "invalid_request", "insufficient_credits", "payload_too_large", "not_found", "upload_incomplete", "upload_locked", ...AUTH]),
        },
      },
    },
    "/v1/reconstruction/{id}/status": {
      get: {
        operationId: "getReconstructionStatus",
        tags: ["Reconstructions"],
        summary: "Progress and result of a reconstruction",
        description:
          "While compute is busy a reconstruction stays `pending` and waits its turn; busy is never a failure. `queue` then says why " +
          "(`queued`: in the line, with its `position` (1 = next) and `estimated_start`; `starting`: compute has it), and " +
          "`estimated_completion` includes the wait. Fairness rule: jobs start in rounds, one job per account per round; a job joins " +
          "the round after its account's previous waiting job, never before the round the line has reached; lower rounds first, older " +
          "reconstructions first within a round. So one account's batch takes one slot per round and does not hold back another " +
          "account's single upload. Only a compute service that stays unreachable or " +
          "broken for DISPATCH_UNREACHABLE_SECONDS (900 s by default) of a job's wait fails it, with `dispatch_failed` and a refund.",
        security: apiKey,
        parameters: [ID_PARAM],
        responses: { "200": ok("The status record.", "StatusRecord"), ...errorResponses(["not_found", ...AUTH]) },
      },
    },
    "/v1/reconstruction/{id}/download/{file-type}": {
      get: {
        operationId: "getReconstructionDownload",
        tags: ["Reconstructions"],
        summary: "A signed, time-limited link to one model file",
        description: `\`colmap\` is a zip of COLMAP's text model (cameras.txt, images.txt, points3D.txt), \`transforms\` a nerfstudio / instant-ngp transforms.json; both hold the cameras in the frame of the model formats. Never the binary: \`download_url\` points at ${s.cdnUrl}, is signed and expires after ${s.downloadTtlSeconds} s; call again for a fresh link. Error precedence: 404, then 400 \`unsupported_format\`, then 409.`,
        security: apiKey,
        parameters: [ID_PARAM, { name: "file-type", in: "path", required: true, schema: { type: "string", enum: [...FORMATS] } }],
        responses: { "200": ok("The download record.", "DownloadRecord"), ...errorResponses(["unsupported_format", "not_found", "not_ready", "reconstruction_failed", ...AUTH]) },
      },
    },
    "/v1/reconstructions": {
      get: {
        operationId: "listReconstructions",
        tags: ["Reconstructions"],
        summary: "The caller's reconstructions, newest first, cursor-paged",
        description: "Pass `next_cursor` as `cursor` for the next page; it is null on the last page. With `status`, only reconstructions in that state.",
        security: apiKey,
        parameters: [
          { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT } },
          { name: "cursor", in: "query", required: false, schema: { type: "string" }, description: "`next_cursor` of the previous page" },
          { name: "status", in: "query", required: false, schema: { type: "string", enum: ["pending", "processing", "completed", "failed"] } },
        ],
        responses: { "200": ok("A page of status records.", "ReconstructionPage"), ...errorResponses(["invalid_request", ...AUTH]) },
      },
    },
    "/v1/reconstruction/{id}/report": {
      get: {
        operationId: "getReconstructionReport",
        tags: ["Reconstructions"],
        summary: "Per input image (registered or not, and why) and per stage (wall time, counts)",
        description: "Available once the reconstruction is completed or failed (409 `not_ready` before); 404 when it ended without processing (e.g. a dispatch failure).",
        security: apiKey,
        parameters: [ID_PARAM],
        responses: { "200": ok("The report.", "ReportRecord"), ...errorResponses(["not_found", "not_ready", ...AUTH]) },
      },
    },
    "/v1/account": {
      get: {
        operationId: "getAccount",
        tags: ["Account"],
        summary: "Balance, trial state and usage of the caller's account",
        description:
          "`balance` is the credits available now: the ledger sum minus credits held by creations in progress. " +
          "`trial` is true while every credit the account ever received came from the free-trial grant; the first top-up ends it. " +
          "`usage.reconstructions` counts charged reconstructions; `completed` and `failed` count how they ended.",
        security: apiKey,
        responses: { "200": ok("The account record.", "AccountRecord"), ...errorResponses(AUTH) },
      },
    },
    "/v1/openapi.json": {
      get: { operationId: "getOpenApi", tags: ["Docs"], summary: "This document", security: [], responses: { "200": { description: "OpenAPI 3.1 JSON", headers: rateLimitHeaders() }, ...errorResponses(["rate_limited"]) } },
    },
    "/docs": {
      get: { operationId: "getDocs", tags: ["Docs"], summary: "This document as a web page", security: [], responses: { "200": { description: "HTML", headers: rateLimitHeaders(), content: { "text/html": {} } }, ...errorResponses(["rate_limited"]) } },
    },
  };
}

function adminPaths(s: OpenApiSettings): Json {
  const admin = [{ adminToken: [] }];
  const tags = ["Operator"];
  return {
    "/v1/admin/accounts": {
      post: {
        operationId: "adminCreateAccount",
        tags,
        summary: "Create an account and its first API key",
        description: `Without \`credits\`, the account gets the free trial (${s.trialCredits} credits). The API key is shown once; only its hash is stored.`,
        security: admin,
        requestBody: jsonBody("CreateAccountBody"),
        responses: { "201": ok("Created.", "CreateAccountResponse"), ...errorResponses(["invalid_request", ...AUTH]) },
      },
    },
    "/v1/admin/accounts/{account_id}/keys": {
      post: {
        operationId: "adminCreateKey",
        tags,
        summary: "Issue another API key for an account",
        security: admin,
        parameters: [ACCOUNT_PARAM],
        responses: { "201": ok("Created; the key is shown once.", "CreateKeyResponse"), ...errorResponses(["not_found", ...AUTH]) },
      },
    },
    "/v1/admin/accounts/{account_id}/keys/{key_id}": {
      delete: {
        operationId: "adminRevokeKey",
        tags,
        summary: "Revoke an API key; it fails from the next request on",
        security: admin,
        parameters: [ACCOUNT_PARAM, KEY_PARAM],
        responses: { "204": { description: "Revoked (revoking twice is harmless).", headers: rateLimitHeaders() }, ...errorResponses(["not_found", ...AUTH]) },
      },
    },
    "/v1/admin/accounts/{account_id}/credits": {
      post: {
        operationId: "adminAdjustCredits",
        tags,
        summary: "Add or remove credits (a ledger row with the reason)",
        description: "An amount that would take the available balance below 0 is refused with 400 `invalid_request` and changes nothing.",
        security: admin,
        parameters: [ACCOUNT_PARAM],
        requestBody: jsonBody("CreditsBody"),
        responses: { "200": ok("The new balance.", "CreditsResponse"), ...errorResponses(["invalid_request", "not_found", ...AUTH]) },
      },
    },
  };
}

/** The wave-2 paths of edge/openapi-wave2.ts merged into `paths`, with the create operation's Idempotency-Key. */
function wave2(merge: typeof mergePaths, paths: Json): Json {
  const helpers = { ok, errorResponses, rateLimitHeaders, jsonBody, ID_PARAM, AUTH };
  return withIdempotencyKey(merge(paths, wave2Paths(helpers)), helpers);
}

/** The whole document for one configuration. */
export function buildOpenApiDocument(s: OpenApiSettings): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "Photogrammetry reconstruction API",
      version: "1.0.0",
      description:
        `Upload photos or videos of an object or place; get back a 3D model (${FORMATS.join(", ")}). ` +
        `Every request carries \`Authorization: Bearer <API_KEY>\`. Each reconstruction costs 1 credit. ` +
        `Rate limits: ${s.requestLimit} requests per ${s.windowSeconds} s per account (per client address when unauthenticated), ` +
        `of which at most ${s.createLimit} creation attempts (rejected attempts count); the headers are on every /v1 response. ` +
        `Errors are always \`{"error": {"code", "message", "suggestion"}}\`; the codes are: ${ERROR_CODES.map((c) => `\`${c}\``).join(", ")}.`,
    },
    servers: [{ url: s.baseUrl }],
    tags: [
      { name: "Reconstructions", description: "Create a reconstruction, follow it, download its models." },
      { name: "Account", description: "The caller's credits and usage." },
      { name: "Webhooks", description: "Endpoints that receive signed reconstruction events (Standard Webhooks)." },
      { name: "Operator", description: "Accounts, keys and credits; authorised by the ADMIN_TOKEN secret, not by an API key." },
      { name: "Docs", description: "Public, no key needed." },
      { name: "Downloads", description: "Model files behind signed links on the CDN address." },
      { name: "Uploads", description: "Resumable uploads (tus 1.0) for large captures; their ids create a reconstruction." },
    ],
    security: [{ apiKey: [] }],
    paths: wave2(mergePaths, {
      ...publicPaths(s),
      ...uploadPaths(s.maxVideoBytes ?? 500 * 1024 * 1024, { ok, errorResponses, rateLimitHeaders, auth: AUTH }),
      ...adminPaths(s),
      ...cdnPaths(s),
    }),
    components: {
      schemas: componentSchemas(),
      headers: headerComponents(s),
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "An API key issued by the operator (`pk_live_…`)." },
        adminToken: { type: "http", scheme: "bearer", description: "The ADMIN_TOKEN secret (operator API only)." },
      },
    },
  };
}

/**
 * @module The OpenAPI paths of the reconstructions: create (with its Idempotency-Key), status,
 * download link, list, report, cancel and delete.
 */
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from "../../shared/listing.js";
import { FORMATS } from "../../shared/formats.js";
import { CREATE_FORM_SCHEMA } from "../uploads/ingest.js";
import { AUTH, errorResponses, ID_PARAM, ok, rateLimitHeaders, ref, type Json, type OpenApiSettings } from "./common.js";

/** Create (with the Idempotency-Key header), status, download link, list and report. */
export function reconstructionPaths(s: OpenApiSettings): Json {
  const apiKey = [{ apiKey: [] }];
  return withIdempotencyKey({
    "/v1/reconstruction": {
      post: {
        operationId: "createReconstruction",
        tags: ["Reconstructions"],
        summary: "Start a reconstruction from photos and/or videos",
        description:
          `Costs 1 credit, taken at creation (a rejected request takes none and stores nothing). Error precedence: 401, 429, 402 (checked before the body is read), then 413 and 400. ` +
          `A creation attempt counts against both the request budget and the creation budget (${s.createLimit} per ${s.windowSeconds} s). ` +
          "Ground control points and checkpoints go with the photos: a `gcp` part (OpenDroneMap's gcp_list.txt, with `checkpoints` naming the check points) or JSON `control_points` " +
          "(in the from-uploads body, or as a form field); `output_crs` (EPSG:<code>, projected, metres) sets the outputs' coordinate system. They are checked once the files are stored: " +
          "an unreadable coordinate system, a line that does not parse, a mark on an image not in the upload, on a video or outside its photo (pixels of the photo as displayed, EXIF orientation applied), " +
          "fewer than three control points marked in two photos each, or mixed coordinate systems answer 400 `invalid_request` naming the line or `points[i].marks[j]`, with no credit taken. " +
          "Heights are passed through as given; no geoid model is applied.",
        security: apiKey,
        requestBody: {
          required: true,
          description: "One or more parts named `files`, each with a filename and content type; the kind is judged by the bytes. Up to 1,000 files; images up to 50 MiB, videos up to 500 MiB, 500 MiB per request (defaults). Optionally the survey fields `gcp`, `checkpoints`, `control_points` and `output_crs`.",
          content: {
            "multipart/form-data": {
              // Unknown form fields are refused with 400 invalid_request.
              schema: CREATE_FORM_SCHEMA,
              encoding: { files: { contentType: "image/jpeg, image/png, image/heic, video/mp4, video/quicktime" } },
            },
            // Or the ids of the caller's finished tus uploads instead of a form (same checks, limits and credit).
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
        description: `\`colmap\` is a zip of COLMAP's text model (cameras.txt, images.txt, points3D.txt), \`transforms\` a nerfstudio / instant-ngp transforms.json; both hold the cameras in the frame of the model formats. \`ortho\` (orthophoto) and \`dsm\` (digital surface model) are Cloud Optimized GeoTIFFs and \`report\` an HTML accuracy report, listed in \`formats\` only when compute produced them (a georeferenced job; see \`georeference\` in the status record). Never the binary: \`download_url\` points at ${s.cdnUrl}, is signed and expires after ${s.downloadTtlSeconds} s; call again for a fresh link. Error precedence: 404, then 400 \`unsupported_format\`, then 409.`,
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
  });
}

/** POST /v1/reconstruction/{id}/cancel. */
export function cancelPaths(): Json {
  const security = [{ apiKey: [] }];
  const tags = ["Reconstructions"];
  return {
    "/v1/reconstruction/{id}/cancel": {
      post: {
        operationId: "cancelReconstruction",
        tags,
        summary: "Stop a pending or processing reconstruction",
        description:
          "The reconstruction becomes `failed` with `error.code` `cancelled` and its credit is refunded once (`credit_refunded: true`). " +
          "The compute job stops at its next checkpoint (its next heartbeat, within seconds) and writes no further output. " +
          "An already completed or failed reconstruction answers 409 `already_terminal` and changes nothing.",
        security,
        parameters: [ID_PARAM],
        responses: { "200": ok("The status record after the cancel.", "StatusRecord"), ...errorResponses(["not_found", "already_terminal", ...AUTH]) },
      },
    },
  };
}

/** DELETE /v1/reconstruction/{id}. */
export function deletePaths(): Json {
  const security = [{ apiKey: [] }];
  const tags = ["Reconstructions"];
  return {
    "/v1/reconstruction/{id}": {
      delete: {
        operationId: "deleteReconstruction",
        tags,
        summary: "Delete a reconstruction and every stored file",
        description:
          "Cancels it first when it is still pending or processing (refunding the credit), removes every uploaded input and every output from storage, " +
          "then the id answers 404 for everyone, its owner included. Download links already issued stop working.",
        security,
        parameters: [ID_PARAM],
        responses: { "204": { description: "Deleted.", headers: rateLimitHeaders() }, ...errorResponses(["not_found", ...AUTH]) },
      },
    },
  };
}

/** Adds the `Idempotency-Key` header and its two errors to the create operation of `paths`. */
function withIdempotencyKey(paths: Json): Json {
  const create = (paths["/v1/reconstruction"] as Json | undefined)?.post as Json | undefined;
  if (!create) return paths;
  const header = {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    schema: { type: "string", minLength: 1, maxLength: 255 },
    example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
    description:
      "Makes a retried creation safe (IETF draft \"The Idempotency-Key HTTP Header Field\", Stripe's semantics). An sf-string (`\"…\"`) or the bare value, 1–255 visible ASCII characters, unique per logical request and per account. " +
      "Covers both creation bodies. The same key with the same request (a form: the same parts, names, filenames, bytes, in order, the multipart boundary may differ; JSON from uploads: the same body, at most 1 MiB) within 24 h answers the first 202 again, with `Idempotent-Replayed: true`, and creates and charges nothing; " +
      "with a different request it answers 422 `idempotency_key_reused`; while the first request is still uploading, 409 `idempotency_in_progress` (with `Retry-After`). " +
      "A first request that was refused (any 4xx) does not keep the key, so a corrected retry may reuse it. Checked after 401 and 429, before 402.",
  };
  const errors = errorResponses(["idempotency_in_progress", "idempotency_key_reused"]) as Record<string, Json>;
  const responses = { ...(create.responses as Record<string, Json>) };
  for (const [status, response] of Object.entries(errors)) {
    const existing = responses[status];
    if (!existing) responses[status] = response;
    else {
      // Same status already documented (409 may be): merge the examples and name all codes.
      const content = (existing.content as Json | undefined)?.["application/json"] as Json | undefined;
      const added = ((response.content as Json)["application/json"] as Json).examples as Json;
      if (content) content.examples = { ...((content.examples as Json) ?? {}), ...added };
      existing.description = `${String(existing.description)} Also: ${Object.keys(added).map((c) => `\`${c}\``).join(", ")}.`;
    }
  }
  const parameters = [...((create.parameters as Json[] | undefined) ?? []), header];
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return { ...paths, "/v1/reconstruction": { ...(paths["/v1/reconstruction"] as Json), post: { ...create, parameters, responses: sorted } } };
}

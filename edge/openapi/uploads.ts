/** @module The OpenAPI paths of the tus 1.0 resumable uploads (/v1/uploads). */
import { TUS_CHECKSUM_ALGORITHMS, TUS_EXTENSIONS, TUS_VERSION, UploadId } from "../../shared/uploads.js";
import type { ErrorCode } from "../../shared/errors.js";
import { z } from "zod";
import { AUTH, errorResponses, ok, rateLimitHeaders, type Json } from "./common.js";

const header = (description: string, schema: Json = { type: "string" }) => ({ description, schema });
const TUS_RESUMABLE = { name: "Tus-Resumable", in: "header", required: true, schema: { type: "string", const: TUS_VERSION } };
const UPLOAD_ID = { name: "id", in: "path", required: true, schema: z.toJSONSchema(UploadId), description: "Upload id: the last segment of the Location of the creation" };

export function uploadPaths(maxVideoBytes: number): Json {
  const security = [{ apiKey: [] }];
  const tags = ["Uploads"];
  const progressHeaders = {
    ...rateLimitHeaders(),
    "Tus-Resumable": header(`Always ${TUS_VERSION}`),
    "Upload-Offset": header("Bytes stored so far", { type: "integer" }),
    "Upload-Expires": header("RFC 9110 date after which an unused upload is deleted"),
  };
  const errors = (codes: ErrorCode[]) => errorResponses([...codes, "unsupported_tus_version", ...AUTH]);
  return {
    "/v1/uploads": {
      options: {
        operationId: "tusOptions",
        tags,
        summary: "tus discovery: version, extensions, size limit, checksum algorithms",
        security: [],
        responses: {
          "204": {
            description: "No body.",
            headers: {
              "Tus-Version": header(TUS_VERSION),
              "Tus-Extension": header(TUS_EXTENSIONS.join(",")),
              "Tus-Max-Size": header(`Largest Upload-Length accepted (${maxVideoBytes}); images are limited further once their first bytes arrive`, { type: "integer" }),
              "Tus-Checksum-Algorithm": header(Object.keys(TUS_CHECKSUM_ALGORITHMS).join(",")),
            },
          },
        },
      },
      post: {
        operationId: "createUpload",
        tags,
        summary: "tus creation: start a resumable upload of one file",
        description:
          "The tus 1.0 protocol (tus.io), so tus-js-client and Uppy work unchanged. `Upload-Length` is required (deferred lengths are not supported); " +
          "`Upload-Metadata` may carry `filename` and `filetype` (base64). The file's kind is judged by its first bytes, as in the multipart creation: " +
          "JPEG, PNG, HEIC (up to the per-image limit) or MP4, MOV (up to the per-video limit). An upload unused for the expiration time is deleted. " +
          "Finished uploads become a reconstruction's inputs through `POST /v1/reconstruction` with `{\"uploads\": [ids]}`; a gcp_list.txt is not uploaded here but sent as text in that body (`gcp`), or as JSON `control_points`. Browsers: the API sends no CORS headers yet.",
        security,
        parameters: [
          TUS_RESUMABLE,
          { name: "Upload-Length", in: "header", required: true, schema: { type: "integer", minimum: 1, maximum: maxVideoBytes } },
          { name: "Upload-Metadata", in: "header", required: false, schema: { type: "string", maxLength: 4096 }, example: "filename cGhvdG8uanBn,filetype aW1hZ2UvanBlZw==" },
        ],
        responses: {
          "201": { ...ok("Created. `Location` is the upload URL for HEAD, PATCH and DELETE.", "UploadRecord"), headers: { ...progressHeaders, Location: header("Absolute upload URL") } },
          ...errors(["invalid_request", "payload_too_large"]),
        },
      },
    },
    "/v1/uploads/{id}": {
      head: {
        operationId: "headUpload",
        tags,
        summary: "tus core: how many bytes are stored (where to resume)",
        security,
        parameters: [UPLOAD_ID, TUS_RESUMABLE],
        responses: {
          "200": { description: "No body.", headers: { ...progressHeaders, "Upload-Length": header("Total size", { type: "integer" }), "Upload-Metadata": header("As sent at creation"), "Cache-Control": header("no-store") } },
          ...errors(["not_found"]),
        },
      },
      get: {
        operationId: "getUpload",
        tags,
        summary: "The upload as JSON (the same facts as HEAD)",
        security,
        parameters: [UPLOAD_ID],
        responses: { "200": ok("The upload record.", "UploadRecord"), ...errorResponses(["not_found", ...AUTH]) },
      },
      patch: {
        operationId: "patchUpload",
        tags,
        summary: "tus core: append bytes at Upload-Offset",
        description:
          "Any amount per request; an interrupted request keeps the bytes that arrived (ask HEAD, then resume). With `Upload-Checksum` (checksum extension) " +
          "a body that does not match is discarded with 460. Each PATCH counts against the request budget: prefer chunks of several MiB. A body whose first bytes are not an accepted kind, or an image over the per-image limit, ends the upload (it is deleted).",
        security,
        parameters: [
          UPLOAD_ID,
          TUS_RESUMABLE,
          { name: "Upload-Offset", in: "header", required: true, schema: { type: "integer", minimum: 0 } },
          { name: "Upload-Checksum", in: "header", required: false, schema: { type: "string" }, example: "sha1 Kq5sNclPz7QV2+lfQIuc6R7oRu0=" },
        ],
        requestBody: { required: true, content: { "application/offset+octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } } },
        responses: {
          "204": { description: "Stored; `Upload-Offset` is the new offset.", headers: progressHeaders },
          ...errors(["invalid_request", "invalid_file_format", "not_found", "offset_mismatch", "payload_too_large", "unsupported_media_type", "upload_locked", "checksum_mismatch"]),
        },
      },
      delete: {
        operationId: "terminateUpload",
        tags,
        summary: "tus termination: delete the upload and its bytes",
        security,
        parameters: [UPLOAD_ID, TUS_RESUMABLE],
        responses: { "204": { description: "Deleted; the URL answers 404 from now on.", headers: progressHeaders }, ...errors(["not_found"]) },
      },
    },
  };
}

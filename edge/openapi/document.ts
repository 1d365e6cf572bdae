/**
 * @module The OpenAPI 3.1 document, generated from the zod schemas (shared/ and the operator
 * API's), so the docs cannot drift from what the routes parse and return.
 *
 * zod 4's `z.toJSONSchema` emits JSON Schema 2020-12, which OpenAPI 3.1 uses as is. All
 * components are converted in one call so schemas carrying `.meta({id})` become shared
 * `$defs` (then renamed to `#/components/schemas/...`) instead of being inlined twice.
 *
 * One module per resource beside this one (reconstructions.ts, account.ts, uploads.ts,
 * webhooks.ts, admin.ts, cdn.ts) builds its paths from the blocks of common.ts; this module
 * lists the components and puts the paths together.
 */
import { z } from "zod";
import { ERROR_CODES, ErrorBody } from "../../shared/errors.js";
import { FORMATS, MODEL_FORMATS } from "../../shared/formats.js";
import { ReconstructionPage, ReportRecord } from "../../shared/listing.js";
import { AccountRecord, CreationRecord, DownloadRecord, StatusRecord } from "../../shared/records.js";
import { CreateFromUploads, UploadRecord } from "../../shared/uploads.js";
import { CreateWebhookBody, WebhookCreated, WebhookDeliveryList, WebhookList, WebhookPayload } from "../../shared/webhooks.js";
import { CreateAccountBody, CreateAccountResponse, CreateKeyResponse, CreditsBody, CreditsResponse } from "../routes/admin.js";
import { accountPaths } from "./account.js";
import { adminPaths } from "./admin.js";
import { cdnPaths } from "./cdn.js";
import { errorResponses, headerComponents, mergePaths, rateLimitHeaders, type Json, type OpenApiSettings } from "./common.js";
import { cancelPaths, deletePaths, reconstructionPaths } from "./reconstructions.js";
import { uploadPaths } from "./uploads.js";
import { webhookPaths } from "./webhooks.js";

export type { OpenApiSettings } from "./common.js";

/** The formats beyond the model formats. */
const SURVEY_FORMATS = FORMATS.filter((f) => !(MODEL_FORMATS as readonly string[]).includes(f));

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
  CreateWebhookBody,
  WebhookCreated,
  WebhookList,
  WebhookDeliveryList,
  WebhookPayload,
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

/** GET /v1/openapi.json and GET /docs: this document. */
function docsPaths(): Json {
  return {
    "/v1/openapi.json": {
      get: { operationId: "getOpenApi", tags: ["Docs"], summary: "This document", security: [], responses: { "200": { description: "OpenAPI 3.1 JSON", headers: rateLimitHeaders() }, ...errorResponses(["rate_limited"]) } },
    },
    "/docs": {
      get: { operationId: "getDocs", tags: ["Docs"], summary: "This document as a web page", security: [], responses: { "200": { description: "HTML", headers: rateLimitHeaders(), content: { "text/html": {} } }, ...errorResponses(["rate_limited"]) } },
    },
  };
}

/** The whole document for one configuration. */
export function buildOpenApiDocument(s: OpenApiSettings): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "Photogrammetry reconstruction API",
      version: "1.0.0",
      description:
        `Upload photos or videos of an object or place; get back a 3D model (${MODEL_FORMATS.join(", ")}) and, for a georeferenced survey, an orthophoto, a DSM and an accuracy report (${SURVEY_FORMATS.join(", ")}). ` +
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
    // In the order the document has always listed them (the /docs page and generated clients follow it).
    paths: mergePaths(
      reconstructionPaths(s),
      accountPaths(),
      docsPaths(),
      uploadPaths(s.maxVideoBytes ?? 500 * 1024 * 1024),
      adminPaths(s),
      cdnPaths(s),
      cancelPaths(),
      webhookPaths(),
      deletePaths(),
    ),
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

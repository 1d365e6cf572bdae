/** @module The OpenAPI paths of the model files behind signed links, on CDN_URL (edge/routes/cdn.ts). */
import { FORMATS } from "../../shared/formats.js";
import { ID_PARAM, ref, type Json, type OpenApiSettings } from "./common.js";

/** The signed download route, on CDN_URL (the links come from the download endpoint). */
export function cdnPaths(s: OpenApiSettings): Json {
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

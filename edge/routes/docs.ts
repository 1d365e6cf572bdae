/**
 * @module Public docs: GET /v1/openapi.json and GET /docs (the same document as HTML).
 *
 * The page is rendered on the server from the OpenAPI document: no script, no external CDN,
 * so it works offline and under a strict Content-Security-Policy. Both are public (no key)
 * and counted per client address like any other unauthenticated request.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env.js";
import { configOf, type Config } from "../env.js";
import { buildOpenApiDocument } from "../openapi/document.js";
import { rateLimit } from "../access/rate-limit.js";

type Json = Record<string, unknown>;

const documents = new WeakMap<Config, Json>();

function documentFor(config: Config): Json {
  let document = documents.get(config);
  if (!document) {
    document = buildOpenApiDocument({
      baseUrl: config.BASE_URL,
      cdnUrl: config.CDN_URL,
      requestLimit: config.RATE_LIMIT_REQUESTS,
      createLimit: config.RATE_LIMIT_CREATES,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      trialCredits: config.TRIAL_CREDITS,
      downloadTtlSeconds: config.DOWNLOAD_TTL_SECONDS,
      maxVideoBytes: config.MAX_VIDEO_BYTES,
    });
    documents.set(config, document);
  }
  return document;
}

export const docsRoutes = new Hono<AppEnv>();

docsRoutes.get("/v1/openapi.json", rateLimit("request"), (c) => c.json(documentFor(configOf(c.env))));

docsRoutes.get("/docs", rateLimit("request"), (c) => {
  c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
  return c.html(renderDocs(documentFor(configOf(c.env))));
});

function escapeHtml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string);
}

/** Inline `code` spans of the descriptions, after escaping. */
function prose(text: unknown): string {
  return escapeHtml(text ?? "").replace(/`([^`]+)`/g, "<code>$1</code>");
}

/** A compact one-line type for a JSON Schema: `string`, `integer | null`, `StatusRecord`, `array of …`. */
function typeOf(schema: Json | undefined): string {
  if (!schema) return "";
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").at(-1) ?? "";
    return name.startsWith("__") ? "object" : `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map(typeOf).join(" | ");
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map((v) => `<code>${escapeHtml(v)}</code>`).join(" | ");
  if (schema.const !== undefined) return `<code>${escapeHtml(schema.const)}</code>`;
  if (schema.type === "array") return `array of ${typeOf(schema.items as Json)}`;
  return escapeHtml(schema.type ?? "any");
}

function fieldsTable(schema: Json): string {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows = Object.entries(properties).map(
    ([name, field]) =>
      `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? "" : " <small>optional</small>"}</td><td>${typeOf(field)}</td><td>${prose(field.description ?? "")}</td></tr>`,
  );
  return rows.length ? `<table><tr><th>field</th><th>type</th><th>meaning</th></tr>${rows.join("")}</table>` : "";
}

function renderOperation(path: string, method: string, op: Json): string {
  const params = ((op.parameters ?? []) as Json[]).map((p) => `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)}): ${typeOf(p.schema as Json)}</li>`);
  const body = op.requestBody as Json | undefined;
  const bodyTypes = body ? Object.entries(body.content as Record<string, Json>).map(([type, media]) => `<code>${escapeHtml(type)}</code> ${typeOf(media.schema as Json)}`) : [];
  const responses = Object.entries(op.responses as Record<string, Json>).map(([status, response]) => {
    const schema = (response.content as Record<string, Json> | undefined)?.["application/json"]?.schema as Json | undefined;
    return `<tr><td>${escapeHtml(status)}</td><td>${prose(response.description)}</td><td>${typeOf(schema)}</td></tr>`;
  });
  const auth = (op.security as unknown[] | undefined)?.length === 0 ? "public" : JSON.stringify(op.security ?? []).includes("adminToken") ? "ADMIN_TOKEN" : "API key";
  return `<section class="op" id="${escapeHtml(String(op.operationId))}">
<h3><span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p><strong>${prose(op.summary)}</strong> <small>(${auth})</small></p>
${op.description ? `<p>${prose(op.description)}</p>` : ""}
${params.length ? `<p>Parameters:</p><ul>${params.join("")}</ul>` : ""}
${bodyTypes.length ? `<p>Body: ${bodyTypes.join(", ")}. ${prose(body?.description ?? "")}</p>` : ""}
<table><tr><th>status</th><th>meaning</th><th>body</th></tr>${responses.join("")}</table>
</section>`;
}

/** The whole page. */
export function renderDocs(document: Json): string {
  const info = document.info as Json;
  const paths = document.paths as Record<string, Record<string, Json>>;
  const components = document.components as { schemas: Record<string, Json>; headers: Record<string, Json> };
  const operations = Object.entries(paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => renderOperation(path, method, op)));
  const schemas = Object.entries(components.schemas)
    .filter(([name]) => !name.startsWith("__"))
    .map(([name, schema]) => `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${fieldsTable(schema)}</section>`);
  const headers = Object.entries(components.headers).map(([name, h]) => `<li><code>${escapeHtml(name)}</code>: ${prose(h.description)} e.g. <code>${escapeHtml(h.example)}</code></li>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:0 .2em;border-radius:3px}table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
.op{border-top:1px solid #ccc;padding-top:.5rem}.method{font-weight:bold;color:#05a}
</style></head><body>
<h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p>${prose(info.description)}</p>
<p>Base address: <code>${escapeHtml(((document.servers as Json[])[0] ?? {}).url)}</code>. Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
<h2>Rate-limit headers</h2><ul>${headers.join("")}</ul>
<h2>Endpoints</h2>${operations.join("\n")}
<h2>Schemas</h2>${schemas.join("\n")}
</body></html>`;
}

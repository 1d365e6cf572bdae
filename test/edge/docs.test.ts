import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../shared/errors.js";
import { request } from "./helpers.js";

type Json = Record<string, any>;

async function openapi(): Promise<Json> {
  const res = await request("/v1/openapi.json");
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

/** Every `$ref` in the document, so dangling references can be caught. */
function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsOf(item, out);
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") out.push(item);
      else refsOf(item, out);
    }
  }
  return out;
}

describe("GET /v1/openapi.json", () => {
  it("is public, OpenAPI 3.1, and carries the per-address rate-limit headers", async () => {
    const res = await request("/v1/openapi.json", { headers: { "CF-Connecting-IP": "198.51.100.20" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("RateLimit-Policy")).toBe('"default";q=120;w=60');
    const doc = (await res.json()) as Json;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers[0].url).toBe("http://127.0.0.1:8787");
  });

  it("lists every public and operator endpoint", async () => {
    const doc = await openapi();
    const operations = Object.entries(doc.paths as Json).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations).toEqual(
      expect.arrayContaining([
        "POST /v1/reconstruction",
        "GET /v1/reconstruction/{id}/status",
        "GET /v1/reconstruction/{id}/download/{file-type}",
        "GET /v1/account",
        "POST /v1/admin/accounts",
        "POST /v1/admin/accounts/{account_id}/keys",
        "DELETE /v1/admin/accounts/{account_id}/keys/{key_id}",
        "POST /v1/admin/accounts/{account_id}/credits",
        "GET /v1/openapi.json",
        "GET /docs",
      ]),
    );
  });

  it("generates the record schemas from shared/ and resolves every $ref", async () => {
    const doc = await openapi();
    const schemas = doc.components.schemas as Json;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(["CreationRecord", "StatusRecord", "DownloadRecord", "AccountRecord", "Error", "CreditsBody"]));
    expect(schemas.StatusRecord.properties.status.enum).toEqual(["pending", "processing", "completed", "failed"]);
    expect(schemas.StatusRecord.required).toEqual(expect.arrayContaining(["id", "progress", "credit_refunded"]));
    for (const target of refsOf(doc)) {
      const [, section, kind, name] = target.split("/");
      expect(section).toBe("components");
      expect(doc.components[kind]?.[name], target).toBeDefined();
    }
  });

  it("documents the multipart body, bearer security, and each error code with its status", async () => {
    const doc = await openapi();
    const create = doc.paths["/v1/reconstruction"].post;
    expect(create.requestBody.content["multipart/form-data"].schema.properties.files.type).toBe("array");
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(Object.keys(create.responses)).toEqual(["202", "400", "401", "402", "404", "409", "413", "422", "423", "429", "500"]);
    expect(Object.keys(create.responses["400"].content["application/json"].examples)).toEqual(["invalid_file_format", "no_files", "invalid_request"]);
    expect(create.responses["429"].headers["Retry-After"]).toBeDefined();
    expect(create.responses["202"].headers["RateLimit-Policy"]).toBeDefined();
    const download = doc.paths["/v1/reconstruction/{id}/download/{file-type}"].get;
    expect(Object.keys(download.responses["409"].content["application/json"].examples)).toEqual(["not_ready", "reconstruction_failed"]);
    expect(doc.paths["/v1/admin/accounts"].post.security).toEqual([{ adminToken: [] }]);
    expect(doc.paths["/docs"].get.security).toEqual([]);
    for (const code of ERROR_CODES) expect(doc.info.description).toContain(`\`${code}\``);
  });
});

describe("GET /docs", () => {
  it("is a self-contained HTML page describing every endpoint, without scripts", async () => {
    const res = await request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.headers.get("X-RateLimit-Limit")).toBe("120");
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/i);
    for (const path of ["/v1/reconstruction/{id}/status", "/v1/account", "/v1/admin/accounts/{account_id}/credits"]) expect(html).toContain(path);
    expect(html).toContain('id="schema-StatusRecord"');
    expect(html).toContain("<code>insufficient_credits</code>");
  });
});

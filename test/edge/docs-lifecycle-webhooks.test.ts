/** Cancel, delete and the webhook endpoints appear in the OpenAPI document with their error codes. */
import { describe, expect, it } from "vitest";
import { request } from "./helpers.js";

type Json = Record<string, any>;

async function openapi(): Promise<Json> {
  const res = await request("/v1/openapi.json");
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

function codesOf(operation: Json): string[] {
  return Object.values(operation.responses as Json).flatMap((r: Json) => Object.keys(r.content?.["application/json"]?.examples ?? {}));
}

describe("OpenAPI: cancel, delete", () => {
  it("documents cancel (409 already_terminal) and delete (204) beside the existing reconstruction paths", async () => {
    const doc = await openapi();
    const cancel = doc.paths["/v1/reconstruction/{id}/cancel"].post;
    expect(Object.keys(cancel.responses)).toEqual(expect.arrayContaining(["200", "404", "409", "401", "429"]));
    expect(codesOf(cancel)).toEqual(expect.arrayContaining(["already_terminal", "not_found"]));
    expect(doc.paths["/v1/reconstruction/{id}"].delete.responses["204"]).toBeTruthy();
    expect(doc.paths["/v1/reconstruction"].post.operationId).toBe("createReconstruction");
  });
});

describe("OpenAPI: Idempotency-Key", () => {
  it("documents the header and the 409/422 codes on creation", async () => {
    const doc = await openapi();
    const create = doc.paths["/v1/reconstruction"].post;
    expect(create.parameters.map((p: Json) => `${p.in}:${p.name}`)).toContain("header:Idempotency-Key");
    expect(codesOf(create)).toEqual(expect.arrayContaining(["idempotency_in_progress", "idempotency_key_reused", "no_files", "insufficient_credits"]));
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["202", "409", "422"]));
  });
});

describe("OpenAPI: webhooks", () => {
  it("documents the four webhook operations, their schemas and the signature scheme", async () => {
    const doc = await openapi();
    expect(doc.paths["/v1/webhooks"].post.responses["201"].content["application/json"].schema.$ref).toBe("#/components/schemas/WebhookCreated");
    expect(doc.paths["/v1/webhooks"].post.description).toMatch(/webhook-signature/);
    expect(doc.paths["/v1/webhooks"].get.operationId).toBe("listWebhooks");
    expect(doc.paths["/v1/webhooks/{id}"].delete.responses["204"]).toBeTruthy();
    expect(codesOf(doc.paths["/v1/webhooks/{id}/deliveries"].get)).toContain("not_found");
    for (const name of ["CreateWebhookBody", "WebhookCreated", "WebhookList", "WebhookDeliveryList", "WebhookPayload", "StatusRecord"]) expect(doc.components.schemas[name], name).toBeTruthy();
    expect(doc.components.schemas.WebhookPayload.properties.data.$ref).toBe("#/components/schemas/StatusRecord");
    const docs = await (await request("/docs")).text();
    expect(docs).toContain("/v1/webhooks/{id}/deliveries");
    expect(docs).toContain("/v1/reconstruction/{id}/cancel");
  });
});

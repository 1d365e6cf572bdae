import { describe, expect, it } from "vitest";
import { request } from "./helpers.js";

describe("OpenAPI: tus uploads and camera exports", () => {
  it("documents tus at /v1/uploads, the JSON creation body, and the colmap and transforms formats", async () => {
    const doc = await (await request("/v1/openapi.json")).json<any>();
    expect(Object.keys(doc.paths["/v1/uploads"]).sort()).toEqual(["options", "post"]);
    expect(Object.keys(doc.paths["/v1/uploads/{id}"]).sort()).toEqual(["delete", "get", "head", "patch"]);
    const patch = doc.paths["/v1/uploads/{id}"].patch;
    expect(Object.keys(patch.requestBody.content)).toEqual(["application/offset+octet-stream"]);
    expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(["204", "400", "404", "409", "412", "413", "415", "423", "460"]));
    expect(doc.paths["/v1/uploads"].options.responses["204"].headers["Tus-Max-Size"].description).toContain(String(500 * 1024 * 1024));
    const create = doc.paths["/v1/reconstruction"].post;
    expect(create.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/CreateFromUploads" });
    expect(doc.components.schemas.CreateFromUploads.required).toEqual(["uploads"]);
    expect(doc.components.schemas.UploadRecord.properties.upload_offset.type).toBe("integer");
    const formats = doc.paths["/v1/reconstruction/{id}/download/{file-type}"].get.parameters[1].schema.enum;
    expect(formats).toEqual(expect.arrayContaining(["colmap", "transforms"]));
    // Every $ref resolves.
    for (const [, name] of JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas[name!], name).toBeDefined();
  });
});

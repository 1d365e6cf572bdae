import { describe, expect, it } from "vitest";
import { createAccount, keyHeaders, request } from "./helpers.js";
import { jpeg } from "./upload-fixtures.js";
import { TUS, createUpload, head, patch, storedKeys, uploadIdOf } from "./tus-support.js";

describe("tus at /v1/uploads: another account's upload", () => {
  it("is a 404 for HEAD, GET, PATCH and DELETE, and stays untouched", async () => {
    const owner = await createAccount(1, { email: "owner@example.com" });
    const other = await createAccount(1, { email: "other@example.com" });
    const photo = jpeg(640, 480, 1000);
    const path = await createUpload(owner.apiKey, photo.length);
    expect((await patch(owner.apiKey, path, 0, photo.slice(0, 500))).status).toBe(204);

    expect((await head(other.apiKey, path)).status).toBe(404);
    const read = await request(path, { headers: keyHeaders(other.apiKey) });
    expect(read.status).toBe(404);
    expect(await read.json()).toMatchObject({ error: { code: "not_found" } });
    const write = await patch(other.apiKey, path, 500, photo.slice(500));
    expect(write.status).toBe(404);
    expect(await write.json()).toMatchObject({ error: { code: "not_found" } });
    const remove = await request(path, { method: "DELETE", headers: keyHeaders(other.apiKey, TUS) });
    expect(remove.status).toBe(404);

    const probe = await head(owner.apiKey, path);
    expect(probe.headers.get("Upload-Offset")).toBe("500");
    expect(await storedKeys(path)).toEqual([`uploads/${uploadIdOf(path)}/tail-1`]);
  });
});

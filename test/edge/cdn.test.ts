import { describe, expect, it } from "vitest";
import { isCdnHostRequest, parseCdnPath } from "../../edge/routes/cdn.js";
import { parseRange } from "../../edge/downloads/range.js";
import { signedUrl } from "../../edge/downloads/signing.js";
import type { DownloadRecord } from "../../shared/records.js";
import { outputKey } from "../../shared/storage-keys.js";
import { env, keyHeaders, request } from "./helpers.js";
import { completeWithOutputs, createReconstruction } from "./reconstruction-support.js";

/** A completed reconstruction with a glb and a ply in R2, and a fresh signed glb link. */
async function completedWithLink() {
  const created = await createReconstruction();
  const files = await completeWithOutputs(created.id, { glb: 3000, ply: 1000 });
  const res = await request(`/v1/reconstruction/${created.id}/download/glb`, { headers: keyHeaders(created.account.apiKey) });
  const record = (await res.json()) as DownloadRecord;
  return { ...created, glb: files.get("glb")!, link: record.download_url };
}

/** Requests a CDN URL against the test Worker (same path and query, test origin). */
function fetchCdn(url: string, init: RequestInit = {}) {
  const parsed = new URL(url);
  return request(`${parsed.pathname}${parsed.search}`, init);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("CDN route: serving", () => {
  it("serves the file with type, length, ETag, disposition and no API rate-limit headers", async () => {
    const { id, glb, link } = await completedWithLink();
    const res = await fetchCdn(link);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(glb);
    expect(res.headers.get("Content-Type")).toBe("model/gltf-binary");
    expect(res.headers.get("Content-Length")).toBe(String(glb.length));
    expect(res.headers.get("ETag")).toMatch(/^".+"$/);
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="${id}.glb"`);
    expect(res.headers.get("Accept-Ranges")).toBe("bytes");
    expect(res.headers.get("RateLimit-Policy")).toBeNull();
    expect(res.headers.get("X-RateLimit-Limit")).toBeNull();
  });

  it("serves the survey outputs as image/tiff and text/html under their download names", async () => {
    const created = await createReconstruction();
    const files = await completeWithOutputs(created.id, { ortho: 700, dsm: 500, report: 90 });
    const expected = { ortho: ["image/tiff", `${created.id}-ortho.tif`], dsm: ["image/tiff", `${created.id}-dsm.tif`], report: ["text/html", `${created.id}-report.html`] } as const;
    for (const [format, [type, name]] of Object.entries(expected) as [keyof typeof expected, readonly [string, string]][]) {
      const record = (await (await request(`/v1/reconstruction/${created.id}/download/${format}`, { headers: keyHeaders(created.account.apiKey) })).json()) as DownloadRecord;
      const res = await fetchCdn(record.download_url);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toBe(type);
      expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="${name}"`);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(files.get(format));
    }
  });

  it("answers HEAD with the headers and no body", async () => {
    const { glb, link } = await completedWithLink();
    const res = await fetchCdn(link, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Length")).toBe(String(glb.length));
    expect(res.headers.get("ETag")).not.toBeNull();
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it("serves single byte ranges with 206 and refuses unsatisfiable ones with 416", async () => {
    const { glb, link } = await completedWithLink();
    const cases: [string, number, number][] = [["bytes=10-19", 10, 19], ["bytes=2990-", 2990, 2999], ["bytes=-5", 2995, 2999], ["bytes=2990-99999", 2990, 2999]];
    for (const [range, first, last] of cases) {
      const res = await fetchCdn(link, { headers: { Range: range } });
      expect(res.status).toBe(206);
      expect(res.headers.get("Content-Range")).toBe(`bytes ${first}-${last}/3000`);
      expect(res.headers.get("Content-Length")).toBe(String(last - first + 1));
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(glb.subarray(first, last + 1));
    }
    const beyond = await fetchCdn(link, { headers: { Range: "bytes=3000-3010" } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("Content-Range")).toBe("bytes */3000");
    const several = await fetchCdn(link, { headers: { Range: "bytes=0-1,5-6" } });
    expect(several.status).toBe(200); // multi-range is ignored (RFC 9110 allows sending the whole)
    await several.arrayBuffer();
  });

  it("answers 304 to a matching If-None-Match", async () => {
    const { link } = await completedWithLink();
    const first = await fetchCdn(link);
    const etag = first.headers.get("ETag")!;
    await first.arrayBuffer();
    const again = await fetchCdn(link, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
  });

  it("shares one edge-cache entry between links that differ only in their signature query", async () => {
    const { id, glb, link } = await completedWithLink();
    await (await fetchCdn(link)).arrayBuffer(); // fills the cache
    await env.BUCKET.delete(outputKey(id, "glb"));
    const otherLink = await signedUrl(env.CDN_URL, { reconstructionId: id, format: "glb", expires: nowSeconds() + 60 }, env.SIGNING_SECRET);
    expect(otherLink).not.toBe(link);
    const res = await fetchCdn(otherLink);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(glb);
  });

  it("answers 404 for a validly signed link whose file is not in R2", async () => {
    const { id } = await createReconstruction();
    const link = await signedUrl(env.CDN_URL, { reconstructionId: id, format: "stl", expires: nowSeconds() + 60 }, env.SIGNING_SECRET);
    const res = await fetchCdn(link);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("CDN route: security", () => {
  async function expectForbidden(url: string) {
    const res = await fetchCdn(url);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: "forbidden" } });
  }

  it("refuses a tampered signature", async () => {
    const { link } = await completedWithLink();
    const last = link.at(-1) === "0" ? "1" : "0";
    await expectForbidden(link.slice(0, -1) + last);
  });

  it("refuses a link whose expiry was changed", async () => {
    const { link } = await completedWithLink();
    const url = new URL(link);
    url.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
    await expectForbidden(url.toString());
  });

  it("refuses an expired link with a valid signature", async () => {
    const { id } = await completedWithLink();
    await expectForbidden(await signedUrl(env.CDN_URL, { reconstructionId: id, format: "glb", expires: nowSeconds() - 1 }, env.SIGNING_SECRET));
  });

  it("refuses a signature moved to another reconstruction or another format", async () => {
    const mine = await completedWithLink();
    const theirs = await completedWithLink();
    const sig = new URL(mine.link).search;
    await expectForbidden(`${env.CDN_URL}/${theirs.id}/glb${sig}`);
    await expectForbidden(`${env.CDN_URL}/${mine.id}/ply${sig}`);
  });

  it("refuses links without a signature, with a signature of the wrong secret, or with junk", async () => {
    const { id, link } = await completedWithLink();
    await expectForbidden(`${env.CDN_URL}/${id}/glb`);
    await expectForbidden(link.replace(/sig=[0-9a-f]+/, "sig=zz"));
    await expectForbidden(await signedUrl(env.CDN_URL, { reconstructionId: id, format: "glb", expires: nowSeconds() + 60 }, "another-secret-0123456789"));
  });
});

describe("CDN path and range parsing", () => {
  it("reads paths relative to CDN_URL's path (a /cdn mount or a hostname of its own)", () => {
    const id = "rec_AAAAAAAAAAAAAAAAAAAAAAAA";
    expect(parseCdnPath(`/cdn/${id}/glb`, "/cdn")).toEqual({ reconstructionId: id, format: "glb" });
    expect(parseCdnPath(`/${id}/las`, "/")).toEqual({ reconstructionId: id, format: "las" });
    expect(parseCdnPath(`/${id}/las`, "")).toEqual({ reconstructionId: id, format: "las" });
    expect(parseCdnPath(`/cdn/${id}/fbx`, "/cdn")).toBeUndefined();
    expect(parseCdnPath(`/cdn/${id}/glb/extra`, "/cdn")).toBeUndefined();
    expect(parseCdnPath(`/other/${id}/glb`, "/cdn")).toBeUndefined();
    expect(parseCdnPath(`/cdn/not-an-id/glb`, "/cdn")).toBeUndefined();
  });

  it("recognises requests to a CDN hostname of its own", () => {
    expect(isCdnHostRequest("https://files.example.com/rec_x/glb", "https://files.example.com", "https://api.example.com")).toBe(true);
    expect(isCdnHostRequest("https://api.example.com/v1/x", "https://files.example.com", "https://api.example.com")).toBe(false);
    // Same host as the API (local dev, /cdn mount): never a whole-host takeover.
    expect(isCdnHostRequest("http://127.0.0.1:8787/v1/x", "http://127.0.0.1:8787/cdn", "http://127.0.0.1:8787")).toBe(false);
  });

  it("parses single ranges per RFC 9110", () => {
    expect(parseRange(undefined, 10)).toBeUndefined();
    expect(parseRange("bytes=0-0", 10)).toEqual({ offset: 0, length: 1 });
    expect(parseRange("bytes=5-2", 10)).toBeUndefined();
    expect(parseRange("bytes=-0", 10)).toBe("unsatisfiable");
    expect(parseRange("bytes=-20", 10)).toEqual({ offset: 0, length: 10 });
    expect(parseRange("bytes=10-", 10)).toBe("unsatisfiable");
    expect(parseRange("items=0-1", 10)).toBeUndefined();
    expect(parseRange("bytes=0-", 0)).toBe("unsatisfiable");
  });
});

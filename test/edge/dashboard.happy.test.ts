/** Dashboard pages: keys usable on the API, isolation between accounts, security headers, pages without JS. */
import { describe, expect, it } from "vitest";
import { outputKey, reportKey } from "../../shared/storage-keys.js";
import { BASE, env, keyHeaders, request } from "./helpers.js";
import { freshEmail, TestBrowser } from "./dashboard-support.js";
import { completeWithOutputs, reconstructionStub } from "./reconstruction-support.js";

async function signedUp(label: string): Promise<TestBrowser> {
  const browser = new TestBrowser();
  expect((await browser.signUp(freshEmail(label))).status).toBe(303);
  return browser;
}

async function createKey(browser: TestBrowser, name: string): Promise<{ apiKey: string; keyId: string }> {
  const res = await browser.post("/dashboard/keys", { name }, { from: "/dashboard/keys" });
  expect(res.status).toBe(201);
  const html = await res.text();
  const apiKey = /id="new-api-key" readonly value="([^"]+)"/.exec(html)![1];
  const keyId = /action="\/dashboard\/keys\/(key_[0-9A-Za-z]{16})\/revoke"/.exec(html)![1];
  return { apiKey, keyId };
}

describe("keys", () => {
  it("a dashboard key works on the API, is listed with name, prefix and last use, and fails once revoked", async () => {
    const browser = await signedUp("key");
    const { apiKey, keyId } = await createKey(browser, "laptop <script>");
    const account = await request("/v1/account", { headers: keyHeaders(apiKey) });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ balance: 5, trial: true });
    const list = await (await browser.fetch("/dashboard/keys")).text();
    expect(list).toContain("laptop &lt;script&gt;"); // escaped, never markup
    expect(list).not.toContain(apiKey); // shown once only
    expect(list).toContain(apiKey.slice(0, 14));
    expect(list).toMatch(/<td data-label="Last used"><time datetime="20/); // last use recorded
    expect(list).not.toContain(`<td data-label="Last used">never</td>`);
    const revoked = await browser.post(`/dashboard/keys/${keyId}/revoke`, {}, { from: "/dashboard/keys" });
    expect(revoked.status).toBe(200);
    const after = await request("/v1/account", { headers: keyHeaders(apiKey) });
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: { code: "invalid_api_key" } });
  });
});

describe("isolation", () => {
  it("one account's dashboard never shows another's reconstructions, keys or files", async () => {
    const owner = await signedUp("owner");
    const { keyId } = await createKey(owner, "mine");
    const { id } = await owner.upload();
    await completeWithOutputs(id!, { glb: 100, ply: 50 });
    await env.BUCKET.put(reportKey(id!), JSON.stringify({ stages: [], skipped: [], unregistered: [] }));
    expect((await owner.fetch(`/dashboard/reconstructions/${id}`)).status).toBe(200);
    const stranger = await signedUp("stranger");
    expect((await stranger.fetch(`/dashboard/reconstructions/${id}`)).status).toBe(404);
    expect((await stranger.fetch(`/dashboard/reconstructions/${id}/download/glb`)).status).toBe(404);
    const status = await stranger.fetch(`/dashboard/api/reconstructions/${id}`);
    expect(status.status).toBe(404);
    expect(await status.json()).toMatchObject({ error: { code: "not_found" } });
    expect(await (await stranger.fetch("/dashboard/api/reconstructions")).json()).toEqual({ data: [], next_cursor: null });
    expect(await (await stranger.fetch("/dashboard/reconstructions")).text()).not.toContain(id!);
    const revoke = await stranger.post(`/dashboard/keys/${keyId}/revoke`, {}, { from: "/dashboard/keys" });
    expect(revoke.status).toBe(404);
    expect(await (await owner.fetch("/dashboard/keys")).text()).not.toContain("revoked");
  });
});

describe("reconstruction pages", () => {
  it("list, detail with report, downloads and viewer data, and a download redirect to a signed link", async () => {
    const browser = await signedUp("pages");
    const { id } = await browser.upload();
    const listed = await (await browser.fetch("/dashboard/reconstructions")).text();
    expect(listed).toContain(`data-live-id="${id}" data-status="pending"`);
    await env.BUCKET.put(reportKey(id!), JSON.stringify({ images: 2, registered: 1, skipped: [], unregistered: [{ name: "b.jpg", reason: "too few matches" }], stages: [{ stage: "ingest", wallMs: 1000, counts: {}, perImage: [{ name: "a.jpg", kind: "jpeg" }, { name: "b.jpg", kind: "jpeg" }] }, { stage: "sfm", wallMs: 2000, counts: {}, perImage: [{ name: "a.jpg", registered: true }] }] }));
    await completeWithOutputs(id!, { glb: 100, ply: 50, obj: 10, stl: 10, las: 10, gltf: 10, colmap: 3_000_000, transforms: 2048 });
    const detail = await (await browser.fetch(`/dashboard/reconstructions/${id}`)).text();
    expect(detail).toContain("too few matches");
    // Every format the status record lists, camera exports included, in the API's order.
    expect([...detail.matchAll(/data-format="([a-z]+)"/g)].map((m) => m[1])).toEqual(["obj", "ply", "gltf", "glb", "stl", "las", "colmap", "transforms"]);
    expect(detail).toContain('data-format="colmap">COLMAP</a> (2.9 MiB)');
    expect(detail).toContain('data-format="transforms">TRANSFORMS</a> (2 KiB)');
    expect(detail).toMatch(/data-glb="http:\/\/127\.0\.0\.1:8787\/cdn\/rec_[^"]+\/glb\?expires=/);
    expect(detail).toContain('<script type="module" src="/assets/viewer.js"></script>');
    const redirect = await browser.fetch(`/dashboard/reconstructions/${id}/download/ply`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("Location")).toMatch(/\/cdn\/rec_.+\/ply\?expires=\d+&sig=/);
    expect(await env.BUCKET.head(outputKey(id!, "ply"))).not.toBeNull();
  });

  it("a failed reconstruction shows its reason and the refund; the list filters by status", async () => {
    const browser = await signedUp("failed");
    const { id } = await browser.upload();
    await reconstructionStub(id!).fail({ attempt: 1, code: "not_enough_overlap", message: "The photos do not overlap enough.", suggestion: "Take more photos." });
    const detail = await (await browser.fetch(`/dashboard/reconstructions/${id}`)).text();
    expect(detail).toContain("Failed: not_enough_overlap");
    expect(detail).toContain("Your credit was refunded.");
    const ledger = await (await browser.fetch("/dashboard/credits")).text();
    expect(ledger).toContain("Refund");
    expect(ledger).toContain(`<strong data-balance>5</strong>`);
    const failed = (await (await browser.fetch("/dashboard/api/reconstructions?status=failed")).json()) as { data: { id: string }[] };
    expect(failed.data.map((r) => r.id)).toEqual([id]);
    expect(await (await browser.fetch("/dashboard/reconstructions?status=completed")).text()).not.toContain(`data-live-id="${id}"`);
    expect(await (await browser.fetch("/dashboard/reconstructions?status=failed")).text()).toContain(`data-live-id="${id}"`);
  });

  it("uploading without JavaScript (form post with redirect=1) lands on the new reconstruction's page", async () => {
    const browser = await signedUp("nojs");
    const csrf = await browser.csrf("/dashboard/reconstructions/new");
    const form = await (await browser.fetch("/dashboard/reconstructions/new")).text();
    expect(form).toContain(`action="/dashboard/api/reconstructions?redirect=1&amp;csrf=`);
    const { BOUNDARY, fileParts, jpeg, multipartBody } = await import("./upload-fixtures.js");
    const res = await browser.fetch(`/dashboard/api/reconstructions?redirect=1&csrf=${encodeURIComponent(csrf)}`, {
      method: "POST",
      headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, Origin: BASE },
      body: multipartBody(fileParts([{ fileName: "a.jpg", data: jpeg(800, 600, 300) }, { fileName: "b.jpg", data: jpeg(800, 600, 300) }])),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toMatch(/^\/dashboard\/reconstructions\/rec_/);
  });
});

describe("security headers", () => {
  it("are on every dashboard page and asset, and not on the API", async () => {
    const browser = await signedUp("headers");
    for (const path of ["/", "/signin", "/dashboard/keys", "/dashboard/credits", "/dashboard/reconstructions", "/dashboard/reconstructions/new", "/dashboard/settings", "/assets/dashboard.js"]) {
      const res = await browser.fetch(path);
      expect(res.status, path).toBeLessThan(400);
      const csp = res.headers.get("Content-Security-Policy") ?? "";
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toMatch(/unsafe-inline|unsafe-eval|https:\/\/(?!cdn)/);
      expect(res.headers.get("X-Content-Type-Options"), path).toBe("nosniff");
      expect(res.headers.get("Referrer-Policy"), path).toBe("same-origin");
    }
    const api = await request("/v1/reconstructions");
    expect(api.status).toBe(401);
    expect(api.headers.get("Content-Security-Policy")).toBeNull();
    expect(api.headers.get("RateLimit-Policy")).not.toBeNull();
    const unknown = await request("/v1/nothing-here", { method: "POST" });
    expect(unknown.status).toBe(404);
  });
});

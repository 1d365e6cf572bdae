/** Dashboard accounts: sign-up, sign-in, sessions, CSRF, throttling, password change, deletion. */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inputPrefix, outputKey } from "../../shared/storage-keys.js";
import { BASE, accountStub, env, keyHeaders, request } from "./helpers.js";
import { createUpload, patch, storedKeys, uploadStub } from "./tus-support.js";
import { jpeg } from "./upload-fixtures.js";
import { freshEmail, TestBrowser } from "./dashboard-support.js";

describe("sign-up", () => {
  it("creates an account with the trial credits and a session, and refuses the same email in another case", async () => {
    const browser = new TestBrowser();
    const email = freshEmail("ana");
    const res = await browser.signUp(email);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/dashboard/reconstructions?welcome=1");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("session="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i); // BASE_URL is http://127.0.0.1 in the tests
    const credits = await (await browser.fetch("/dashboard/credits")).text();
    expect(credits).toMatch(/<strong data-balance>5<\/strong> credits \(free trial\)/);
    expect(credits).toContain("Free trial");
    const again = await new TestBrowser().signUp(email.toUpperCase());
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already exists");
  });

  it.each([["short", "short pw"], ["common", "password123"], ["monotone", "aaaaaaaaaaaa"]])("refuses a %s password and creates nothing", async (_label, password) => {
    const browser = new TestBrowser();
    const email = freshEmail("weak");
    const res = await browser.signUp(email, password);
    expect(res.status).toBe(400);
    expect(browser.cookies.has("session")).toBe(false);
    expect((await new TestBrowser().signIn(email, password)).status).toBe(401);
  });
});

describe("sign-up limit", () => {
  it("refuses more sign-ups from one address than the limit, creating nothing", async () => {
    const vars = { SIGNUP_LIMIT_PER_ADDRESS: "2" };
    for (let i = 0; i < 2; i++) expect((await new TestBrowser(vars, "192.0.2.200").signUp(freshEmail("farm"))).status).toBe(303);
    const email = freshEmail("farm");
    const blocked = await new TestBrowser(vars, "192.0.2.200").signUp(email);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await new TestBrowser().signIn(email)).status).toBe(401);
    expect((await new TestBrowser(vars, "192.0.2.201").signUp(email)).status).toBe(303);
  });
});

describe("sign-in", () => {
  it("gives the same answer for a wrong password and an unknown email", async () => {
    const email = freshEmail("bo");
    await new TestBrowser().signUp(email);
    const wrong = await new TestBrowser().signIn(email, "not the password!");
    const unknown = await new TestBrowser().signIn(freshEmail("nobody"), "not the password!");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (html: string) => /<p class="notice error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
    expect(message(await wrong.text())).toBe("Email or password is incorrect.");
    expect(message(await unknown.text())).toBe("Email or password is incorrect.");
    const right = await new TestBrowser().signIn(email.toUpperCase());
    expect(right.status).toBe(303);
  });

  it("is limited per account: after the limit even the right password is refused with 429", async () => {
    const vars = { SIGNIN_LIMIT_PER_ACCOUNT: "3", SIGNIN_LIMIT_PER_ADDRESS: "100" };
    const email = freshEmail("cy");
    await new TestBrowser(vars, "198.51.100.1").signUp(email);
    for (let i = 0; i < 3; i++) expect((await new TestBrowser(vars, `198.51.100.${10 + i}`).signIn(email, "wrong password!!")).status).toBe(401);
    const blocked = await new TestBrowser(vars, "198.51.100.50").signIn(email);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await blocked.text()).toContain("Too many sign-in attempts");
  });

  it("is limited per address across emails", async () => {
    const vars = { SIGNIN_LIMIT_PER_ACCOUNT: "100", SIGNIN_LIMIT_PER_ADDRESS: "3" };
    const browser = new TestBrowser(vars, "192.0.2.77");
    for (let i = 0; i < 3; i++) expect((await browser.signIn(freshEmail("guess"), "wrong password!!")).status).toBe(401);
    expect((await browser.signIn(freshEmail("guess"), "wrong password!!")).status).toBe(429);
  });
});

describe("sessions", () => {
  it("a session cookie is refused after sign-out", async () => {
    const browser = new TestBrowser();
    await browser.signUp(freshEmail("dee"));
    const cookie = `session=${browser.cookies.get("session")}`;
    expect((await browser.fetch("/dashboard/keys")).status).toBe(200);
    const out = await browser.post("/signout", {}, { from: "/dashboard/keys" });
    expect(out.status).toBe(303);
    const page = await request("/dashboard/keys", { headers: { Cookie: cookie }, redirect: "manual" });
    expect(page.status).toBe(303);
    expect(page.headers.get("Location")).toBe("/signin");
    const api = await request("/dashboard/api/reconstructions", { headers: { Cookie: cookie } });
    expect(api.status).toBe(401);
  });

  it("a forged or malformed session cookie is refused", async () => {
    const forged = await request("/dashboard/api/reconstructions", { headers: { Cookie: `session=${"a".repeat(64)}.${"B".repeat(32)}` } });
    expect(forged.status).toBe(401);
    const malformed = await request("/dashboard/api/reconstructions", { headers: { Cookie: "session=nonsense" } });
    expect(malformed.status).toBe(401);
  });
});

describe("CSRF", () => {
  it("refuses a state-changing request without the token, with another session's token, or from another origin", async () => {
    const browser = new TestBrowser();
    await browser.signUp(freshEmail("eve"));
    const other = new TestBrowser();
    await other.signUp(freshEmail("mallory"));
    const foreignToken = await other.csrf("/dashboard/keys");
    const attempts = [
      await browser.post("/dashboard/keys", { name: "k" }, { csrf: null }),
      await browser.post("/dashboard/keys", { name: "k" }, { csrf: foreignToken }),
      await browser.post("/dashboard/keys", { name: "k" }, { from: "/dashboard/keys", origin: "https://evil.example" }),
      await browser.fetch("/dashboard/keys", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site" }, body: `name=k&csrf=${await browser.csrf("/dashboard/keys")}` }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: "forbidden" } });
    }
    const keys = await (await browser.fetch("/dashboard/keys")).text();
    expect(keys).toContain("No keys yet.");
    expect((await browser.post("/dashboard/keys", { name: "k" }, { from: "/dashboard/keys" })).status).toBe(201);
  });

  it("guards sign-in and uploads too", async () => {
    const email = freshEmail("fay");
    await new TestBrowser().signUp(email);
    expect((await new TestBrowser().post("/signin", { email, password: "correct horse battery" }, { csrf: null })).status).toBe(403);
    const browser = new TestBrowser();
    await browser.signIn(email);
    const upload = await browser.fetch("/dashboard/api/reconstructions", { method: "POST", headers: { "Content-Type": "multipart/form-data; boundary=x", Origin: BASE }, body: "--x--" });
    expect(upload.status).toBe(403);
  });
});

describe("password change and account deletion", () => {
  it("a password change keeps this session, ends the others, and the new password signs in", async () => {
    const email = freshEmail("gil");
    const first = new TestBrowser();
    await first.signUp(email);
    const second = new TestBrowser();
    await second.signIn(email);
    const wrong = await first.post("/dashboard/settings/password", { current: "nope nope nope", password: "a new long secret" }, { from: "/dashboard/settings" });
    expect(wrong.status).toBe(401);
    const changed = await first.post("/dashboard/settings/password", { current: "correct horse battery", password: "a new long secret" }, { from: "/dashboard/settings" });
    expect(changed.status).toBe(200);
    expect((await first.fetch("/dashboard/keys")).status).toBe(200);
    expect((await second.fetch("/dashboard/keys")).status).toBe(303);
    expect((await new TestBrowser().signIn(email)).status).toBe(401);
    expect((await new TestBrowser().signIn(email, "a new long secret")).status).toBe(303);
  });

  it("deleting the account deletes its files, keys and sign-in", async () => {
    const email = freshEmail("hal");
    const browser = new TestBrowser();
    await browser.signUp(email);
    const created = await browser.post("/dashboard/keys", { name: "ci" }, { from: "/dashboard/keys" });
    const apiKey = /id="new-api-key" readonly value="([^"]+)"/.exec(await created.text())![1];
    const { id } = await browser.upload();
    await env.BUCKET.put(outputKey(id!, "glb"), new Uint8Array(10));
    expect((await env.BUCKET.list({ prefix: inputPrefix(id!) })).objects.length).toBe(2);
    const refused = await browser.post("/dashboard/settings/delete", { password: "wrong password!!" }, { from: "/dashboard/settings" });
    expect(refused.status).toBe(401);
    expect((await request("/v1/account", { headers: keyHeaders(apiKey) })).status).toBe(200);
    const deleted = await browser.post("/dashboard/settings/delete", { password: "correct horse battery" }, { from: "/dashboard/settings" });
    expect(deleted.status).toBe(303);
    expect((await env.BUCKET.list({ prefix: inputPrefix(id!) })).objects).toEqual([]);
    expect(await env.BUCKET.head(outputKey(id!, "glb"))).toBeNull();
    const api = await request("/v1/account", { headers: keyHeaders(apiKey) });
    expect(api.status).toBe(401);
    expect((await new TestBrowser().signIn(email)).status).toBe(401);
    expect((await new TestBrowser().signUp(email)).status).toBe(303); // the email is free again
  });

  it("deleting the account deletes its tus uploads (bytes and state), webhook endpoints and deliveries", async () => {
    const email = freshEmail("ida");
    const browser = new TestBrowser();
    await browser.signUp(email);
    const created = await browser.post("/dashboard/keys", { name: "ci" }, { from: "/dashboard/keys" });
    const apiKey = /id="new-api-key" readonly value="([^"]+)"/.exec(await created.text())![1];
    const { account_id: accountId } = (await (await request("/v1/account", { headers: keyHeaders(apiKey) })).json()) as { account_id: string };
    const photo = jpeg(640, 480, 3000);
    const partial = await createUpload(apiKey, photo.length);
    expect((await patch(apiKey, partial, 0, photo.slice(0, 1000))).status).toBe(204);
    const finished = await createUpload(apiKey, photo.length);
    expect((await patch(apiKey, finished, 0, photo)).status).toBe(204);
    expect((await storedKeys(partial)).length + (await storedKeys(finished)).length).toBeGreaterThan(0);
    const hook = await request("/v1/webhooks", { method: "POST", headers: keyHeaders(apiKey, { "Content-Type": "application/json" }), body: JSON.stringify({ url: "https://hooks.example.com/in" }) });
    expect(hook.status).toBe(201);
    const { id: endpointId } = (await hook.json()) as { id: string };
    const deleted = await browser.post("/dashboard/settings/delete", { password: "correct horse battery" }, { from: "/dashboard/settings" });
    expect(deleted.status).toBe(303);
    for (const path of [partial, finished]) {
      expect(await storedKeys(path)).toEqual([]);
      expect(await uploadStub(path).view(accountId)).toBeNull();
    }
    // Endpoints, deliveries and the upload registry lived in the AccountObject's storage: nothing is left there.
    const tables = await runInDurableObject(accountStub(accountId), (_instance, state) =>
      state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf%'").toArray().map((r) => r.name),
    );
    expect(tables).toEqual([]);
    expect(await accountStub(accountId).listWebhookDeliveries(endpointId)).toBeNull();
  });
});

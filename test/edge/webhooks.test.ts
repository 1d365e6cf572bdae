/**
 * /v1/webhooks (register, list, delete, deliveries), the production URL policy, the signature
 * against the Standard Webhooks test vector, and delivery bookkeeping (schedule, 410, disabling
 * after days of failure) re-read from the AccountObject.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { WebhookCreated, WebhookDelivery, WebhookEndpoint } from "../../shared/webhooks.js";
import { signWebhook } from "../../edge/webhooks/signing.js";
import { DELIVERY_RETENTION_MS, enqueueEvent, listDeliveries, listEndpoints, planAttempt, recordAttempt } from "../../edge/webhooks/store.js";
import { accountStub, createAccount, keyHeaders, request, requestWithVars, type TestAccount } from "./helpers.js";
import { createReconstruction, reconstructionStub } from "./reconstruction-support.js";

const json = (apiKey: string, body: unknown): RequestInit => ({ method: "POST", headers: keyHeaders(apiKey, { "Content-Type": "application/json" }), body: JSON.stringify(body) });

async function register(account: TestAccount, body: unknown = { url: "http://127.0.0.1:9/hook" }): Promise<WebhookCreated> {
  const res = await request("/v1/webhooks", json(account.apiKey, body));
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as WebhookCreated;
}

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(await res.json()).toMatchObject({ error: { code } });
}

describe("POST/GET/DELETE /v1/webhooks", () => {
  it("registers an endpoint with a whsec_ secret shown once, lists it without the secret, deletes it", async () => {
    const account = await createAccount(1);
    const created = await register(account, { url: "http://127.0.0.1:9/hook", events: ["reconstruction.completed"] });
    expect(created.id).toMatch(/^wh_[A-Za-z0-9_-]{24}$/);
    expect(created).toMatchObject({ url: "http://127.0.0.1:9/hook", events: ["reconstruction.completed"], disabled: false, disabled_reason: null });
    expect(created.secret).toMatch(/^whsec_/);
    expect(atob(created.secret.slice(6)).length).toBe(32);
    const all = await register(account);
    expect(all.events).toEqual(["reconstruction.processing", "reconstruction.completed", "reconstruction.failed"]);
    expect(all.secret).not.toBe(created.secret);

    const list = await request("/v1/webhooks", { headers: keyHeaders(account.apiKey) });
    expect(list.status).toBe(200);
    const { data } = (await list.json()) as { data: WebhookEndpoint[] };
    expect(data.map((e) => e.id)).toEqual([created.id, all.id]);
    expect(JSON.stringify(data)).not.toContain("whsec_");

    const del = await request(`/v1/webhooks/${created.id}`, { method: "DELETE", headers: keyHeaders(account.apiKey) });
    expect(del.status).toBe(204);
    expect((await accountStub(account.accountId).listWebhooks()).map((e) => e.id)).toEqual([all.id]);
    await expectError(await request(`/v1/webhooks/${created.id}`, { method: "DELETE", headers: keyHeaders(account.apiKey) }), 404, "not_found");
  });

  it("refuses malformed bodies with 400 invalid_request and stores nothing", async () => {
    const account = await createAccount(1);
    const bad: RequestInit[] = [
      { method: "POST", headers: keyHeaders(account.apiKey, { "Content-Type": "application/json" }), body: "{not json" },
      json(account.apiKey, {}),
      json(account.apiKey, { url: "ftp://example.com/x" }),
      json(account.apiKey, { url: "not a url" }),
      json(account.apiKey, { url: "http://127.0.0.1:9/", events: ["reconstruction.deleted"] }),
      json(account.apiKey, { url: "http://127.0.0.1:9/", events: [] }),
      json(account.apiKey, { url: "http://127.0.0.1:9/", secret: "mine" }),
      json(account.apiKey, { url: "http://user:pw@127.0.0.1:9/" }),
    ];
    for (const init of bad) await expectError(await request("/v1/webhooks", init), 400, "invalid_request");
    expect(await accountStub(account.accountId).listWebhooks()).toEqual([]);
  });

  it("in production refuses private, loopback and link-local hosts and plain http; accepts a public https URL", async () => {
    const account = await createAccount(1);
    const production = { BASE_URL: "https://api.example.com" };
    const refused = [
      "https://127.0.0.1/hook", "https://10.1.2.3/", "https://172.20.0.1/", "https://192.168.0.10/", "https://169.254.169.254/latest",
      "https://100.64.0.1/", "https://0.0.0.0/", "https://localhost/", "https://api.localhost/", "https://[::1]/", "https://[fe80::1]/",
      "https://[fd00::1]/", "https://[::ffff:127.0.0.1]/", "https://2130706433/", "https://0x7f.1/", "http://hooks.example.com/",
    ];
    for (const url of refused) {
      const res = await requestWithVars("/v1/webhooks", production, json(account.apiKey, { url }));
      expect(res.status, url).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "invalid_request" } });
    }
    const ok = await requestWithVars("/v1/webhooks", production, json(account.apiKey, { url: "https://hooks.example.com/in" }));
    expect(ok.status).toBe(201);
    // The explicit switch wins over the BASE_URL rule.
    const forced = await requestWithVars("/v1/webhooks", { WEBHOOK_ALLOW_PRIVATE_URLS: "false" }, json(account.apiKey, { url: "http://127.0.0.1:9/" }));
    expect(forced.status).toBe(400);
    expect((await accountStub(account.accountId).listWebhooks()).map((e) => e.url)).toEqual(["https://hooks.example.com/in"]);
  });

  it("answers 404 for another account's endpoint (delete, deliveries) and 401 without a key", async () => {
    const [owner, stranger] = [await createAccount(1), await createAccount(1)];
    const hook = await register(owner);
    await expectError(await request(`/v1/webhooks/${hook.id}`, { method: "DELETE", headers: keyHeaders(stranger.apiKey) }), 404, "not_found");
    await expectError(await request(`/v1/webhooks/${hook.id}/deliveries`, { headers: keyHeaders(stranger.apiKey) }), 404, "not_found");
    await expectError(await request(`/v1/webhooks/wh_nope/deliveries`, { headers: keyHeaders(owner.apiKey) }), 404, "not_found");
    expect(((await (await request("/v1/webhooks", { headers: keyHeaders(stranger.apiKey) })).json()) as { data: unknown[] }).data).toEqual([]);
    await expectError(await request("/v1/webhooks", { method: "POST", body: "{}" }), 401, "missing_api_key");
    await expectError(await request("/v1/webhooks"), 401, "missing_api_key");
    expect((await accountStub(owner.accountId).listWebhooks()).map((e) => e.id)).toEqual([hook.id]);
  });
});

describe("webhook events and deliveries", () => {
  it("signs as the Standard Webhooks test vector does", async () => {
    const signature = await signWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}');
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("records reconstruction.processing once per subscribed endpoint with the status record, and lists the attempts", async () => {
    const { account, id } = await createReconstruction();
    const hook = await register(account); // nothing listens on port 9: attempts fail
    const onlyDone = await register(account, { url: "http://127.0.0.1:9/done", events: ["reconstruction.completed"] });
    expect((await reconstructionStub(id).start(1)).accepted).toBe(true);
    expect((await reconstructionStub(id).start(1)).accepted).toBe(true); // a repeated start emits nothing new
    const stub = accountStub(account.accountId);
    const body = await runInDurableObject(stub, (_i, state) => {
      const rows = state.storage.sql.exec<{ body: string; endpoint_id: string }>(`SELECT body, endpoint_id FROM webhook_deliveries`).toArray();
      expect(rows.map((r) => r.endpoint_id)).toEqual([hook.id]);
      return rows[0]!.body;
    });
    expect(JSON.parse(body)).toMatchObject({ type: "reconstruction.processing", data: { id, status: "processing" } });
    // The queue consumer attempts it (connection refused) and schedules the next attempt.
    let deliveries: WebhookDelivery[] = [];
    for (let i = 0; i < 100 && !(deliveries[0]?.attempts.length); i++) {
      const res = await request(`/v1/webhooks/${hook.id}/deliveries`, { headers: keyHeaders(account.apiKey) });
      expect(res.status).toBe(200);
      deliveries = ((await res.json()) as { data: WebhookDelivery[] }).data;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ event_type: "reconstruction.processing", reconstruction_id: id, status: "pending" });
    expect(deliveries[0]!.id).toMatch(/^msg_/);
    expect(deliveries[0]!.attempts[0]).toMatchObject({ attempt: 1, response_status: null });
    expect(deliveries[0]!.next_attempt_at).not.toBeNull();
    const other = await request(`/v1/webhooks/${onlyDone.id}/deliveries`, { headers: keyHeaders(account.apiKey) });
    expect(((await other.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it("retries on the schedule, succeeds on a 2xx, and gives up after the last delay", async () => {
    const account = await createAccount(1);
    const hook = await register(account, { url: "http://127.0.0.1:9/x", events: ["reconstruction.failed"] });
    const schedule = { retrySeconds: [5, 300], disableAfterSeconds: 3 * 86400 };
    await runInDurableObject(accountStub(account.accountId), (_i, state) => {
      const sql = state.storage.sql;
      const t0 = Date.now();
      const [a, b] = ["msg_AAAAAAAAAAAAAAAAAAAAAAAA", "msg_BBBBBBBBBBBBBBBBBBBBBBBB"];
      expect(enqueueEvent(sql, { type: "reconstruction.failed", reconstructionId: "rec_AAAAAAAAAAAAAAAAAAAAAAAA", body: "{}" }, () => a, t0)).toEqual([a]);
      expect(enqueueEvent(sql, { type: "reconstruction.failed", reconstructionId: "rec_AAAAAAAAAAAAAAAAAAAAAAAA", body: "{}" }, () => "msg_dup_dup_dup_dup_dup_dup", t0)).toEqual([]);
      expect(planAttempt(sql, a, t0)).toMatchObject({ action: "send", id: a, attempt: 1 });
      expect(planAttempt(sql, a, t0)).toEqual({ action: "wait", seconds: 60 }); // a duplicate message while it runs
      expect(recordAttempt(sql, a, { responseStatus: 500, error: null, durationMs: 3 }, schedule, t0)).toEqual({ next: "retry", delaySeconds: 5 });
      expect(planAttempt(sql, a, t0 + 1000)).toEqual({ action: "wait", seconds: 4 });
      expect(recordAttempt(sql, a, { responseStatus: 204, error: null, durationMs: 3 }, schedule, t0 + 5000)).toEqual({ next: "done" });
      expect(planAttempt(sql, a, t0 + 6000)).toEqual({ action: "done" });
      enqueueEvent(sql, { type: "reconstruction.failed", reconstructionId: "rec_BBBBBBBBBBBBBBBBBBBBBBBB", body: "{}" }, () => b, t0);
      expect(recordAttempt(sql, b, { responseStatus: null, error: "timeout", durationMs: 15000 }, schedule, t0)).toEqual({ next: "retry", delaySeconds: 5 });
      expect(recordAttempt(sql, b, { responseStatus: 302, error: null, durationMs: 1 }, schedule, t0 + 5000)).toEqual({ next: "retry", delaySeconds: 300 });
      expect(recordAttempt(sql, b, { responseStatus: 503, error: null, durationMs: 1 }, schedule, t0 + 305_000)).toEqual({ next: "done" });
      const listed = listDeliveries(sql, hook.id)!;
      expect(Object.fromEntries(listed.map((d) => [d.id, [d.status, d.attempts.map((x) => x.response_status)]]))).toEqual({ [a]: ["succeeded", [500, 204]], [b]: ["failed", [null, 302, 503]] });
      expect(listEndpoints(sql)[0]).toMatchObject({ disabled: false });
      // Finished deliveries are kept 30 days, then pruned when a new event is recorded (its event key is new).
      enqueueEvent(sql, { type: "reconstruction.failed", reconstructionId: "rec_EEEEEEEEEEEEEEEEEEEEEEEE", body: "{}" }, () => "msg_EEEEEEEEEEEEEEEEEEEEEEEE", t0 + DELIVERY_RETENTION_MS + 10_000);
      expect(listDeliveries(sql, hook.id)!.map((d) => d.id)).toEqual(["msg_EEEEEEEEEEEEEEEEEEEEEEEE"]);
      expect(sql.exec(`SELECT COUNT(*) AS n FROM webhook_attempts`).one().n).toBe(0);
    });
  });

  it("disables an endpoint that failed for 3 days, or at once on 410 Gone, with a reason", async () => {
    const account = await createAccount(1);
    const slow = await register(account, { url: "http://127.0.0.1:9/slow" });
    const gone = await register(account, { url: "http://127.0.0.1:9/gone" });
    const schedule = { retrySeconds: Array(20).fill(86400) as number[], disableAfterSeconds: 3 * 86400 };
    await runInDurableObject(accountStub(account.accountId), (_i, state) => {
      const sql = state.storage.sql;
      const t0 = Date.now();
      let n = 0;
      const ids = enqueueEvent(sql, { type: "reconstruction.completed", reconstructionId: "rec_CCCCCCCCCCCCCCCCCCCCCCCC", body: "{}" }, () => `msg_CCCCCCCCCCCCCCCCCCCCCCC${n++}`, t0);
      const [toSlow, toGone] = ids;
      for (let day = 0; day < 3; day++) expect(recordAttempt(sql, toSlow!, { responseStatus: 500, error: null, durationMs: 1 }, schedule, t0 + day * 86400_000).next).toBe("retry");
      expect(recordAttempt(sql, toSlow!, { responseStatus: 500, error: null, durationMs: 1 }, schedule, t0 + 3 * 86400_000)).toEqual({ next: "done" });
      expect(recordAttempt(sql, toGone!, { responseStatus: 410, error: null, durationMs: 1 }, schedule, t0)).toEqual({ next: "done" });
      // A disabled endpoint gets no new deliveries.
      expect(enqueueEvent(sql, { type: "reconstruction.failed", reconstructionId: "rec_DDDDDDDDDDDDDDDDDDDDDDDD", body: "{}" }, () => "msg_DDDDDDDDDDDDDDDDDDDDDDDD", t0)).toEqual([]);
    });
    const { data } = (await (await request("/v1/webhooks", { headers: keyHeaders(account.apiKey) })).json()) as { data: WebhookEndpoint[] };
    const byId = Object.fromEntries(data.map((e) => [e.id, e]));
    expect(byId[slow.id]).toMatchObject({ disabled: true });
    expect(byId[slow.id]!.disabled_reason).toMatch(/failed from .* \(72 h without a success\)/);
    expect(byId[gone.id]).toMatchObject({ disabled: true });
    expect(byId[gone.id]!.disabled_reason).toMatch(/410 Gone/);
    const deliveries = (await (await request(`/v1/webhooks/${slow.id}/deliveries`, { headers: keyHeaders(account.apiKey) })).json()) as { data: WebhookDelivery[] };
    expect(deliveries.data[0]).toMatchObject({ status: "failed", next_attempt_at: null });
    expect(deliveries.data[0]!.attempts).toHaveLength(4);
  });
});

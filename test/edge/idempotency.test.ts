/**
 * Idempotency-Key on POST /v1/reconstruction: replay of the first 202 (no second credit, no
 * second job, even with a new multipart boundary), 422 for another request under the same key,
 * 409 while the first still uploads, release after a refusal, 24 h expiry, keys per account.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CreationRecord } from "../../shared/records.js";
import { claimKey, IDEMPOTENCY_TTL_MS } from "../../edge/idempotency/store.js";
import { parseIdempotencyKey } from "../../edge/idempotency/middleware.js";
import { accountStub, createAccount, env, keyHeaders, request } from "./helpers.js";
import { fileParts, jpeg, multipartBody, png, type FormPart } from "./upload-fixtures.js";

const photos = () => fileParts([{ fileName: "a.jpg", data: jpeg(800, 600, 300) }, { fileName: "b.png", data: png(64, 48) }]);

function create(apiKey: string, key: string | undefined, parts: FormPart[], boundary = `b-${crypto.randomUUID()}`) {
  const headers = keyHeaders(apiKey, { "Content-Type": `multipart/form-data; boundary=${boundary}`, ...(key === undefined ? {} : { "Idempotency-Key": key }) });
  return request("/v1/reconstruction", { method: "POST", headers, body: multipartBody(parts, boundary) });
}

async function debits(accountId: string) {
  return (await accountStub(accountId).ledger()).filter((row) => row.kind === "debit");
}

/** Ids that have objects under inputs/ for this account's debits (one per created job). */
async function storedJobIds(): Promise<Set<string>> {
  const listing = await env.BUCKET.list({ prefix: "inputs/", limit: 1000 });
  return new Set(listing.objects.map((o) => o.key.split("/")[1]!));
}

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(await res.json()).toMatchObject({ error: { code } });
}

describe("Idempotency-Key: replay", () => {
  it("answers a retry of the same form (new boundary) with the first 202: one debit, one job", async () => {
    const account = await createAccount(3);
    const key = crypto.randomUUID();
    const first = await create(account.apiKey, key, photos());
    expect(first.status).toBe(202);
    const firstBody = (await first.json()) as CreationRecord;
    const jobsAfterFirst = await storedJobIds();
    const retry = await create(account.apiKey, key, photos());
    expect(retry.status).toBe(202);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retry.headers.get("RateLimit-Policy")).toBeTruthy();
    expect(await retry.json()).toEqual(firstBody);
    expect((await debits(account.accountId)).map((d) => d.reconstruction_id)).toEqual([firstBody.id]);
    expect(await accountStub(account.accountId).balance()).toBe(2);
    expect(await storedJobIds()).toEqual(jobsAfterFirst);
    // The sf-string form of the same key (IETF draft syntax) is the same key.
    const quoted = await create(account.apiKey, `"${key}"`, photos());
    expect(((await quoted.json()) as CreationRecord).id).toBe(firstBody.id);
  });

  it("replays even when the balance is 0 now (the retry is not a second charge)", async () => {
    const account = await createAccount(1);
    const first = await create(account.apiKey, "order-42", photos());
    expect(first.status).toBe(202);
    const retry = await create(account.apiKey, "order-42", photos());
    expect(retry.status).toBe(202);
    expect(((await retry.json()) as CreationRecord).id).toBe(((await first.json()) as CreationRecord).id);
    await expectError(await create(account.apiKey, "order-43", photos()), 402, "insufficient_credits");
  });

  it("keeps keys per account: another account's identical key starts its own job", async () => {
    const [alice, bob] = [await createAccount(1), await createAccount(1)];
    const a = (await (await create(alice.apiKey, "shared-key", photos())).json()) as CreationRecord;
    const bRes = await create(bob.apiKey, "shared-key", photos());
    expect(bRes.status).toBe(202);
    const b = (await bRes.json()) as CreationRecord;
    expect(b.id).not.toBe(a.id);
    expect(bRes.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await debits(bob.accountId)).toHaveLength(1);
  });
});

describe("Idempotency-Key: errors", () => {
  it("refuses the same key with other bytes, another filename, or another field with 422, storing and charging nothing", async () => {
    const account = await createAccount(3);
    expect((await create(account.apiKey, "k1", photos())).status).toBe(202);
    const jobs = await storedJobIds();
    const variants: FormPart[][] = [
      fileParts([{ fileName: "a.jpg", data: jpeg(800, 600, 301) }, { fileName: "b.png", data: png(64, 48) }]),
      fileParts([{ fileName: "renamed.jpg", data: jpeg(800, 600, 300) }, { fileName: "b.png", data: png(64, 48) }]),
      [...photos(), { name: "quality", data: "high" }],
      photos().slice(0, 1),
    ];
    for (const parts of variants) await expectError(await create(account.apiKey, "k1", parts), 422, "idempotency_key_reused");
    expect(await debits(account.accountId)).toHaveLength(1);
    expect(await storedJobIds()).toEqual(jobs);
  });

  it("answers 409 idempotency_in_progress while the first request still uploads, then replays it", async () => {
    const account = await createAccount(3);
    const boundary = "slow-boundary";
    const body = multipartBody(photos(), boundary);
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let pulled!: () => void;
    const firstPull = new Promise<void>((resolve) => (pulled = resolve));
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      pull: () => pulled(),
    });
    const headers = keyHeaders(account.apiKey, { "Content-Type": `multipart/form-data; boundary=${boundary}`, "Idempotency-Key": "slow" });
    const first = request("/v1/reconstruction", { method: "POST", headers, body: stream, duplex: "half" } as RequestInit);
    await firstPull; // the key is claimed before any body byte is read
    controller.enqueue(body.subarray(0, 100));
    const during = await create(account.apiKey, "slow", photos());
    await expectError(during, 409, "idempotency_in_progress");
    controller.enqueue(body.subarray(100));
    controller.close();
    const firstRes = await first;
    expect(firstRes.status).toBe(202);
    const replay = await create(account.apiKey, "slow", photos());
    expect(((await replay.json()) as CreationRecord).id).toBe(((await firstRes.json()) as CreationRecord).id);
    expect(await debits(account.accountId)).toHaveLength(1);
  });

  it("releases the key when the first request is refused, so a corrected retry runs", async () => {
    const account = await createAccount(1);
    const bad = fileParts([{ fileName: "notes.txt", data: new TextEncoder().encode("hello, not an image") }]);
    await expectError(await create(account.apiKey, "fix-me", bad), 400, "invalid_file_format");
    const retry = await create(account.apiKey, "fix-me", photos());
    expect(retry.status).toBe(202);
    expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await debits(account.accountId)).toHaveLength(1);
    // A 402 releases it too.
    await expectError(await create(account.apiKey, "broke", photos()), 402, "insufficient_credits");
    await accountStub(account.accountId).adjustCredits(1, "test top-up");
    expect((await create(account.apiKey, "broke", photos())).status).toBe(202);
  });

  it("refuses a malformed key with 400 invalid_request before anything else happens", async () => {
    const account = await createAccount(1);
    for (const key of ["", " ", "x".repeat(256), '"unterminated', "tab\tkey"]) {
      await expectError(await create(account.apiKey, key, photos()), 400, "invalid_request");
    }
    expect(await debits(account.accountId)).toEqual([]);
    expect(parseIdempotencyKey('"a\\"b"')).toBe('a"b');
    expect(parseIdempotencyKey("8e03978e-40d5-43e8-bc93-6894a57f9324")).toBe("8e03978e-40d5-43e8-bc93-6894a57f9324");
  });

  it("still checks the key (401) before anything idempotent", async () => {
    const res = await request("/v1/reconstruction", { method: "POST", headers: { "Idempotency-Key": "k", "Content-Type": "multipart/form-data; boundary=x" }, body: "--x--\r\n" });
    await expectError(res, 401, "missing_api_key");
  });
});

describe("Idempotency-Key: expiry", () => {
  it("forgets a completed key after 24 h: the same key then starts a new job", async () => {
    const account = await createAccount(2);
    const first = (await (await create(account.apiKey, "daily", photos())).json()) as CreationRecord;
    const stub = accountStub(account.accountId);
    const later = Date.now() + IDEMPOTENCY_TTL_MS + 1000;
    const claim = await runInDurableObject(stub, (_instance, state) => claimKey(state.storage.sql, "daily", later));
    expect(claim).toEqual({ kind: "new" });
    // That claim is now in progress (as a real request would hold it); a retry is told so.
    await expectError(await create(account.apiKey, "daily", photos()), 409, "idempotency_in_progress");
    expect(first.id).toMatch(/^rec_/);
  });
});

describe("Idempotency-Key: bodies that are not multipart", () => {
  it("fingerprints a small JSON body (replay / 422 follow the handler's answer) and refuses a huge one without buffering it", async () => {
    const account = await createAccount(1);
    const json = (body: string, key: string) =>
      request("/v1/reconstruction", { method: "POST", headers: keyHeaders(account.apiKey, { "Content-Type": "application/json", "Idempotency-Key": key }), body });
    // This branch has no JSON creation: the handler refuses it, so the key is released each time.
    await expectError(await json('{"uploads":["up_1"]}', "j1"), 400, "invalid_request");
    await expectError(await json('{"uploads":["up_1"]}', "j1"), 400, "invalid_request");
    // 2 MiB without Content-Length (a stream): refused with 413 once the first MiB is passed.
    const chunk = new Uint8Array(64 * 1024).fill(32);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 32) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const first = await create(account.apiKey, "j2", photos());
    expect(first.status).toBe(202);
    const huge = await request("/v1/reconstruction", { method: "POST", headers: keyHeaders(account.apiKey, { "Content-Type": "application/json", "Idempotency-Key": "j2" }), body: stream, duplex: "half" } as RequestInit);
    await expectError(huge, 413, "payload_too_large");
    expect(sent).toBeLessThan(32);
    expect(await debits(account.accountId)).toHaveLength(1);
  });
});

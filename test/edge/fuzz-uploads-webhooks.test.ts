/**
 * Fuzz of the tus uploads, the JSON creation from uploads and the webhook endpoints: the same
 * invariants as fuzz-create.test.ts — every answer a 4xx with the error envelope, no credit
 * taken, nothing left in R2 once the test's own uploads are terminated.
 *
 * The runner also checks that each code is in shared/errors.ts's ERROR_CODES with its status,
 * so a new code of these endpoints must be listed there.
 */
import { describe, expect, it } from "vitest";
import { accountStub, createAccount, keysAddedSince, request, requestWithVars, storedKeys } from "./helpers.js";
import { FUZZ_LIMITS } from "./fuzz/create-cases.js";
import { runFuzz } from "./fuzz/runner.js";
import { UPLOAD_AND_WEBHOOK_GENERATORS } from "./fuzz/uploads-webhooks-cases.js";

const SEED = Number(globalThis.process?.env?.FUZZ_SEED ?? 20261125);
const CASES = 1000;
const VARS = { ...FUZZ_LIMITS, RATE_LIMIT_REQUESTS: "1000000", RATE_LIMIT_CREATES: "1000000" };

/** Starts `count` tus uploads of 1000 bytes and leaves them unfinished, for PATCH cases. */
async function startUploads(apiKey: string, count: number): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await request("/v1/uploads", { method: "POST", headers: { Authorization: `Bearer ${apiKey}`, "Tus-Resumable": "1.0.0", "Upload-Length": "1000" } });
    expect(res.status).toBe(201);
    paths.push(new URL(res.headers.get("Location")!, "http://example.com").pathname);
  }
  return paths;
}

describe("fuzz: tus uploads, creation from uploads, webhooks", () => {
  it(`answers ${CASES} malformed tus, JSON-create and webhook requests with 4xx envelopes (seed ${SEED})`, async () => {
    const account = await createAccount(5);
    const storedBefore = await storedKeys();
    const uploadPaths = await startUploads(account.apiKey, 3);
    const run = await runFuzz({
      seed: SEED,
      count: CASES,
      budgetMs: 150_000,
      generators: UPLOAD_AND_WEBHOOK_GENERATORS,
      ctx: { apiKey: account.apiKey, uploadPaths },
      send: (c) => requestWithVars(c.path, VARS, c.init),
    });
    console.log(`fuzz-uploads-webhooks seed ${SEED}: ${run.sent} requests`, run.tally);
    expect(run.failures.slice(0, 10), `seed ${SEED}`).toEqual([]);
    expect(run.sent).toBeGreaterThanOrEqual(1000);
    // The test's own uploads: their offsets never moved, and terminating them leaves R2 empty.
    // With the fuzz's raised limits: the account has used far more than the default request budget.
    for (const path of uploadPaths) {
      const head = await requestWithVars(path, VARS, { method: "HEAD", headers: { Authorization: `Bearer ${account.apiKey}`, "Tus-Resumable": "1.0.0" } });
      expect(head.status).toBe(200);
      expect(head.headers.get("Upload-Offset")).toBe("0");
      expect((await requestWithVars(path, VARS, { method: "DELETE", headers: { Authorization: `Bearer ${account.apiKey}`, "Tus-Resumable": "1.0.0" } })).status).toBe(204);
    }
    expect(await keysAddedSince(storedBefore)).toEqual([]);
    expect((await accountStub(account.accountId).ledger()).filter((row) => row.kind === "debit")).toEqual([]);
    expect(await accountStub(account.accountId).balance()).toBe(5);
  }, 240_000);
});

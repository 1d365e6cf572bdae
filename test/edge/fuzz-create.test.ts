/**
 * Fuzz: at least 1,000 generated malformed creation requests (fuzz/create-cases.ts) through the
 * real Worker with small size limits. Every answer must be a 4xx with the error envelope;
 * afterwards the account has no debit and its balance is unchanged, and R2 holds no input.
 * Seeded: FUZZ_SEED reproduces a run (the seed is in the failure message).
 */
import { describe, expect, it } from "vitest";
import { accountStub, createAccount, keysAddedSince, requestWithVars, storedKeys } from "./helpers.js";
import { CREATE_GENERATORS, FUZZ_LIMITS } from "./fuzz/create-cases.js";
import { runFuzz } from "./fuzz/runner.js";

const SEED = Number(globalThis.process?.env?.FUZZ_SEED ?? 20261125);
const CASES = 1050;
const VARS = { ...FUZZ_LIMITS, RATE_LIMIT_REQUESTS: "1000000", RATE_LIMIT_CREATES: "1000000" };

describe("fuzz: POST /v1/reconstruction", () => {
  it(`answers ${CASES} malformed requests with 4xx envelopes, takes no credit, stores nothing (seed ${SEED})`, async () => {
    const account = await createAccount(5);
    const before = await storedKeys("inputs/");
    const run = await runFuzz({
      seed: SEED,
      count: CASES,
      budgetMs: 150_000,
      generators: CREATE_GENERATORS,
      ctx: { apiKey: account.apiKey },
      send: (c) => requestWithVars(c.path, VARS, c.init),
      checkpoint: {
        every: 100,
        run: async () => {
          const left = await keysAddedSince(before, "inputs/");
          return left.length ? `objects left in R2: ${left.slice(0, 5).join(", ")}` : undefined;
        },
      },
    });
    console.log(`fuzz seed ${SEED}: ${run.sent} requests`, run.tally);
    expect(run.failures.slice(0, 10), `seed ${SEED}`).toEqual([]);
    expect(run.sent).toBeGreaterThanOrEqual(1000);
    expect(await keysAddedSince(before, "inputs/")).toEqual([]);
    expect((await accountStub(account.accountId).ledger()).filter((row) => row.kind === "debit")).toEqual([]);
    expect(await accountStub(account.accountId).balance()).toBe(5);
  }, 240_000);
});

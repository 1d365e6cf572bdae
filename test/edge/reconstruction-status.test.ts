import { describe, expect, it } from "vitest";
import { StatusRecord } from "../../shared/records.js";
import { createAccount, keyHeaders, request, requestWithVars } from "./helpers.js";
import { createReconstruction, reconstructionStub } from "./reconstruction-support.js";

const get = (path: string, apiKey?: string) => request(path, { headers: apiKey ? keyHeaders(apiKey) : {} });

describe("GET /v1/reconstruction/{id}/status", () => {
  it("answers the owner with a schema-valid status record that follows the state machine", async () => {
    const { account, id } = await createReconstruction();
    const pending = await get(`/v1/reconstruction/${id}/status`, account.apiKey);
    expect(pending.status).toBe(200);
    expect(pending.headers.get("RateLimit-Policy")).not.toBeNull();
    const body = StatusRecord.parse(await pending.json());
    expect(body).toMatchObject({ id, status: "pending", progress: 0, started_at: null, completed_at: null, stage: null, files_processed: 0, total_files: 2, credit_refunded: false });

    await reconstructionStub(id).progress({ attempt: 1, stage: "sfm", progress: 55, files_processed: 2 });
    const processing = (await (await get(`/v1/reconstruction/${id}/status`, account.apiKey)).json()) as StatusRecord;
    expect(processing).toMatchObject({ status: "processing", stage: "sfm", progress: 55, files_processed: 2 });
  });

  it("answers 404 identically for another account's id, an unknown id and a malformed id", async () => {
    const { id } = await createReconstruction();
    const stranger = await createAccount(1);
    const foreign = await get(`/v1/reconstruction/${id}/status`, stranger.apiKey);
    const unknown = await get(`/v1/reconstruction/rec_AAAAAAAAAAAAAAAAAAAAAAAA/status`, stranger.apiKey);
    const malformed = await get(`/v1/reconstruction/not-an-id/status`, stranger.apiKey);
    const bodies = await Promise.all([foreign, unknown, malformed].map((r) => r.text()));
    expect([foreign.status, unknown.status, malformed.status]).toEqual([404, 404, 404]);
    expect(JSON.parse(bodies[0]!)).toMatchObject({ error: { code: "not_found" } });
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies[2]).toBe(bodies[0]);
  });

  it("answers 401 without a key and with a wrong key", async () => {
    const { id } = await createReconstruction();
    const missing = await get(`/v1/reconstruction/${id}/status`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: "missing_api_key" } });
    const wrong = await get(`/v1/reconstruction/${id}/status`, "pk_live_wrong");
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: "invalid_api_key" } });
  });

  it("answers 429 with Retry-After once the request budget is spent", async () => {
    const { account, id } = await createReconstruction();
    const vars = { RATE_LIMIT_REQUESTS: "2" };
    // The creation above already counted against this account's budget of the default size;
    // with a budget of 2, at most one more read passes.
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      last = await requestWithVars(`/v1/reconstruction/${id}/status`, vars, { headers: keyHeaders(account.apiKey) });
      statuses.push(last.status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(last!.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect(await last!.json()).toMatchObject({ error: { code: "rate_limited" } });
  });
});

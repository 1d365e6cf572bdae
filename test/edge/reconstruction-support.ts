/** @module Test support: a reconstruction created through the real route, then driven through its RPC. */
import { expect } from "vitest";
import type { CreationRecord } from "../../shared/records.js";
import type { Format } from "../../shared/formats.js";
import { outputKey } from "../../shared/storage-keys.js";
import { createAccount, env, request, type TestAccount } from "./helpers.js";
import { fileParts, filler, jpeg, multipartInit } from "./upload-fixtures.js";

export interface Created {
  account: TestAccount;
  id: string;
}

/** POSTs two small JPEGs for a fresh account (or the given one) and returns the new id. */
export async function createReconstruction(account?: TestAccount): Promise<Created> {
  const owner = account ?? (await createAccount(3));
  const files = [
    { fileName: "front.jpg", data: jpeg(1600, 1200, 500) },
    { fileName: "side.jpg", data: jpeg(1600, 1200, 600) },
  ];
  const res = await request("/v1/reconstruction", multipartInit(owner.apiKey, fileParts(files)));
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as CreationRecord;
  return { account: owner, id };
}

export function reconstructionStub(id: string) {
  return env.RECONSTRUCTIONS.get(env.RECONSTRUCTIONS.idFromName(id));
}

/** Writes model files into R2 as compute would and reports completion (attempt 1). */
export async function completeWithOutputs(id: string, sizes: Partial<Record<Format, number>>): Promise<Map<Format, Uint8Array>> {
  const stub = reconstructionStub(id);
  expect((await stub.start(1)).accepted).toBe(true);
  const written = new Map<Format, Uint8Array>();
  for (const [format, size] of Object.entries(sizes) as [Format, number][]) {
    const data = filler(size, size);
    await env.BUCKET.put(outputKey(id, format), data);
    written.set(format, data);
  }
  const outcome = await stub.complete({ attempt: 1, formats: [...written].map(([format, data]) => ({ format, file_size: data.length })) });
  expect(outcome).toMatchObject({ accepted: true, status: "completed" });
  return written;
}

/** @module Serves file: URLs to `fetch` for one call: loaders.gl's LAS 1.4 reader loads its wasm that way, and Node's fetch refuses file: URLs. */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export async function withFileFetch<T>(body: () => Promise<T>): Promise<T> {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = input instanceof URL ? input : new URL(typeof input === "string" ? input : input.url);
    if (url.protocol !== "file:") return realFetch(input, init);
    return new Response(await readFile(fileURLToPath(url)), { headers: { "content-type": "application/wasm" } });
  }) as typeof fetch;
  try {
    return await body();
  } finally {
    globalThis.fetch = realFetch;
  }
}

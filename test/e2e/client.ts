/** @module A small API client for end-to-end tests: exactly what a client of docs/API.md does. */
import { readFile } from "node:fs/promises";
import path from "node:path";

export interface Api {
  baseUrl: string;
  apiKey: string;
  accountId: string;
}

export async function createAccount(baseUrl: string, adminToken: string, credits?: number): Promise<Api> {
  const res = await fetch(`${baseUrl}/v1/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "e2e@example.com", ...(credits === undefined ? {} : { credits }) }),
  });
  if (res.status !== 201) throw new Error(`create account: HTTP ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { account_id: string; api_key: string };
  return { baseUrl, apiKey: body.api_key, accountId: body.account_id };
}

export async function upload(api: Api, files: string[], fields: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  for (const file of files) form.append("files", new Blob([await readFile(file)]), path.basename(file));
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return fetch(`${api.baseUrl}/v1/reconstruction`, { method: "POST", headers: { authorization: `Bearer ${api.apiKey}` }, body: form });
}

export async function getJson<T>(api: Api, pathname: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${api.baseUrl}${pathname}`, { headers: { authorization: `Bearer ${api.apiKey}` } });
  return { status: res.status, body: (await res.json()) as T };
}

export interface StatusBody {
  status: string;
  progress: number;
  stage: string | null;
  files_processed: number;
  total_files: number;
  formats?: Array<{ format: string; file_size: number }>;
  error?: { code: string; message: string; suggestion: string };
  credit_refunded: boolean;
}

/** Polls the status until it is terminal; returns every status seen (to check `progress`). */
export async function pollUntilDone(api: Api, id: string, timeoutMs: number, intervalMs = 1000): Promise<StatusBody[]> {
  const seen: StatusBody[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { status, body } = await getJson<StatusBody>(api, `/v1/reconstruction/${id}/status`);
    if (status !== 200) throw new Error(`status: HTTP ${status} ${JSON.stringify(body)}`);
    seen.push(body);
    if (body.status === "completed" || body.status === "failed") return seen;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`reconstruction ${id} did not finish in ${timeoutMs} ms; last: ${JSON.stringify(seen.at(-1))}`);
}

/** @module Test support: a minimal browser for the dashboard (cookie jar, forms with CSRF, same-origin headers). */
import { BOUNDARY, fileParts, jpeg, multipartBody } from "./upload-fixtures.js";
import { BASE, env, request, requestWithVars } from "./helpers.js";
import type { Env } from "../../edge/env.js";

export class TestBrowser {
  readonly cookies = new Map<string, string>();
  /** Each browser has its own client address unless given one (sign-ups are limited per address). */
  constructor(private readonly vars: Partial<Record<keyof Env, string>> | null = null, readonly address = `2001:db8::${crypto.randomUUID().slice(0, 4)}`) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0 && !headers.has("Cookie")) headers.set("Cookie", this.cookieHeader());
    headers.set("CF-Connecting-IP", this.address);
    const res = this.vars ? await requestWithVars(path, this.vars, { ...init, headers, redirect: "manual" }) : await request(path, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, value] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
      if (attributes.some((a) => /max-age=0/i.test(a.trim())) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** The CSRF token of the forms on `path`'s page. */
  async csrf(path = "/signin"): Promise<string> {
    const html = await (await this.fetch(path)).text();
    const match = /name="csrf" value="([^"]+)"/.exec(html);
    if (!match) throw new Error(`no csrf token on ${path}`);
    return match[1];
  }

  /** Posts a form as the page would: same Origin, the page's CSRF token unless given. */
  async post(path: string, fields: Record<string, string>, options: { csrf?: string | null; origin?: string | null; from?: string } = {}): Promise<Response> {
    const csrf = options.csrf === undefined ? await this.csrf(options.from ?? "/signin") : options.csrf;
    const body = new URLSearchParams({ ...fields, ...(csrf === null ? {} : { csrf }) });
    const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
    const origin = options.origin === undefined ? BASE : options.origin;
    if (origin !== null) headers.Origin = origin;
    return this.fetch(path, { method: "POST", headers, body });
  }

  async signUp(email: string, password = "correct horse battery"): Promise<Response> {
    return this.post("/signup", { email, password }, { from: "/signup" });
  }

  async signIn(email: string, password = "correct horse battery"): Promise<Response> {
    return this.post("/signin", { email, password });
  }

  /** Uploads two small JPEGs through the dashboard's endpoint; returns the new id. */
  async upload(): Promise<{ status: number; id?: string }> {
    const csrf = await this.csrf("/dashboard/reconstructions/new");
    const parts = fileParts([{ fileName: "a.jpg", data: jpeg(1600, 1200, 500) }, { fileName: "b.jpg", data: jpeg(1600, 1200, 600) }]);
    const res = await this.fetch("/dashboard/api/reconstructions", {
      method: "POST",
      headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, "X-CSRF-Token": csrf, Origin: BASE },
      body: multipartBody(parts),
    });
    const body = (await res.json()) as { id?: string };
    return { status: res.status, id: body.id };
  }
}

/** A fresh, unique email for a test. */
export function freshEmail(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

export { env };

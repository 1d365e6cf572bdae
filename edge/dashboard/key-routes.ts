/**
 * @module Dashboard keys: create a named key (shown once), list, revoke. The same AccountObject
 * and the same key format and hashing as the operator API (edge/access/keys.ts): a key made here is
 * the same kind of key.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { z } from "zod";
import { issueApiKey, isKeyId } from "../access/keys.js";
import { csrfField, notice, page } from "./layout.js";
import type { DashboardContext, DashboardEnv } from "./session.js";

export const keyRoutes = new Hono<DashboardEnv>();

const KeyName = z.string().trim().min(1).max(100);

function account(c: DashboardContext) {
  return c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(c.get("user")!.accountId));
}

const when = (iso: string | null) => (iso ? html`<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")} UTC</time>` : "never");

async function keysPage(c: DashboardContext, extra: { created?: { name: string; apiKey: string }; error?: string; info?: string } = {}) {
  const keys = await account(c).keys();
  const csrf = c.get("csrf");
  const shown = extra.created
    ? html`<section class="card" aria-labelledby="new-key"><h2 id="new-key">Your new key “${extra.created.name}”</h2>
        <p>Copy it now: it is shown only once.</p>
        <div class="copy"><label for="new-api-key" class="sr-only">API key</label><input id="new-api-key" readonly value="${extra.created.apiKey}" data-copy-source>
        <button type="button" data-copy-target="new-api-key" hidden>Copy</button></div></section>`
    : "";
  const rows = keys.map(
    (k) => html`<tr>
      <td data-label="Name">${k.name ?? "(operator key)"}</td><td data-label="Prefix"><code>${k.prefix ?? k.key_id}</code></td><td data-label="Created">${when(k.created_at)}</td><td data-label="Last used">${when(k.last_used_at)}</td>
      <td data-label="Status">${k.revoked_at ? html`revoked ${when(k.revoked_at)}` : html`<form method="post" action="/dashboard/keys/${k.key_id}/revoke">${csrfField(csrf)}<button type="submit" class="danger" aria-label="Revoke key ${k.name ?? k.key_id}">Revoke</button></form>`}</td>
    </tr>`,
  );
  return page(
    { title: "API keys", user: c.get("user"), csrf, current: "keys", scripts: ["dashboard.js"] },
    html`${notice("error", extra.error)}${notice("info", extra.info)}${shown}
    <form method="post" action="/dashboard/keys" class="row">
      ${csrfField(csrf)}
      <label for="key-name">Key name</label>
      <input id="key-name" name="name" required maxlength="100" placeholder="e.g. laptop script">
      <button type="submit">Create key</button>
    </form>
    <p>Send a key as <code>Authorization: Bearer &lt;key&gt;</code> to the API (<a href="/docs">docs</a>).</p>
    <div class="table-wrap"><table class="stack-on-phone"><caption>Your keys</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th></tr></thead>
      <tbody>${rows.length ? rows : html`<tr><td colspan="5">No keys yet.</td></tr>`}</tbody></table></div>`,
  );
}

keyRoutes.get("/", async (c) => c.html(await keysPage(c)));

keyRoutes.post("/", async function createKey(c) {
  const name = KeyName.safeParse((await c.req.parseBody())["name"]);
  if (!name.success) return c.html(await keysPage(c, { error: "Give the key a name of 1 to 100 characters." }), 400);
  const accountId = c.get("user")!.accountId;
  const issued = await issueApiKey(accountId);
  // The prefix shown in lists identifies the key without being usable: the public ids only.
  const prefix = issued.apiKey.slice(0, "pk_live_".length + 6) + "…" + issued.keyId.slice(-4);
  await account(c).addNamedKey(issued.keyId, issued.hash, name.data, prefix);
  return c.html(await keysPage(c, { created: { name: name.data, apiKey: issued.apiKey } }), 201);
});

keyRoutes.post("/:keyId/revoke", async function revokeKey(c) {
  const keyId = c.req.param("keyId");
  // revokeKey is per account: another account's key id is simply not found here.
  const found = isKeyId(keyId) && (await account(c).revokeKey(keyId));
  if (!found) return c.html(await keysPage(c, { error: "No such key." }), 404);
  return c.html(await keysPage(c, { info: "The key is revoked; the API refuses it from now on." }));
});

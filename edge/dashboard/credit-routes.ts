/**
 * @module Dashboard credits: the balance, the ledger (every grant, debit and refund with its
 * reconstruction or reason), and how to get more. Payment is out of scope: `topUpHint` is the
 * seam where a payment provider's checkout link would go; today the operator API tops up.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { page } from "./layout.js";
import type { DashboardEnv } from "./session.js";

export const creditRoutes = new Hono<DashboardEnv>();

const KIND_LABEL: Record<string, string> = { trial: "Free trial", debit: "Reconstruction", refund: "Refund", topup: "Top-up", adjustment: "Adjustment" };
const topUpHint = (accountId: string) =>
  html`<p>To get more credits, ask the operator for a top-up of account <code>${accountId}</code> (<code>POST /v1/admin/accounts/{account_id}/credits</code>). Online payment is not offered yet.</p>`;

creditRoutes.get("/", async function creditsPage(c) {
  const user = c.get("user")!;
  const account = c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(user.accountId));
  const [summary, ledger] = await Promise.all([account.summary(), account.ledger()]);
  const rows = [...ledger].reverse().map(
    (row) => html`<tr><td data-label="When"><time datetime="${row.created_at}">${row.created_at.slice(0, 16).replace("T", " ")} UTC</time></td>
      <td data-label="Kind">${KIND_LABEL[row.kind] ?? row.kind}</td><td data-label="Credits" class="num">${row.amount > 0 ? `+${row.amount}` : String(row.amount)}</td>
      <td data-label="For">${row.reconstruction_id ? html`<a href="/dashboard/reconstructions/${row.reconstruction_id}">${row.reconstruction_id}</a>` : ""}${row.reason && row.reconstruction_id ? " · " : ""}${row.reason ?? ""}</td></tr>`,
  );
  return c.html(
    page(
      { title: "Credits", user, csrf: c.get("csrf"), current: "credits" },
      html`<p class="balance">Balance: <strong data-balance>${summary?.balance ?? 0}</strong> credits${summary?.trial ? " (free trial)" : ""}</p>
      <p>Each reconstruction costs 1 credit; a failed one is refunded.</p>
      ${topUpHint(user.accountId)}
      <div class="table-wrap"><table class="stack-on-phone"><caption>Ledger, newest first</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col" class="num">Credits</th><th scope="col">Reconstruction or reason</th></tr></thead>
        <tbody>${rows}</tbody></table></div>`,
    ),
  );
});

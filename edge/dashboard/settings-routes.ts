/**
 * @module Dashboard settings: change the password (other sessions end; this one stays), delete
 * the account (asks for the password again; deletes the files, keys, ledger and sessions).
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { deleteCookie } from "hono/cookie";
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem, verifyPassword } from "./passwords.js";
import { csrfField, notice, page } from "./layout.js";
import { SESSION_COOKIE, sessionParts, type DashboardContext, type DashboardEnv } from "./session.js";
import { userStubByName } from "./users.js";
import { deleteAccountEverywhere } from "./account-deletion.js";

export const settingsRoutes = new Hono<DashboardEnv>();

function settingsPage(c: DashboardContext, message?: { kind: "error" | "info"; text: string }) {
  const csrf = c.get("csrf");
  return page(
    { title: "Settings", user: c.get("user"), csrf, current: "settings" },
    html`${notice(message?.kind ?? "info", message?.text)}
    <section aria-labelledby="pw"><h2 id="pw">Change password</h2>
    <form method="post" action="/dashboard/settings/password" class="stack">${csrfField(csrf)}
      <label for="current-password">Current password</label><input id="current-password" name="current" type="password" autocomplete="current-password" required>
      <label for="new-password">New password (at least ${MIN_PASSWORD_LENGTH} characters)</label><input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}">
      <button type="submit">Change password</button>
    </form></section>
    <section aria-labelledby="del"><h2 id="del">Delete account</h2>
    <p>Deletes every reconstruction's files, your keys, your credits and your sign-in. This cannot be undone.</p>
    <form method="post" action="/dashboard/settings/delete" class="stack">${csrfField(csrf)}
      <label for="delete-password">Password</label><input id="delete-password" name="password" type="password" autocomplete="current-password" required>
      <button type="submit" class="danger">Delete my account</button>
    </form></section>`,
  );
}

/** The signed-in user's object and session, and whether `password` is theirs. */
async function checkPassword(c: DashboardContext, password: unknown) {
  const session = (await sessionParts(c))!;
  const user = userStubByName(c.env, session.userName);
  const credentials = await user.credentials();
  const ok = typeof password === "string" && (await verifyPassword(password, credentials?.passwordHash ?? null));
  return { ok, user, session };
}

settingsRoutes.get("/", (c) => c.html(settingsPage(c)));

settingsRoutes.post("/password", async function changePassword(c) {
  const form = await c.req.parseBody();
  const { ok, user, session } = await checkPassword(c, form["current"]);
  if (!ok) return c.html(settingsPage(c, { kind: "error", text: "The current password is incorrect." }), 401);
  const next = typeof form["password"] === "string" ? form["password"] : "";
  const problem = passwordProblem(next);
  if (problem) return c.html(settingsPage(c, { kind: "error", text: problem }), 400);
  await user.setPassword(await hashPassword(next));
  await user.endOtherSessions(session.tokenHash);
  return c.html(settingsPage(c, { kind: "info", text: "Password changed. Other sessions were signed out." }));
});

settingsRoutes.post("/delete", async function deleteAccount(c) {
  const { ok, session } = await checkPassword(c, (await c.req.parseBody())["password"]);
  if (!ok) return c.html(settingsPage(c, { kind: "error", text: "The password is incorrect; nothing was deleted." }), 401);
  await deleteAccountEverywhere(c.env, c.get("user")!.accountId, session.userName);
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
  return c.redirect("/signup?deleted=1", 303);
});

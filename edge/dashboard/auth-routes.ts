/**
 * @module Sign-up, sign-in, sign-out (dashboard; HTML forms, session cookie).
 *
 * Sign-up creates the account through the same AccountObject as the operator API, with the
 * free-trial grant and no key (the user names keys on the keys page); no card, no email sent
 * (a verification link would be sent here: the UserObject keeps `email_verified_at` for it).
 * Sign-in gives one answer for an unknown email and a wrong password, takes the same time for
 * both (edge/dashboard/passwords.ts), and is throttled per address and per email.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { z } from "zod";
import { configOf } from "../env.js";
import { newAccountId } from "../access/keys.js";
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem, verifyPassword } from "./passwords.js";
import { csrfField, notice, page } from "./layout.js";
import { endSession, startSession, type DashboardContext, type DashboardEnv } from "./session.js";
import { signInAllowed, signUpAllowed } from "./signin-limit.js";
import { normaliseEmail, userNameOf, userStubByName } from "./users.js";
import { duration } from "./layout.js";

export const authRoutes = new Hono<DashboardEnv>();

const Credentials = z.object({ email: z.string().trim().max(320), password: z.string().max(1024) });
const WRONG_CREDENTIALS = "Email or password is incorrect.";

function credentialsForm(c: DashboardContext, kind: "signup" | "signin", email = "", message?: string): ReturnType<typeof page> {
  const signup = kind === "signup";
  return page(
    { title: signup ? "Create your account" : "Sign in", csrf: c.get("csrf") },
    html`${notice("error", message)}
    ${signup ? html`<p>Free trial: ${configOf(c.env).TRIAL_CREDITS} credits, one per reconstruction. No card needed.</p>` : ""}
    <form method="post" action="/${kind}" class="stack">
      ${csrfField(c.get("csrf"))}
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="email" required value="${email}">
      <label for="password">Password${signup ? ` (at least ${MIN_PASSWORD_LENGTH} characters)` : ""}</label>
      <input id="password" name="password" type="password" autocomplete="${signup ? "new-password" : "current-password"}" required ${signup ? html`minlength="${MIN_PASSWORD_LENGTH}"` : ""}>
      <button type="submit">${signup ? "Create account" : "Sign in"}</button>
    </form>
    <p>${signup ? html`Have an account? <a href="/signin">Sign in</a>` : html`New here? <a href="/signup">Create an account</a>`}</p>`,
  );
}

async function formCredentials(c: DashboardContext): Promise<z.infer<typeof Credentials> | null> {
  const parsed = Credentials.safeParse(await c.req.parseBody());
  return parsed.success ? parsed.data : null;
}

authRoutes.get("/", (c) => (c.get("user") ? c.redirect("/dashboard/reconstructions", 303) : c.html(credentialsForm(c, "signup"))));
authRoutes.get("/signup", (c) => c.html(credentialsForm(c, "signup")));
authRoutes.get("/signin", (c) => c.html(credentialsForm(c, "signin")));

authRoutes.post("/signup", async function signUp(c) {
  const limit = await signUpAllowed(c);
  if (!limit.allowed) {
    c.header("Retry-After", String(limit.retryAfterSeconds));
    return c.html(credentialsForm(c, "signup", "", `Too many sign-ups from this address. Try again in ${duration(limit.retryAfterSeconds)}.`), 429);
  }
  const form = await formCredentials(c);
  const email = form ? normaliseEmail(form.email) : "";
  if (!form || !z.email().safeParse(email).success) return c.html(credentialsForm(c, "signup", form?.email, "Enter a valid email address."), 400);
  const problem = passwordProblem(form.password);
  if (problem) return c.html(credentialsForm(c, "signup", form.email, problem), 400);
  const userName = await userNameOf(c.env, email);
  const user = userStubByName(c.env, userName);
  const accountId = newAccountId();
  if (!(await user.register({ email, accountId, passwordHash: await hashPassword(form.password) }))) {
    return c.html(credentialsForm(c, "signup", form.email, "An account with this email already exists. Sign in instead."), 409);
  }
  try {
    const trial = configOf(c.env).TRIAL_CREDITS;
    await c.env.ACCOUNTS.get(c.env.ACCOUNTS.idFromName(accountId)).create({ accountId, email, grant: { kind: "trial", amount: trial } });
  } catch (err) {
    await user.remove(); // no user may point at an account that was never created
    throw err;
  }
  await startSession(c, userName);
  return c.redirect("/dashboard/reconstructions?welcome=1", 303);
});

authRoutes.post("/signin", async function signIn(c) {
  const form = await formCredentials(c);
  if (!form) return c.html(credentialsForm(c, "signin", "", WRONG_CREDENTIALS), 401);
  const userName = await userNameOf(c.env, form.email);
  const limit = await signInAllowed(c, userName);
  if (!limit.allowed) {
    c.header("Retry-After", String(limit.retryAfterSeconds));
    return c.html(credentialsForm(c, "signin", form.email, `Too many sign-in attempts. Try again in ${duration(limit.retryAfterSeconds)}.`), 429);
  }
  const credentials = await userStubByName(c.env, userName).credentials();
  // verifyPassword derives a key even without credentials: both refusals take the same time.
  if (!(await verifyPassword(form.password, credentials?.passwordHash ?? null))) {
    return c.html(credentialsForm(c, "signin", form.email, WRONG_CREDENTIALS), 401);
  }
  await startSession(c, userName);
  return c.redirect("/dashboard/reconstructions", 303);
});

authRoutes.post("/signout", async function signOut(c) {
  await endSession(c);
  return c.redirect("/signin", 303);
});

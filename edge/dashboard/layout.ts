/**
 * @module The dashboard's page shell.
 *
 * Why server-rendered HTML (Hono's `html` tagged template) rather than a single-page client:
 * every page is a plain document that reads and works without JavaScript (forms post, links
 * navigate), loads fast on a phone, and its data never leaves the Worker as a JSON API that
 * would need its own auth surface. Interpolations are escaped by `html`, so user data (names,
 * emails, file names) cannot inject markup. Only two pages load a script, bundled at build time
 * (scripts/build-dashboard.mjs) and served as Workers static assets: dashboard.js for the upload
 * checks, upload progress and live status, viewer.js for the three.js model viewer. `html`
 * instead of JSX keeps the Worker free of a JSX build step in wrangler, vitest and tsc alike.
 */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { SessionUser } from "../objects/user-rpc.js";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface PageOptions {
  title: string;
  user?: SessionUser;
  csrf?: string;
  /** Module scripts of /assets to load (file names). */
  scripts?: string[];
  /** The nav entry to mark as current. */
  current?: "reconstructions" | "new" | "keys" | "credits" | "settings";
}

function nav(options: PageOptions): Html {
  if (!options.user) return html`<nav aria-label="Main"><a href="/signin">Sign in</a> <a href="/signup">Sign up</a></nav>`;
  const link = (key: PageOptions["current"], href: string, label: string) =>
    html`<a href="${href}"${options.current === key ? html` aria-current="page"` : ""}>${label}</a>`;
  return html`<nav aria-label="Main">
    ${link("reconstructions", "/dashboard/reconstructions", "Reconstructions")}
    ${link("new", "/dashboard/reconstructions/new", "New")}
    ${link("keys", "/dashboard/keys", "API keys")}
    ${link("credits", "/dashboard/credits", "Credits")}
    ${link("settings", "/dashboard/settings", "Settings")}
    <form method="post" action="/signout" class="inline"><input type="hidden" name="csrf" value="${options.csrf ?? ""}"><button type="submit">Sign out</button></form>
  </nav>`;
}

export function page(options: PageOptions, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Photogrammetry</title>
<link rel="stylesheet" href="/assets/dashboard.css">
${(options.scripts ?? []).map((s) => html`<script type="module" src="/assets/${s}"></script>`)}
</head>
<body>
<header><a class="brand" href="/">Photogrammetry</a>${options.user ? html` <span class="who">${options.user.email}</span>` : ""}${nav(options)}</header>
<main id="main">
<h1>${options.title}</h1>
${body}
</main>
</body>
</html>`;
}

/** An alert box; `role=alert` so screen readers announce form errors. */
export function notice(kind: "error" | "info", text: string | undefined): Html | string {
  if (!text) return "";
  return html`<p class="notice ${kind}" role="${kind === "error" ? "alert" : "status"}">${text}</p>`;
}

export function csrfField(csrf: string | undefined): Html {
  return html`<input type="hidden" name="csrf" value="${csrf ?? ""}">`;
}

/** "3 min", "1 h 5 min": ETA text for people. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * The dashboard in a real browser (Chromium from @sparticuz/chromium, WebGL via SwiftShader)
 * against the real stack (wrangler dev + compute on loopback ports): sign up → trial balance →
 * create a key → use it from plain fetch → drop a rendered photo set → watch progress reach
 * completed → the 3D viewer shows the model → every download (six models, colmap, transforms) → revoke the key → 401.
 * axe-core checks every page, and that no table is wider than a phone's screen; screenshots of
 * every page at desktop and phone width go to SCREENSHOT_DIR.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// A reconstruction without a georeference offers the model formats (no ortho, dsm or report).
import { MODEL_FORMATS as FORMATS } from "../../shared/formats.js";
import { renderScene, writeViewsAsImages } from "../support/render.js";
import { launchBrowser, screenshotBoth, seriousViolations, VIEWPORTS } from "./browser.js";
import { startSystem, type RunningSystem } from "./system.js";
import { checkFile } from "./validate.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Where the screenshots go (kept after the run; .tmp/ is ignored by git). */
export const SCREENSHOT_DIR = process.env.DASHBOARD_SCREENSHOTS ?? path.join(root, ".tmp", "dashboard-screenshots");

let system: RunningSystem;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "e2e-dashboard-"));
  [system, browser] = await Promise.all([startSystem(), launchBrowser()]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Captions of the page's tables that do not fit at phone width: the table's right edge lies beyond
 * the viewport, or beyond its scrolling `.table-wrap` (cut off there, readable only by scrolling
 * sideways — the per-image table once was, while its right edge was still inside the viewport).
 */
async function tablesWiderThanPhone(page: Page): Promise<string[]> {
  await page.setViewport(VIEWPORTS.phone);
  await new Promise((r) => setTimeout(r, 150));
  const wide = await page.$$eval("table", (tables) =>
    tables.filter((t) => {
      const wrap = t.parentElement;
      const wrapOverflows = wrap !== null && wrap.classList.contains("table-wrap") && wrap.scrollWidth > wrap.clientWidth;
      return t.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 || wrapOverflows;
    }).map((t) => t.caption?.textContent ?? "(no caption)"));
  await page.setViewport(VIEWPORTS.desktop);
  return wide;
}

/** Every page visited: axe finds no serious or critical violation; no table wider than a phone; screenshots at both widths. */
async function checkPage(page: Page, name: string): Promise<void> {
  const violations = await seriousViolations(page);
  expect(violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`), `axe on ${name}`).toEqual([]);
  expect(await tablesWiderThanPhone(page), `tables wider than ${VIEWPORTS.phone.width} px on ${name}`).toEqual([]);
  await screenshotBoth(page, SCREENSHOT_DIR, name);
}

async function goto(page: Page, pathname: string): Promise<void> {
  const res = await page.goto(`${system.baseUrl}${pathname}`, { waitUntil: "load" });
  expect(res?.status(), pathname).toBeLessThan(400);
}

async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
}

/** Drops files on the drop zone as a user's drag and drop does (a DataTransfer with File objects). */
async function dropFiles(page: Page, files: string[]): Promise<void> {
  const payload = await Promise.all(files.map(async (f) => ({ name: path.basename(f), data: (await readFile(f)).toString("base64") })));
  await page.evaluate((items) => {
    const transfer = new DataTransfer();
    for (const item of items) {
      const bytes = Uint8Array.from(atob(item.data), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], item.name, { type: "image/jpeg" }));
    }
    const zone = document.getElementById("dropzone")!;
    zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, payload);
}

/** Polls the (reloading) page until the reconstruction is terminal; returns the statuses seen. */
async function waitUntilDone(page: Page, timeoutMs: number): Promise<string[]> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = await page.evaluate(() => document.querySelector<HTMLElement>("[data-live-id]")?.dataset.status ?? null).catch(() => null);
    if (status && seen[seen.length - 1] !== status) seen.push(status);
    if (status === "completed" || status === "failed") return seen;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`not done in time; saw ${seen.join(" → ")}\n${system.logs().slice(-3000)}`);
}

/** Share of the canvas's pixels that differ clearly from the viewer's background colour. */
async function modelCoverage(page: Page): Promise<number> {
  const canvas = (await page.$("#viewer-canvas"))!;
  const png = await canvas.screenshot({ type: "png" });
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let covered = 0;
  for (let i = 0; i < data.length; i += 3) {
    if (Math.abs(data[i] - 0x20) + Math.abs(data[i + 1] - 0x24) + Math.abs(data[i + 2] - 0x2b) > 30) covered++;
  }
  return covered / (info.width * info.height);
}

describe("dashboard in a real browser", () => {
  it("sign up → key → API → upload → live progress → 3D viewer → downloads → revoke", async () => {
    const page = await browser.newPage();
    await page.setBypassCSP(true); // only so that axe-core can be injected; the app's CSP is tested in workerd
    await page.setViewport({ width: 1280, height: 860 });
    const email = `browser-${Date.now()}@example.com`;
    const consoleLines: string[] = [];
    page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => consoleLines.push(`pageerror: ${String(e)}`));

    await goto(page, "/");
    await checkPage(page, "01-signup");
    await page.type("#email", email);
    await page.type("#password", "a long enough secret");
    await submit(page, "button[type=submit]");
    expect(page.url()).toContain("/dashboard/reconstructions");
    await checkPage(page, "02-reconstructions-empty");

    await goto(page, "/dashboard/credits");
    expect(await page.$eval("[data-balance]", (el) => el.textContent)).toBe("5");
    await checkPage(page, "03-credits");

    await goto(page, "/dashboard/keys");
    await page.type("#key-name", "browser test");
    await submit(page, "form.row button[type=submit]");
    const apiKey = await page.$eval("#new-api-key", (el) => (el as HTMLInputElement).value);
    expect(apiKey).toMatch(/^pk_live_/);
    await checkPage(page, "04-keys-created");
    const account = await fetch(`${system.baseUrl}/v1/account`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ balance: 5, trial: true });

    const scene = renderScene({ scene: "object", views: 8, width: 320, height: 240, seed: 7, stepDegrees: 12 });
    const files = await writeViewsAsImages(scene.views, path.join(dir, "photos"));
    await goto(page, "/dashboard/reconstructions/new");
    await dropFiles(page, files);
    await page.waitForFunction((n) => document.querySelectorAll("#file-list li.ok").length === n, { timeout: 10_000 }, files.length);
    await page.select("#quality", "preview");
    await checkPage(page, "05-new-files-checked");
    // The upload goes through XMLHttpRequest (progress bar), then the script navigates.
    await page.click("#upload-button");
    await page.waitForFunction(() => /\/dashboard\/reconstructions\/rec_/.test(location.pathname) || /failed|interrupted|cannot|Choose/.test(document.getElementById("upload-message")?.textContent ?? ""), { timeout: 60_000 })
      .catch(() => undefined);
    await page.waitForSelector("[data-live-id]", { timeout: 30_000 }).catch(async () => {
      throw new Error(`upload did not land on the reconstruction page: ${page.url()} ${await page.$eval("#upload-message", (el) => el.textContent).catch(() => "")} ${consoleLines.join(" | ")}`);
    });
    const id = /\/dashboard\/reconstructions\/(rec_[A-Za-z0-9_-]+)$/.exec(page.url())?.[1];
    expect(id, page.url()).toBeTruthy();

    // The list, in its own tab, keeps updating without a reload while the job runs.
    const listPage = await browser.newPage();
    await listPage.setBypassCSP(true);
    await listPage.setViewport({ width: 1280, height: 860 });
    await listPage.goto(`${system.baseUrl}/dashboard/reconstructions`, { waitUntil: "load" });
    await listPage.waitForFunction((rid) => { const row = document.querySelector<HTMLElement>(`[data-live-id="${rid}"]`); return row?.dataset.status === "processing" && Number((row.querySelector("progress") as HTMLProgressElement).value) > 0; }, { timeout: 120_000, polling: 250 }, id);
    await checkPage(listPage, "06-reconstructions-processing");
    await checkPage(page, "07-detail-processing");

    const statuses = await waitUntilDone(page, 300_000);
    expect(statuses[statuses.length - 1]).toBe("completed");
    await listPage.waitForFunction((rid) => document.querySelector<HTMLElement>(`[data-live-id="${rid}"]`)?.dataset.status === "completed", { timeout: 10_000 }, id);
    await listPage.close();

    await page.waitForSelector("#viewer-canvas[data-ready='1']", { timeout: 60_000 });
    expect(Number(await page.$eval("#viewer-canvas", (el) => (el as HTMLElement).dataset.cameras))).toBeGreaterThanOrEqual(2);
    const withModel = await modelCoverage(page);
    expect(withModel, "share of the canvas the model covers").toBeGreaterThan(0.03);
    // The report's tables are on the page, so checkPage's phone-width check covers the per-image table.
    expect(await page.$$eval("table caption", (cs) => cs.map((c) => c.textContent))).toEqual(["Per image", "Per stage"]);
    await checkPage(page, "08-detail-viewer-mesh");
    await page.click("#show-cameras");
    await page.click('input[name="geometry"][value="points"]');
    await page.waitForSelector("#viewer-canvas[data-showing='points']", { timeout: 60_000 });
    expect(await modelCoverage(page), "point cloud on the canvas").toBeGreaterThan(0.01);
    await screenshotBoth(page, SCREENSHOT_DIR, "09-detail-viewer-points");

    const cookie = (await page.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    // The page offers exactly the formats the status record lists: all eight on a completed run.
    const offered = await page.$$eval("a[data-format]", (links) => links.map((a) => (a as HTMLElement).dataset.format));
    expect(offered).toEqual([...FORMATS]);
    for (const format of FORMATS) {
      const href = await page.$eval(`a[data-format="${format}"]`, (a) => (a as HTMLAnchorElement).href);
      const res = await fetch(href, { headers: { Cookie: cookie } });
      expect(res.status, format).toBe(200);
      const check = await checkFile(format, new Uint8Array(await res.arrayBuffer()));
      expect(check.ok, `${format}: ${check.detail}`).toBe(true);
    }

    await goto(page, "/dashboard/keys");
    await submit(page, "button.danger");
    expect(await page.$eval("tbody", (el) => el.textContent)).toContain("revoked");
    await checkPage(page, "10-keys-revoked");
    const refused = await fetch(`${system.baseUrl}/v1/account`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(refused.status).toBe(401);

    await goto(page, "/dashboard/credits");
    expect(await page.$eval("tbody", (el) => el.textContent)).toContain(id!);
    await checkPage(page, "11-credits-ledger");
    await goto(page, "/dashboard/settings");
    await checkPage(page, "12-settings");
    await submit(page, "nav button[type=submit]");
    await goto(page, "/signin");
    await checkPage(page, "13-signin");
  }, 600_000);
});

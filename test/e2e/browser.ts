/**
 * @module A real Chromium for dashboard tests: `@sparticuz/chromium`'s binary (shipped inside the
 * npm package, no download) driven by puppeteer-core, WebGL through SwiftShader; axe-core for
 * accessibility; screenshots at desktop and phone width into one folder.
 */
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

export const VIEWPORTS = { desktop: { width: 1280, height: 860 }, // Width only: changing isMobile or hasTouch makes puppeteer reload the page, losing its state.
  phone: { width: 390, height: 844 } } as const;

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args, "--use-gl=angle", "--use-angle=swiftshader", "--disable-background-networking", "--disable-component-update"],
    headless: true,
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

let axeSource: string | null = null;

/**
 * Runs axe-core in the page and returns the serious and critical violations. The page's own
 * CSP forbids inline scripts (rightly), so the test page bypasses CSP to inject axe.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  });
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** Screenshots the current page at desktop and phone width as `<name>-desktop.png` and `<name>-phone.png`. */
export async function screenshotBoth(page: Page, dir: string, name: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewport(viewport);
    await new Promise((r) => setTimeout(r, 150)); // layout and a canvas resize settle
    const file = path.join(dir, `${name}-${label}.png`);
    await page.screenshot({ path: file as `${string}.png`, fullPage: true });
    files.push(file);
  }
  await page.setViewport(VIEWPORTS.desktop);
  return files;
}

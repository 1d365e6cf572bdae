/**
 * The `photogrammetry` CLI run as a child process, as a user or a script runs it: against the
 * real stack (wrangler dev + compute) for reconstruct / status / download and the exit codes
 * of a failed reconstruction, a bad key and no credits, and `list` (GET /v1/reconstructions);
 * against a scripted server for `cancel`'s answers (a real cancel: test/e2e/cancel-delete.test.ts).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderScene, writeViewsAsImages } from "../support/render.js";
import { createAccount, type Api } from "./client.js";
import { CREATED, errorBody, scriptedServer } from "./sdk-support.js";
import { startSystem, type RunningSystem } from "./system.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const node = path.join(root, "node_modules", ".bin", "node");
const bin = path.join(root, "clients", "typescript", "bin", "photogrammetry.mjs");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    // HOME points at an empty folder so a developer's own config file cannot leak in.
    execFile(node, [bin, ...args], { cwd: root, env: { PATH: process.env.PATH, HOME: dir, ...env }, timeout: 600_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

let system: RunningSystem;
let dir: string;
let photosDir: string;
let api: Api;
const envOf = (a: Api) => ({ PHOTOGRAMMETRY_API_KEY: a.apiKey, PHOTOGRAMMETRY_API_URL: a.baseUrl });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cli-e2e-"));
  photosDir = path.join(dir, "photos");
  const scene = renderScene({ scene: "object", views: 8, width: 320, height: 240, seed: 7, stepDegrees: 12 });
  await writeViewsAsImages(scene.views, photosDir);
  await writeFile(path.join(photosDir, "notes.txt"), "not a photo: the folder expansion skips it");
  system = await startSystem();
  api = await createAccount(system.baseUrl, system.adminToken, 3);
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("photogrammetry CLI against the real stack", () => {
  let id: string;

  it("reconstructs a folder with --json and saves each format", async () => {
    const out = path.join(dir, "model");
    const run = await cli(["reconstruct", photosDir, "--format", "glb,obj", "--out", out, "--quality", "preview", "--json", "--interval", "0.5"], envOf(api));
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { id: string; status: string; files: Array<{ format: string; path: string; file_size: number }> };
    expect(result.status).toBe("completed");
    expect(result.files.map((f) => f.format)).toEqual(["glb", "obj"]);
    for (const file of result.files) expect((await stat(file.path)).size).toBe(file.file_size);
    expect((await readFile(result.files[0].path)).subarray(0, 4).toString("latin1")).toBe("glTF");
    id = result.id;
  }, 900_000);

  it("shows status as text and as JSON, and downloads again", async () => {
    const text = await cli(["status", id], envOf(api));
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${id}  completed  100%`);
    const json = await cli(["status", id, "--json"], envOf(api));
    expect(JSON.parse(json.stdout)).toMatchObject({ id, status: "completed", progress: 100 });
    const out = path.join(dir, "again");
    const download = await cli(["download", id, "--format", "stl", "--out", out], envOf(api));
    expect(download.code, download.stderr).toBe(0);
    expect(download.stdout).toContain(`saved ${path.join(out, `${id}.stl`)}`);
    expect(await readdir(out)).toEqual([`${id}.stl`]);
  });

  it("exits 1 with the reason when the reconstruction fails", async () => {
    const blank = path.join(dir, "blank");
    for (let i = 0; i < 3; i++) {
      await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 128, g: 128, b: 128 } } }).jpeg().toFile(path.join(blank.concat(`-${i}.jpg`)));
    }
    const files = [0, 1, 2].map((i) => `${blank}-${i}.jpg`);
    const run = await cli(["reconstruct", ...files, "--quality", "preview", "--json", "--interval", "0.5"], envOf(api));
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const result = JSON.parse(run.stdout) as { status: string; error: { code: string }; credit_refunded: boolean };
    expect(result.status).toBe("failed");
    expect(result.error.code).toMatch(/^[a-z_]+$/);
    expect(result.credit_refunded).toBe(true);
  }, 900_000);

  it("lists the reconstructions newest first, with the status filter", async () => {
    const all = await cli(["list", "--json"], envOf(api));
    expect(all.code, all.stderr).toBe(0);
    const page = JSON.parse(all.stdout) as { data: Array<{ id: string; status: string }>; next_cursor: string | null };
    expect(page.data.map((r) => r.status)).toEqual(["failed", "completed"]);
    expect(page.data[1].id).toBe(id);
    expect(page.next_cursor).toBeNull();
    const completed = await cli(["list", "--status", "completed", "--limit", "5"], envOf(api));
    expect(completed.code, completed.stderr).toBe(0);
    expect(completed.stdout.trim().split("\n")).toEqual([expect.stringMatching(new RegExp(`^${id}  completed  100%  `))]);
  });

  it("exits 3 on a bad key, 5 when the API refuses, 2 on usage errors, 4 when nothing answers", async () => {
    const badKey = await cli(["status", id, "--json"], { ...envOf(api), PHOTOGRAMMETRY_API_KEY: "pk_live_wrong" });
    expect(badKey.code).toBe(3);
    expect(JSON.parse(badKey.stdout).error.code).toBe("invalid_api_key");
    const broke = await createAccount(system.baseUrl, system.adminToken, 0);
    const refused = await cli(["reconstruct", photosDir, "--json"], envOf(broke));
    expect(refused.code).toBe(5);
    expect(JSON.parse(refused.stdout).error.code).toBe("insufficient_credits");
    expect((await cli(["reconstruct"], envOf(api))).code).toBe(2);
    expect((await cli(["status", id, "--format", "zip"], envOf(api))).code).toBe(2);
    expect((await cli(["status", id, "--bogus"], envOf(api))).code).toBe(2);
    expect((await cli(["status", id], { PHOTOGRAMMETRY_API_URL: system.baseUrl })).code).toBe(3);
    const down = await cli(["status", id], { ...envOf(api), PHOTOGRAMMETRY_API_URL: "http://127.0.0.1:1" });
    expect(down.code).toBe(4);
  }, 120_000);

  it("reads the key and URL from the config file", async () => {
    const configDir = path.join(dir, "xdg", "photogrammetry");
    await import("node:fs/promises").then((fs) => fs.mkdir(configDir, { recursive: true }));
    await writeFile(path.join(configDir, "config.json"), JSON.stringify({ api_key: api.apiKey, api_url: api.baseUrl }));
    const run = await cli(["status", id, "--json"], { XDG_CONFIG_HOME: path.join(dir, "xdg") });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).id).toBe(id);
  });
});

describe("photogrammetry CLI against a scripted server", () => {
  it("lists and cancels", async () => {
    const record = { ...CREATED, status: "failed", progress: 40, started_at: null, files_processed: 0, total_files: 2, stage: null, completed_at: CREATED.created_at, error: { code: "cancelled", message: "cancelled by the user", suggestion: "" }, credit_refunded: true };
    const server = await scriptedServer([
      { status: 200, body: { data: [record], next_cursor: null } },
      { status: 200, body: record },
      { status: 409, body: errorBody("already_terminal", "already failed") },
    ]);
    try {
      const env = { PHOTOGRAMMETRY_API_KEY: "pk_test", PHOTOGRAMMETRY_API_URL: server.url };
      const list = await cli(["list", "--limit", "5", "--status", "failed"], env);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain(`${CREATED.id}  failed      40%`);
      const cancel = await cli(["cancel", CREATED.id, "--json"], env);
      expect(JSON.parse(cancel.stdout).error.code).toBe("cancelled");
      const again = await cli(["cancel", CREATED.id], env);
      expect(again.code).toBe(5);
      expect(again.stderr).toContain("already failed (already_terminal)");
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
        "GET /v1/reconstructions?limit=5&status=failed",
        `POST /v1/reconstruction/${CREATED.id}/cancel`,
        `POST /v1/reconstruction/${CREATED.id}/cancel`,
      ]);
    } finally {
      await server.close();
    }
  });
});

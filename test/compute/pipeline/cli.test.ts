import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expandInputs, parseArgs } from "../../../compute/cli.js";

describe("cli", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("parses inputs, --out, --quality, --sparse-only and --seed", () => {
    const args = parseArgs(["a.jpg", "photos", "--out", "out", "--quality", "high", "--sparse-only"]);
    expect(args.inputs).toEqual(["a.jpg", "photos"]);
    expect(args.outDir).toBe(path.resolve("out"));
    expect(args.quality).toBe("high");
    expect(args.sparseOnly).toBe(true);
    expect(parseArgs(["a.jpg", "--out", "o"]).quality).toBe("standard");
    expect(parseArgs(["a.jpg", "--out", "o"]).seed).toBeUndefined();
    expect(parseArgs(["a.jpg", "--out", "o", "--seed", "3"]).seed).toBe(3);
  });

  it("rejects a missing --out, an unknown option, an unknown quality and a seed that is no whole number from 1", () => {
    expect(() => parseArgs(["a.jpg"])).toThrow(/--out/);
    expect(() => parseArgs(["a.jpg", "--out", "o", "--fast"])).toThrow(/unknown option/);
    expect(() => parseArgs(["a.jpg", "--out", "o", "--quality", "ultra"])).toThrow();
    for (const bad of ["0", "-1", "1.5", "x", "1e3"]) expect(() => parseArgs(["a.jpg", "--out", "o", "--seed", bad])).toThrow(/--seed must be a whole number/);
    expect(() => parseArgs(["a.jpg", "--out", "o", "--seed"])).toThrow(/--seed must be a whole number/);
  });

  it("expands folders to their image and video files, sorted, and keeps files as given", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cli-"));
    dirs.push(dir);
    await mkdir(path.join(dir, "set"));
    for (const name of ["b.JPG", "a.png", "notes.txt", "clip.mp4"]) await writeFile(path.join(dir, "set", name), "x");
    await writeFile(path.join(dir, "single.heic"), "x");
    const files = await expandInputs([path.join(dir, "set"), path.join(dir, "single.heic")]);
    expect(files.map((f) => f.name)).toEqual(["a.png", "b.JPG", "clip.mp4", "single.heic"]);
    expect(files[0].path).toBe(path.join(dir, "set", "a.png"));
  });
});

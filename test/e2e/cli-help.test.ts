/**
 * `--help` of every command the README names, run as a child process as a user runs it: the
 * `photogrammetry` CLI and each of its commands, `npm run reconstruct`, `npm run bench` and
 * `npm run dev`. Each prints its usage on stdout and exits 0 (nothing starts, no key needed);
 * an unknown option is one line on stderr pointing at --help, with a non-zero exit and no stack.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const node = path.join(root, "node_modules", ".bin", "node");
const bin = path.join(root, "clients", "typescript", "bin", "photogrammetry.mjs");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let home: string;
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "cli-help-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: root, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** The `photogrammetry` CLI with no key and an empty HOME: help must need neither. */
const cli = (args: string[]) => run(node, [bin, ...args], { PATH: process.env.PATH, HOME: home });
/** `npm run <script> -- <args>`, as the README writes it (--silent: no npm banner on stdout). */
const npmRun = (script: string, args: string[]) => run("npm", ["run", "--silent", script, "--", ...args], { ...process.env, HOME: home });

const STACK = /^\s+at /m;

describe("photogrammetry --help", () => {
  it("prints the commands, options with defaults, environment and examples, and exits 0", async () => {
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const help = await cli(args);
      expect(help.code, `${args.join(" ")}: ${help.stderr}`).toBe(0);
      expect(help.stderr).toBe("");
      expect(help.stdout).toMatch(/^Usage: photogrammetry <command>/);
      for (const command of ["reconstruct <dir|files...>", "status <id>", "download <id>", "list", "cancel <id>"]) expect(help.stdout).toContain(`  ${command}`);
      for (const option of ["--format LIST", "(default glb)", "--out DIR", "(default .)", "--quality Q", "--upload MODE", "(default multipart)", "--interval S", "(default 2)", "--timeout S", "--json", "--api-url URL", "-h, --help"]) expect(help.stdout).toContain(option);
      for (const variable of ["PHOTOGRAMMETRY_API_KEY", "PHOTOGRAMMETRY_API_URL", "http://127.0.0.1:8787", "config.json"]) expect(help.stdout).toContain(variable);
      expect(help.stdout).toContain("Exit codes:");
      expect(help.stdout).toContain("photogrammetry reconstruct ./photos");
    }
  });

  const commands: Record<string, string[]> = {
    reconstruct: ["Usage: photogrammetry reconstruct <dir|files...>", "--format LIST", "--out DIR", "--quality Q", "--upload MODE", "--gcp FILE", "--checkpoints LIST", "--output-crs CRS", "--interval S", "(default 2)", "--timeout S", "photogrammetry reconstruct ./photos"],
    status: ["Usage: photogrammetry status <id>", "<id>", "photogrammetry status rec_"],
    download: ["Usage: photogrammetry download <id>", "--format LIST", "(default glb)", "--out DIR", "photogrammetry download rec_"],
    list: ["Usage: photogrammetry list", "--limit N", "--status S", "photogrammetry list --status completed"],
    cancel: ["Usage: photogrammetry cancel <id>", "photogrammetry cancel rec_"],
  };
  for (const [command, expected] of Object.entries(commands)) {
    it(`photogrammetry ${command} --help prints that command's usage and exits 0`, async () => {
      for (const args of [[command, "--help"], [command, "-h"], ["help", command], [command, "rec_x", "--format", "zip", "--help"]]) {
        const help = await cli(args);
        expect(help.code, `${args.join(" ")}: ${help.stderr}`).toBe(0);
        expect(help.stderr).toBe("");
        expect(help.stdout.startsWith(expected[0])).toBe(true);
        for (const text of [...expected, "--json", "--api-url URL", "-h, --help", "PHOTOGRAMMETRY_API_KEY", "PHOTOGRAMMETRY_API_URL", "Exit codes:"]) expect(help.stdout).toContain(text);
        expect(help.stdout).toMatch(/\nExamples?:\n/);
      }
    });
  }

  it("answers an unknown option or command with one line pointing at --help and exit 2", async () => {
    const top = await cli(["--bogus"]);
    expect(top).toEqual({ code: 2, stdout: "", stderr: "error: unknown option --bogus (see photogrammetry --help)\n" });
    const status = await cli(["status", "rec_x", "--bogus"]);
    expect(status).toEqual({ code: 2, stdout: "", stderr: "error: unknown option --bogus (see photogrammetry status --help)\n" });
    const command = await cli(["frobnicate", "--help"]);
    expect(command).toEqual({ code: 2, stdout: "", stderr: "error: unknown command frobnicate (see photogrammetry --help)\n" });
  });
});

describe("npm run reconstruct -- --help", () => {
  it("prints the arguments, options with defaults and an example, and exits 0", async () => {
    for (const flag of ["--help", "-h"]) {
      const help = await npmRun("reconstruct", [flag]);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stderr).not.toMatch(STACK);
      expect(help.stdout).toMatch(/^Usage: npm run reconstruct -- <files or folders\.\.\.> --out <dir>/);
      for (const text of ["--out DIR", "(required)", "--quality Q", "preview | standard | high (default standard)", "--sparse-only", "-h, --help", "Environment:", "Exit status:", "npm run reconstruct -- ../shared/datasets/real/fountain-P11/images --out out/fountain"]) expect(help.stdout).toContain(text);
    }
  });

  it("answers an unknown option with one line and exit 2, without a stack trace", async () => {
    const bad = await npmRun("reconstruct", ["photos", "--out", "out", "--fast"]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toBe("reconstruct: unknown option --fast (see npm run reconstruct -- --help)\n");
  });
});

describe("npm run bench -- --help", () => {
  it("lists every benchmark with its arguments and options, runs none, and exits 0", async () => {
    const help = await npmRun("bench", ["--help"]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run bench -- \[name\.\.\.\]/);
    expect(help.stdout).not.toContain("=== bench");
    for (const name of ["edge", "sfm", "precision", "dense", "ba", "front", "views", "stress", "subsets", "scale", "load", "ann", "keypoints", "eta", "export", "burst"]) expect(help.stdout).toContain(`npm run bench -- ${name}`);
    for (const text of ["--sizes=LIST", "(default 50,200,800)", "--trials N", "(default 4)", "--seconds N", "--threads=LIST", "../shared/datasets", "Examples:"]) expect(help.stdout).toContain(text);
  });

  it("with names, prints only those benchmarks' usage", async () => {
    const help = await npmRun("bench", ["scale", "-h"]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain("npm run bench -- scale [options]");
    for (const text of ["--sizes=LIST", "--gps=rtk", "--no-gps-priors", "--video=SECONDS"]) expect(help.stdout).toContain(text);
    expect(help.stdout).not.toContain("npm run bench -- sfm");
    expect(help.stdout).not.toContain("=== bench");
  });

  it("refuses an option none of the named benchmarks reads, before running any", async () => {
    // ba with 10 cameras would take a second if it ran: the refusal must come first.
    const bad = await npmRun("bench", ["ba", "10", "50", "--bogus"]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toBe("bench ba: unknown option --bogus (see npm run bench -- --help)\n");
  });
});

describe("npm run dev -- --help", () => {
  it("prints the environment it reads and exits 0 without starting anything", async () => {
    const help = await npmRun("dev", ["--help"]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run dev/);
    for (const text of ["EDGE_PORT=N", "(default 8787)", "COMPUTE_PORT=N", "(default 8788)", "COMPUTE_PROCESSES=N", "(default 2)", "PREWARM", ".dev.vars", "-h, --help", "Example:"]) expect(help.stdout).toContain(text);
    expect(help.stdout).not.toContain("Edge (API):");
  });

  it("refuses an argument with one line and exit 2", async () => {
    // Straight to the script (not through npm), so the timeout would stop it if it started the stack.
    const bad = await run(node, [path.join(root, "scripts", "dev.mjs"), "--bogus"], { PATH: process.env.PATH, HOME: home });
    expect(bad).toEqual({ code: 2, stdout: "", stderr: "dev: unknown option --bogus; npm run dev takes none (see npm run dev -- --help)\n" });
  });
});

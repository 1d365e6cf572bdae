import { defineConfig } from "vitest/config";
import { execFileSync } from "node:child_process";

// The dashboard bundle (dist/dashboard, wrangler.jsonc `assets`) must exist before workerd or
// wrangler dev starts, also when vitest is run directly rather than through `npm test`.
execFileSync(process.execPath, ["scripts/build-dashboard.mjs"], { stdio: "inherit" });

export default defineConfig({
  test: {
    name: "compute",
    include: ["test/compute/**/*.test.ts", "test/e2e/**/*.test.ts", "test/dashboard/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Two files at a time: much of the suite is single-threaded (SfM) or waits on processes it
    // started (the e2e files), so a second file uses the core the first leaves idle (12.7 → 8.5
    // minutes on 2 cores). Ports: test/e2e/system.ts gives each worker a block of its own.
    maxWorkers: 2,
    // One process runs many files, as the compute service runs many jobs: starting a fresh process
    // and importing the pipeline per file cost more than the small files' tests (96 files of under
    // 3 s: 158 → 124 s). No test file changes the environment or mocks a module; the pools and
    // caches a file leaves are the ones a long-lived service keeps. The whole suite: 511 tests
    // passed in 13.5 min (16.9 before, with the dense speedups of the same commit range).
    isolate: false,
  },
});

import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { execFileSync } from "node:child_process";

// The dashboard bundle (dist/dashboard, wrangler.jsonc `assets`) must exist before workerd or
// wrangler dev starts, also when vitest is run directly rather than through `npm test`.
execFileSync(process.execPath, ["scripts/build-dashboard.mjs"], { stdio: "inherit" });

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        bindings: {
          ADMIN_TOKEN: "test-admin-token",
          SIGNING_SECRET: "test-signing-secret-0123456789",
          COMPUTE_SECRET: "test-compute-secret",
          // Nothing listens here: queue consumers running during tests never reach a real compute.
          COMPUTE_URL: "http://127.0.0.1:9",
        },
      },
    }),
  ],
  test: {
    name: "edge",
    include: ["test/edge/**/*.test.ts"],
    // Two files at a time: each file waits about 3 s for its own workerd to start and runs for
    // under a second after it (42 files: 182 s one at a time), so a second file uses that wait.
    // Three gained with warm caches (alone 131 → 108 s) but not in a fresh clone's CI, where
    // transforming the sources is a third of the time (124 s at three against 122–129 s at two).
    maxWorkers: 2,
    // Far above a test's time alone (under a second): the first request of a file starts its
    // worker, and on a loaded machine (four files at a time on two cores) the one-request smoke
    // test took over vitest's default 5 s once in five runs.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One workerd per vitest worker, reused by the files it runs, instead of one started per file
    // (1.5 s each, and the sources transformed again): 98–101 s → 30–53 s for the 42 files. The
    // files a worker runs one after another share its storage, so test/edge/helpers.ts gives each
    // file its own client address (its own rate-limit budgets), and a test that checks R2 holds
    // nothing new compares with what it found there first. Two workers never share storage.
    isolate: false,
  },
});

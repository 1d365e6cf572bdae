import { defineConfig } from "vitest/config";
import { execFileSync } from "node:child_process";

// The dashboard bundle (dist/dashboard, wrangler.jsonc `assets`) must exist before workerd or
// wrangler dev starts, also when vitest is run directly rather than through `npm test`.
execFileSync(process.execPath, ["scripts/build-dashboard.mjs"], { stdio: "inherit" });

export default defineConfig({
  test: {
    name: "compute",
    include: ["test/compute/**/*.test.ts", "test/e2e/**/*.test.ts", "test/client/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
  },
});

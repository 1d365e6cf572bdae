import { defineConfig } from "vitest/config";

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

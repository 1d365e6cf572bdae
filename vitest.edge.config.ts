import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        bindings: {
          ADMIN_TOKEN: "test-admin-token",
          SIGNING_SECRET: "test-signing-secret-0123456789",
          COMPUTE_SECRET: "test-compute-secret",
        },
      },
    }),
  ],
  test: {
    name: "edge",
    include: ["test/edge/**/*.test.ts"],
  },
});

import { defineConfig } from "vitest/config";

// Unit tests sit beside the code; cross-service tests live under test/.
export default defineConfig({
  test: {
    include: ["services/**/*.test.ts", "shared/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default"],
  },
});

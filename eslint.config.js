// Lint rules: the recommended sets of eslint and typescript-eslint, no `any` where a type can be written,
// and the architecture's dependency rules (eslint-rules/import-boundaries.js).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import boundaries from "./eslint-rules/import-boundaries.js";

const root = import.meta.dirname;

/**
 * Temporary exceptions to the dependency rules, each scoped to the files that break a rule today and
 * removed by the work that ends it.
 */
const TEMPORARY_EXCEPTIONS = [];

export default tseslint.config(
  { ignores: ["node_modules/**", ".plat/**", "dist/**", "coverage/**", "loadtest/k6/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { plat: boundaries },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-constant-condition": ["error", { checkLoops: false }],
      "plat/import-boundaries": ["error", { root, allow: TEMPORARY_EXCEPTIONS }],
    },
  },
);

// Lint: typescript-eslint's type-aware recommended rules over the hand-written TypeScript
// (common/, codegen/, diff/, kernel/, runtime/, cli/). generated/ is the generator's output (checked by
// drift, not by lint); tests, bench and scripts are checked by tsc.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "generated/**",
      "codegen/assets/**",
      "test/**",
      "bench/**",
      "scripts/**",
      "**/*.js",
      "**/*.mjs",
      "**/*.cjs",
      "**/*.d.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ["common/**/*.ts", "codegen/**/*.ts", "diff/**/*.ts", "kernel/**/*.ts", "runtime/**/*.ts", "cli/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // The stores and the reference kernel implement async interfaces (a store may be Redis, a
      // kernel may be remote) with synchronous SQLite: an async method without await is the point.
      "@typescript-eslint/require-await": "off",
      // A leading underscore names a value left out on purpose (a destructured field dropped).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    // The generator and the diff walk JSON Schema documents, which are untyped JSON
    // (JsonSchema = Record<string, any>): their values are checked by shape at run time
    // (isPlainObject, Array.isArray, typeof) and printed as the contract wrote them, so the
    // any-flow and stringification rules would flag every keyword read.
    files: ["codegen/**/*.ts", "diff/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-base-to-string": "off",
      "@typescript-eslint/restrict-template-expressions": "off",
    },
  },
  {
    // commander hands each action its parsed options as any; every command function declares the
    // options it takes, and commander's option definitions above it are what fills them.
    files: ["cli/main.ts"],
    rules: { "@typescript-eslint/no-unsafe-argument": "off" },
  },
);

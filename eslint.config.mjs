// Lint: typescript-eslint's type-aware recommended rules over the hand-written TypeScript
// (common/, codegen/, kernel/, runtime/, cli/). generated/ is the generator's output (checked by
// drift, not by lint); tests, bench and scripts are checked by tsc.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "generated/**", "codegen/assets/**", "test/**", "bench/**", "scripts/**", "**/*.js", "**/*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ["common/**/*.ts", "codegen/**/*.ts", "kernel/**/*.ts", "runtime/**/*.ts", "cli/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // The stores and the reference kernel implement async interfaces (a store may be Redis, a
      // kernel may be remote) with synchronous SQLite: an async method without await is the point.
      "@typescript-eslint/require-await": "off",
      // A leading underscore names a value left out on purpose (a destructured field dropped).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
    },
  },
);

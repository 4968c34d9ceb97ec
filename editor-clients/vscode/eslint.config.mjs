// Lint for the VS Code client: typescript-eslint's type-checked rules, so unhandled promises are errors.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // Patterns are relative to the directory ESLint runs in (the repository root, where package.json is).
  { ignores: ["**/dist/**", "**/out/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ["**/*.ts"] })),
  {
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": [
        "error",
        // node:test's describe/it return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: ["describe", "it"] }] },
      ],
      "@typescript-eslint/explicit-module-boundary-types": "error",
      eqeqeq: "error",
      curly: "error",
    },
  },
  {
    files: ["**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
);

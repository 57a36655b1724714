// ESLint for the app, the sandbox, the tests and the storefront script's source. Prettier owns
// formatting (eslint-config-prettier switches off every rule that would fight it).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: ["build/", ".cache/", "coverage/", "reports/", "node_modules/", "extensions/*/assets/", "app/types/"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
    },
  },
  {
    // The app logs through logger.server.ts (structured, redacted); command-line programs print.
    files: ["app/**"],
    rules: { "no-console": ["error", { allow: ["warn", "error"] }] },
  },
  {
    files: ["app/**/*.tsx"],
    plugins: { react, "react-hooks": reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    settings: { react: { version: "detect" } },
    rules: {
      ...react.configs.recommended.rules,
      ...react.configs["jsx-runtime"].rules,
      ...reactHooks.configs.recommended.rules,
      "react/prop-types": "off",
    },
  },
  {
    // The admin's words come from its locale files (app/i18n): text written straight into JSX
    // would reach every merchant in English. Props are left to the pseudo-locale's browser test
    // (tests/e2e/pseudo-locale.test.ts), which sees a label or a title that bypassed t() as
    // well; here too many props are not words (variant="primary", as="h2").
    files: ["app/routes/app*.tsx", "app/routes/auth.login.tsx", "app/components/**/*.tsx"],
    rules: {
      "react/jsx-no-literals": ["error", { noStrings: true, ignoreProps: true }],
    },
  },
  {
    // Stand-ins and tests read arbitrary JSON bodies (Shopify payloads, scenario files).
    files: ["sandbox/**", "tests/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["extensions/**/*.ts"],
    languageOptions: { globals: { ...globals.browser } },
    // Every byte ships to shoppers: loose equality against null/undefined and a control-character
    // class (to refuse such input) are deliberate there.
    rules: { eqeqeq: "off", "no-control-regex": "off" },
  },
  {
    // Browser extensions kept as test fixtures (the arena loads them into Chromium): their
    // content scripts see the page, their service workers the extension APIs.
    files: ["tests/fixtures/*-extension/**/*.js"],
    languageOptions: { globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions } },
  },
  prettier,
);

import { spawnSync } from "node:child_process";
import { rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, scratchCopy } from "../support/scratch-copy";

// `npx shopify app build`, with the Shopify CLI the project ships, on a copy of the repository
// as a fresh clone holds it: it builds both extensions and says so, and prints no error on the
// way. Its theme check once failed three times reading extensions/click-capture/locales (the
// theme app extension had none) while the build still ended "Tag Guard built!"; `shopify app
// deploy` runs the same steps. Dependencies are the project's own (a link to its node_modules):
// the CLI's own installation step would only run `npm install` again.

const copy = scratchCopy("tag-guard-app-build-");
symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"), "dir");
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** The CLI's output as a reader sees it: without its colours and cursor movements. */
const plain = (text: string) => stripVTControlCharacters(text);

describe("shopify app build", () => {
  it("builds the app's extensions and prints no error", { timeout: 120_000 }, () => {
    const run = spawnSync(
      process.execPath,
      [
        path.join(ROOT, "node_modules/@shopify/cli/bin/run.js"),
        "app",
        "build",
        "--path",
        copy,
        "--skip-dependencies-installation",
        "--no-color",
      ],
      {
        cwd: copy,
        encoding: "utf8",
        env: { ...process.env, SHOPIFY_CLI_NO_ANALYTICS: "1", CI: "1" },
        timeout: 110_000,
      },
    );
    const output = plain(`${run.stdout}\n${run.stderr}`);
    expect(run.status, output).toBe(0);
    expect(output).toContain("Tag Guard built!");
    expect(output).toMatch(/tag-guard-pixel successfully built/);
    const errors = output.split("\n").filter((line) => /error|ENOENT|✘/i.test(line));
    expect(errors, output).toEqual([]);
  });
});

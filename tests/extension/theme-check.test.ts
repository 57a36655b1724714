import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Severity } from "@shopify/theme-check-node";
import { THEME_EXTENSION, checkTheme } from "../../scripts/check-theme";

// `npm run check:theme` (part of `npm run lint`) runs Shopify's Theme Check with the theme app
// extension rules. These prove it does judge the extension by those rules: a copy broken the
// way an app block must not be is refused, and the committed extension passes.

const scratch = mkdtempSync(path.join(tmpdir(), "theme-check-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function copyOfExtension(name: string): string {
  const folder = path.join(scratch, name);
  cpSync(THEME_EXTENSION, folder, { recursive: true });
  return folder;
}

describe("theme-check on the click-capture extension", () => {
  it("finds no error in the committed extension", async () => {
    const errors = (await checkTheme(THEME_EXTENSION)).filter((o) => o.severity === Severity.ERROR);
    expect(errors.map((o) => `${o.check}: ${o.message}`)).toEqual([]);
  });

  it("refuses a block using a tag theme app extensions may not use", async () => {
    const folder = copyOfExtension("include-tag");
    const block = path.join(folder, "blocks/click-capture.liquid");
    writeFileSync(block, readFileSync(block, "utf8").replace("<script", '{% include "anything" %}<script'));
    const errors = (await checkTheme(folder)).filter((o) => o.severity === Severity.ERROR);
    expect(errors.map((o) => o.check)).toContain("AppBlockValidTags");
  });

  it("refuses a folder that is not a theme app extension", async () => {
    const folder = copyOfExtension("no-toml");
    rmSync(path.join(folder, "shopify.extension.toml"));
    await expect(checkTheme(folder)).rejects.toThrow(/not checked as a theme app extension/);
  });
});

// Shopify's Theme Check on the theme app extension, as `shopify app deploy` would judge it: the
// folder holds shopify.extension.toml, so Theme Check applies the app-extension rules (the
// tags an app block may use, its schema, the size of its JavaScript). Any error fails the
// run; warnings are printed. `npm run check:theme`, and part of `npm run lint`.
//
// Works offline: Theme Check tries to download Shopify's latest Liquid docs and falls back to
// the copy in its package; those attempts go to its log callback, which this script drops.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Severity, themeCheckRun, type Offense } from "@shopify/theme-check-node";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const THEME_EXTENSION = path.join(root, "extensions/click-capture");

export async function checkTheme(folder: string): Promise<Offense[]> {
  const run = await themeCheckRun(folder);
  if (run.config.context !== "app") {
    throw new Error(`${folder} was not checked as a theme app extension (no shopify.extension.toml?)`);
  }
  return run.offenses;
}

function describe(offense: Offense, folder: string): string {
  const file = path.relative(folder, fileURLToPath(offense.uri));
  const level =
    offense.severity === Severity.ERROR ? "error" : offense.severity === Severity.WARNING ? "warning" : "info";
  return `${file}:${offense.start.line}:${offense.start.character + 1} ${level} ${offense.check}: ${offense.message}`;
}

async function main(): Promise<void> {
  const folder = path.resolve(process.argv[2] ?? THEME_EXTENSION);
  const offenses = await checkTheme(folder);
  for (const offense of offenses) console.log(describe(offense, folder));
  const errors = offenses.filter((o) => o.severity === Severity.ERROR).length;
  console.log(
    `theme-check ${path.relative(root, folder) || "."}: ${errors} error(s), ${offenses.length - errors} other`,
  );
  if (errors > 0) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}

// Builds the click-capture theme app extension script:
//   extensions/click-capture/src/click-capture.ts -> extensions/click-capture/assets/click-capture.js
// Run with `npx tsx scripts/build-extension.ts` after changing the source (or
// app/attribution/cart-attributes.ts) and commit the asset: Shopify deploys the asset file
// itself, and tests/extension/build.test.ts fails when the committed file is not exactly
// what this script produces. `--check` exits non-zero instead of writing when they differ.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CLICK_CAPTURE_SOURCE = path.join(root, "extensions/click-capture/src/click-capture.ts");
export const CLICK_CAPTURE_ASSET = path.join(root, "extensions/click-capture/assets/click-capture.js");
/** The script runs on every storefront page: our budget, gzipped, well under Theme Check's 10 KB. */
export const CLICK_CAPTURE_GZIP_BUDGET = 2_000;

/** The exact bytes the asset must contain. Deterministic for a given esbuild version. */
export async function buildClickCapture(): Promise<Buffer> {
  const result = await build({
    entryPoints: [CLICK_CAPTURE_SOURCE],
    bundle: true,
    write: false,
    minify: true,
    format: "iife",
    platform: "browser",
    target: ["es2018"],
    charset: "ascii",
    legalComments: "none",
    sourcemap: false,
    // The IIFE is its own scope; a "use strict" prologue would only cost bytes.
    tsconfigRaw: { compilerOptions: { alwaysStrict: false } },
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no output");
  return Buffer.from(file.contents);
}

async function main() {
  const built = await buildClickCapture();
  let committed: Buffer | null = null;
  try {
    committed = readFileSync(CLICK_CAPTURE_ASSET);
  } catch {
    committed = null;
  }
  const relative = path.relative(root, CLICK_CAPTURE_ASSET);
  if (process.argv.includes("--check")) {
    if (!committed || !committed.equals(built)) {
      console.error(`${relative} is stale: run npx tsx scripts/build-extension.ts and commit it`);
      process.exit(1);
    }
    console.log(`${relative} is up to date (${built.length} bytes)`);
    return;
  }
  writeFileSync(CLICK_CAPTURE_ASSET, built);
  const gzipped = gzipSync(built).length;
  console.log(`wrote ${relative} (${built.length} bytes, ${gzipped} gzipped of a ${CLICK_CAPTURE_GZIP_BUDGET} budget)`);
  if (gzipped > CLICK_CAPTURE_GZIP_BUDGET) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

// Builds the click-capture theme app extension script:
//   extensions/click-capture/src/click-capture.ts -> extensions/click-capture/assets/click-capture.js
// and measures the web pixel's bundle (extensions/tag-guard-pixel/src/index.ts), which the
// Shopify CLI bundles itself at deploy, so nothing of it is committed; `--pixel FILE` writes it.
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

export const PIXEL_SOURCE = path.join(root, "extensions/tag-guard-pixel/src/index.ts");
/** The pixel runs in Shopify's sandbox, off the page's thread; still kept small. */
export const PIXEL_GZIP_BUDGET = 2_000;

/** The web pixel as one minified bundle, as the CLI's esbuild makes it (register inlined). */
export async function buildPixel(): Promise<Buffer> {
  const result = await build({
    entryPoints: [PIXEL_SOURCE],
    bundle: true,
    write: false,
    minify: true,
    format: "iife",
    platform: "browser",
    target: ["es2020"],
    charset: "ascii",
    legalComments: "none",
    sourcemap: false,
    tsconfigRaw: { compilerOptions: { alwaysStrict: false } },
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no output");
  return Buffer.from(file.contents);
}

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
  const pixel = await buildPixel();
  const pixelGzipped = gzipSync(pixel).length;
  console.log(`web pixel bundle: ${pixel.length} bytes, ${pixelGzipped} gzipped of a ${PIXEL_GZIP_BUDGET} budget`);
  const out = process.argv.indexOf("--pixel");
  if (out > 0 && process.argv[out + 1]) writeFileSync(process.argv[out + 1]!, pixel);
  if (pixelGzipped > PIXEL_GZIP_BUDGET) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

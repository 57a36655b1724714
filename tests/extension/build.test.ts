import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { buildClickCapture, CLICK_CAPTURE_ASSET, CLICK_CAPTURE_GZIP_BUDGET } from "../../scripts/build-extension";

// Shopify deploys assets/click-capture.js as committed, so it must be exactly what the build
// makes from src/click-capture.ts and app/attribution/cart-attributes.ts today.
describe("assets/click-capture.js", () => {
  it("is byte-identical to a fresh build (run `npx tsx scripts/build-extension.ts` and commit if not)", async () => {
    const built = await buildClickCapture();
    const committed = readFileSync(CLICK_CAPTURE_ASSET);
    expect(committed.equals(built), "assets/click-capture.js is stale: run npx tsx scripts/build-extension.ts").toBe(
      true,
    );
  });

  it("builds deterministically", async () => {
    const [a, b] = await Promise.all([buildClickCapture(), buildClickCapture()]);
    expect(a.equals(b)).toBe(true);
  });

  it("is one self-contained, minified IIFE within budget", async () => {
    const built = await buildClickCapture();
    const text = built.toString("utf8");
    expect(text.startsWith("(()=>{")).toBe(true);
    expect(text.trimEnd().endsWith("})();")).toBe(true);
    expect(text.split("\n").filter(Boolean)).toHaveLength(1);
    expect(/^[\x20-\x7e\n]*$/.test(text)).toBe(true); // ASCII only: no charset surprises on any CDN
    expect(gzipSync(built).length).toBeLessThanOrEqual(CLICK_CAPTURE_GZIP_BUDGET);
  });
});

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { adminCodegen } from "../../.graphqlrc";
import { apiVersion } from "../../app/shopify-admin/api-version";
import { DEFAULT_API_VERSION } from "../../sandbox/shopify";
import { hasAdminSchema } from "../../sandbox/shopify/schema";

// One Admin API version everywhere: the app's calls (api-version.ts), its webhook subscriptions
// (shopify.app.toml, which Shopify reads, not the code), the schema the types are generated from
// and the one the stand-in serves by default. A move to a new version that misses one fails here.
describe("the Admin API version", () => {
  it("is the same in the app, shopify.app.toml, type generation and the stand-in", () => {
    const toml = readFileSync(path.resolve(import.meta.dirname, "../../shopify.app.toml"), "utf8");
    const webhooks = /^\[webhooks\]\napi_version = "([^"]+)"$/m.exec(toml)?.[1];
    expect(webhooks).toBe(apiVersion);
    expect(DEFAULT_API_VERSION).toBe(apiVersion);
    expect(adminCodegen.schema.flatMap((entry) => Object.keys(entry))).toEqual([
      `tests/fixtures/admin-schema/admin_${apiVersion}.json.gz`,
    ]);
    expect(hasAdminSchema(apiVersion)).toBe(true);
  });
});

import { readFileSync } from "node:fs";
import path from "node:path";
import { generate } from "@graphql-codegen/cli";
import { describe, expect, it } from "vitest";
import { adminCodegen } from "../../.graphqlrc";

// app/types holds the Admin operation types generated from app/shopify-admin/documents.ts.
// They are committed, so they must be exactly what the codegen makes from today's documents
// and schema: a document edited without `npm run graphql-codegen` fails here.
describe("generated Admin GraphQL types", () => {
  it("are what npm run graphql-codegen writes today", { timeout: 120_000 }, async () => {
    // Codegen's config type knows neither function loaders nor Shopify's pluck settings,
    // though both are honoured (the CLI runs this very object).
    const config = { ...adminCodegen, silent: true } as unknown as Parameters<typeof generate>[0];
    const outputs = (await generate(config, false)) as Array<{ filename: string; content: string }>;
    expect(
      outputs.map((o) => path.relative(adminCodegen.cwd, path.resolve(adminCodegen.cwd, o.filename))).sort(),
    ).toEqual(Object.keys(adminCodegen.generates).sort());
    for (const output of outputs) {
      const committed = readFileSync(path.resolve(adminCodegen.cwd, output.filename), "utf8");
      expect(committed === output.content, `${output.filename} is stale: run npm run graphql-codegen`).toBe(true);
    }
  });
});

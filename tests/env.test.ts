import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../app/env.server";

const valid = {
  SHOPIFY_API_KEY: "key",
  SHOPIFY_API_SECRET: "secret",
  SHOPIFY_APP_URL: "https://app.example.com",
  SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64"),
};

function problems(source: Record<string, string>): string[] {
  try {
    parseEnv(source);
    return [];
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
}

describe("parseEnv", () => {
  it("accepts a complete environment and fills the defaults", () => {
    const env = parseEnv(valid);
    expect(env.SCOPES).toBe("read_orders,write_orders");
    expect(env.DATABASE_URL).toBe("file:./data/app.sqlite");
    expect(env.WORKER_ENABLED).toBe(true);
  });

  it("names every missing variable at once", () => {
    const found = problems({});
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^SHOPIFY_API_KEY /),
        expect.stringMatching(/^SHOPIFY_API_SECRET /),
        expect.stringMatching(/^SHOPIFY_APP_URL /),
        expect.stringMatching(/^SETTINGS_ENCRYPTION_KEY /),
      ]),
    );
    expect(found).toHaveLength(4);
  });

  it("names malformed values and treats blank as missing", () => {
    const found = problems({
      ...valid,
      SHOPIFY_APP_URL: "not a url",
      SETTINGS_ENCRYPTION_KEY: "c2hvcnQ=",
      WORKER_ENABLED: "maybe",
      SHOPIFY_API_KEY: "  ",
    });
    expect(found.map((problem) => problem.split(" ")[0]).sort()).toEqual([
      "SETTINGS_ENCRYPTION_KEY",
      "SHOPIFY_API_KEY",
      "SHOPIFY_APP_URL",
      "WORKER_ENABLED",
    ]);
    expect(found.join("\n")).toMatch(/32 bytes/);
  });

  it("refuses the Shopify stand-in in production", () => {
    expect(problems({ ...valid, NODE_ENV: "production", SHOPIFY_STANDIN_URL: "http://127.0.0.1:1" })).toEqual([
      expect.stringMatching(/SHOPIFY_STANDIN_URL must not be set in production/),
    ]);
  });

  it("takes a SQLite file or a PostgreSQL URL as DATABASE_URL, and names anything else", () => {
    expect(parseEnv({ ...valid, DATABASE_URL: "postgresql://tg:secret@db.internal:5432/tag_guard" }).DATABASE_URL).toBe(
      "postgresql://tg:secret@db.internal:5432/tag_guard",
    );
    expect(parseEnv({ ...valid, DATABASE_URL: "postgres://db.internal/tag_guard" }).DATABASE_URL).toBe(
      "postgres://db.internal/tag_guard",
    );
    expect(problems({ ...valid, DATABASE_URL: "mysql://db.internal/tag_guard" })).toEqual([
      expect.stringMatching(/^DATABASE_URL must be a SQLite file URL .* or a PostgreSQL URL/),
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../../app/platform/env.server";

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
    expect(env.SCOPES).toBe("read_orders,write_orders,write_pixels,read_customer_events");
    expect(env.DATABASE_URL).toBe("file:./data/app.sqlite");
    expect(env.WORKER_ENABLED).toBe(true);
    expect(env.WORKER_LEASE_MS).toBe(120_000);
  });

  it("reads the PostgreSQL pool's size as a whole number of at least one, unset by default", () => {
    expect(parseEnv(valid).DATABASE_POOL_SIZE).toBeUndefined();
    expect(parseEnv({ ...valid, DATABASE_POOL_SIZE: "12" }).DATABASE_POOL_SIZE).toBe(12);
    expect(problems({ ...valid, DATABASE_POOL_SIZE: "0" })).toEqual([expect.stringMatching(/^DATABASE_POOL_SIZE /)]);
    expect(problems({ ...valid, DATABASE_POOL_SIZE: "many" })).toEqual([expect.stringMatching(/^DATABASE_POOL_SIZE /)]);
  });

  it("reads the worker's lease length within its bounds", () => {
    expect(parseEnv({ ...valid, WORKER_LEASE_MS: "15000" }).WORKER_LEASE_MS).toBe(15_000);
    expect(problems({ ...valid, WORKER_LEASE_MS: "1000" })).toEqual([expect.stringMatching(/^WORKER_LEASE_MS /)]);
  });

  it("keeps the webhook bodies in flight at least one body at the cap", () => {
    expect(parseEnv(valid).WEBHOOK_BODY_BYTES_IN_FLIGHT).toBe(32 * 1024 * 1024);
    expect(problems({ ...valid, WEBHOOK_MAX_BODY_BYTES: "1048576", WEBHOOK_BODY_BYTES_IN_FLIGHT: "1048576" })).toEqual(
      [],
    );
    expect(problems({ ...valid, WEBHOOK_MAX_BODY_BYTES: "1048576", WEBHOOK_BODY_BYTES_IN_FLIGHT: "1048575" })).toEqual([
      expect.stringMatching(/^WEBHOOK_BODY_BYTES_IN_FLIGHT must be at least WEBHOOK_MAX_BODY_BYTES/),
    ]);
  });

  it("reads the webhook body deadline within 1 to 25 s, unset (the budget's 5 s) by default", () => {
    expect(parseEnv(valid).WEBHOOK_BODY_DEADLINE_MS).toBeUndefined();
    expect(parseEnv({ ...valid, WEBHOOK_BODY_DEADLINE_MS: "12000" }).WEBHOOK_BODY_DEADLINE_MS).toBe(12_000);
    for (const refused of ["999", "25001", "soon"])
      expect(problems({ ...valid, WEBHOOK_BODY_DEADLINE_MS: refused })).toEqual([
        expect.stringMatching(/^WEBHOOK_BODY_DEADLINE_MS /),
      ]);
  });

  it("serves metrics only when asked, on loopback unless told otherwise, and never on the public port", () => {
    expect(parseEnv(valid).METRICS_PORT).toBeUndefined();
    expect(parseEnv(valid).METRICS_HOST).toBe("127.0.0.1");
    expect(parseEnv({ ...valid, METRICS_PORT: "9464", METRICS_HOST: "::" })).toMatchObject({
      METRICS_PORT: 9464,
      METRICS_HOST: "::",
    });
    expect(problems({ ...valid, METRICS_PORT: "70000" })).toEqual([expect.stringMatching(/^METRICS_PORT /)]);
    expect(problems({ ...valid, METRICS_PORT: "3000" })).toEqual([
      expect.stringMatching(/^METRICS_PORT must differ from PORT \(3000\)/),
    ]);
    expect(problems({ ...valid, PORT: "8080", METRICS_PORT: "8080" })).toEqual([
      expect.stringMatching(/^METRICS_PORT must differ from PORT \(8080\)/),
    ]);
    expect(problems({ ...valid, PORT: "8080", METRICS_PORT: "3000" })).toEqual([]);
  });

  it("keeps serving after a stop signal only as long as SHUTDOWN_DELAY_MS says, none by default", () => {
    expect(parseEnv(valid).SHUTDOWN_DELAY_MS).toBe(0);
    expect(parseEnv({ ...valid, SHUTDOWN_DELAY_MS: "5000" }).SHUTDOWN_DELAY_MS).toBe(5_000);
    expect(problems({ ...valid, SHUTDOWN_DELAY_MS: "600000" })).toEqual([expect.stringMatching(/^SHUTDOWN_DELAY_MS /)]);
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

  it("reads the click-service origins allowed to be local, exactly, and refuses anything else", () => {
    expect(parseEnv(valid).CLICK_SERVICE_ALLOW_ORIGINS).toEqual(new Set());
    expect(
      parseEnv({ ...valid, CLICK_SERVICE_ALLOW_ORIGINS: "http://127.0.0.1:4555, http://LOCALHOST:80/" })
        .CLICK_SERVICE_ALLOW_ORIGINS,
    ).toEqual(new Set(["http://127.0.0.1:4555", "http://localhost"]));
    expect(parseEnv({ ...valid, CLICK_SERVICE_ALLOW_ORIGINS: "any-loopback" }).CLICK_SERVICE_ALLOW_ORIGINS).toBe("any");
    const found = problems({ ...valid, CLICK_SERVICE_ALLOW_ORIGINS: "http://127.0.0.1:4555/api,127.0.0.1" });
    expect(found).toEqual([
      expect.stringMatching(/^CLICK_SERVICE_ALLOW_ORIGINS "http:\/\/127.0.0.1:4555\/api" is not an origin/),
      expect.stringMatching(/^CLICK_SERVICE_ALLOW_ORIGINS "127.0.0.1" is not an origin/),
    ]);
  });

  it("refuses local click-service origins in production", () => {
    expect(problems({ ...valid, NODE_ENV: "production", CLICK_SERVICE_ALLOW_ORIGINS: "any-loopback" })).toEqual([
      expect.stringMatching(/CLICK_SERVICE_ALLOW_ORIGINS must not be set in production/),
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

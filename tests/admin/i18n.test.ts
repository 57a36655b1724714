import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hasMessage, t } from "../../app/i18n";

// Every literal key the admin passes to t() exists in app/i18n/en.json, and placeholders fill.
const ROOT = path.resolve(__dirname, "../..");
const files = [
  ...readdirSync(path.join(ROOT, "app/routes"))
    .filter((f) => f.startsWith("app.") || f === "app.tsx")
    .map((f) => `app/routes/${f}`),
  ...readdirSync(path.join(ROOT, "app/components")).map((f) => `app/components/${f}`),
];

describe("locale file", () => {
  it.each(files)("%s uses only keys that exist", (file) => {
    const source = readFileSync(path.join(ROOT, file), "utf8");
    const keys = [...source.matchAll(/\bt\("([a-zA-Z0-9_.]+)"/g)].map((m) => m[1]!);
    expect(keys.filter((key) => !hasMessage(key))).toEqual([]);
  });

  it("fills placeholders and shows a missing key as itself", () => {
    expect(t("settings.apiKeyHelpStored", { masked: "••••1234" })).toBe(
      "Current key: ••••1234. Leave blank to keep the current key.",
    );
    expect(t("settings.testUnreachable", { message: "timeout" })).toBe("Could not reach the service: timeout");
    expect(t("no.such.key")).toBe("no.such.key");
    expect(t("ledger.totalsRow", { total: "USD 1.00", count: 1 })).toBe("USD 1.00 across 1 record");
    expect(t("ledger.totalsRow", { total: "USD 2.00", count: 2 })).toBe("USD 2.00 across 2 records");
    expect(t("dashboard.recoveredFrom", { count: 1 })).toBe(
      "commission given back to the rightful creator from 1 hijacked order",
    );
    for (const outcome of [
      "matched",
      "hijacked",
      "unattributed",
      "expired",
      "failed",
      "rejected",
      "skipped",
      "invalid",
      "pending",
    ]) {
      expect(hasMessage(`outcome.${outcome}`)).toBe(true);
    }
  });
});

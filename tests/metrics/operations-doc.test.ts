import { readFileSync } from "node:fs";
import path from "node:path";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { registerQueueGauges } from "../../app/metrics/queue-gauges.server";
import { registry } from "../../app/metrics/registry.server";
import { LOG_EVENTS } from "../../app/platform/log-events";

// docs/operations.md is what an operator reads instead of the code: every metric the app exports
// and every event it logs is there, and nothing that is not.

const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/operations.md"), "utf8");
/** The first cell of each row of the doc's tables, when it is one `name`. */
const tableNames = [...doc.matchAll(/^\| `([a-z0-9_.]+)` \|/gm)].map((match) => match[1]!);

describe("docs/operations.md", () => {
  it("describes every metric the app exports, and no other", () => {
    const queue = new Registry();
    registerQueueGauges(queue, []);
    const exported = [...registry.getMetricsAsArray(), ...queue.getMetricsAsArray()].map((metric) => metric.name);
    expect(exported.length).toBeGreaterThan(10);
    const documented = tableNames.filter((name) => name.startsWith("tagguard_"));
    expect(documented.sort()).toEqual([...new Set(exported)].sort());
  });

  it("lists every log event by its name, and no other", () => {
    const documented = tableNames.filter((name) => name.includes("."));
    expect(documented.sort()).toEqual(Object.keys(LOG_EVENTS).sort());
  });
});

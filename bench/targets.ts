// What the benchmarks are held to (issue 16). A target missed is a finding for the product,
// not a reason to change the benchmark.

export interface Target {
  measure: string;
  field: string;
  label: string;
  /** The value meets the target when this holds. */
  met(value: number): boolean;
  goal: string;
  /** False for a measure no database takes part in (the storefront script): shown once, in the first column. */
  perDatabase?: boolean;
}

export const TARGETS: Target[] = [
  {
    measure: "intake",
    field: "ratio",
    label: "intake vs template route",
    met: (v) => v >= 2,
    goal: ">= 2.0 (moonshot 4.0)",
  },
  { measure: "intake", field: "p99Ms", label: "intake p99 at 300/s", met: (v) => v <= 15, goal: "<= 15 ms" },
  {
    measure: "endToEnd",
    field: "ordersPerSecond",
    label: "end to end, many shops",
    met: (v) => v >= 300,
    goal: ">= 300 orders/s (moonshot 1,000)",
  },
  { measure: "endToEnd", field: "peakRssMb", label: "peak memory", met: (v) => v <= 300, goal: "<= 300 MB, flat" },
  {
    measure: "flashSale",
    field: "verdictP99Ms",
    label: "flash sale verdict p99",
    met: (v) => v <= 10_000,
    goal: "<= 10 s (moonshot 1 s)",
  },
  {
    measure: "proxyTouches",
    field: "p99Ms",
    label: "300 touches, 10 at a time, p99",
    met: (v) => v <= 250,
    goal: "<= 250 ms",
  },
  {
    measure: "storefront",
    field: "gzipBytes",
    label: "storefront script",
    met: (v) => v <= 2_000,
    goal: "<= 2,000 B gzipped",
    perDatabase: false,
  },
  {
    measure: "storefront",
    field: "requestsWithoutParams",
    label: "requests on quiet pages",
    met: (v) => v === 0,
    goal: "0",
    perDatabase: false,
  },
  { measure: "admin", field: "dashboardP95Ms", label: "dashboard (1M orders)", met: (v) => v < 100, goal: "< 100 ms" },
  { measure: "admin", field: "ledgerP95Ms", label: "ledger (1M orders)", met: (v) => v < 100, goal: "< 100 ms" },
  {
    measure: "admin",
    field: "creatorsP95Ms",
    label: "creators page (1M orders)",
    met: (v) => v < 100,
    goal: "< 100 ms",
  },
  { measure: "admin", field: "payoutsP95Ms", label: "payouts page (1M orders)", met: (v) => v < 100, goal: "< 100 ms" },
  { measure: "admin", field: "codesP95Ms", label: "codes page (1M orders)", met: (v) => v < 100, goal: "< 100 ms" },
];

/** One column of the table: a database's results (the first column also holds the measures no database takes part in). */
export interface TargetColumn {
  title: string;
  results: Record<string, unknown>;
}

/** The targets as a table, a value and verdict per column (database), side by side. */
export function formatTargets(columns: TargetColumn[], targets: Target[]): string {
  const cell = (results: Record<string, unknown>, target: Target): [string, string] => {
    const measure = results[target.measure] as Record<string, unknown> | undefined;
    const value = measure?.[target.field];
    const shown =
      typeof value === "number" ? String(value) : measure?.error ? `error: ${String(measure.error)}` : "not run";
    return [shown, typeof value === "number" ? (target.met(value) ? "met" : "MISSED") : "-"];
  };
  const rows = targets.map((target) => [
    target.label,
    target.goal,
    ...columns.flatMap((column, i) =>
      i > 0 && target.perDatabase === false ? ["", ""] : cell(column.results, target),
    ),
  ]);
  const header = ["measure", "target", ...columns.flatMap((column) => [column.title, ""])];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((text, i) => text.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

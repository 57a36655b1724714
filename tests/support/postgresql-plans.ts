import { Prisma } from "@prisma/client";
import type { Sql } from "../../app/database/sql.server";

// PostgreSQL's plans of the app's statements, read as EXPLAIN (FORMAT JSON) gives them, for the
// admin's plan test (tests/admin/postgresql-plans.test.ts) and the admin bench.

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Alias?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
}

/** The plan of `query`, with its values bound as the app binds them (on `on`, the app's sql or a transaction). */
export async function explain(on: Sql, query: Prisma.Sql): Promise<PlanNode> {
  const [row] = await on.rows<{ "QUERY PLAN": string | { Plan: PlanNode }[] }>(
    Prisma.sql`EXPLAIN (FORMAT JSON) ${query}`,
  );
  const plan = row!["QUERY PLAN"];
  return (typeof plan === "string" ? (JSON.parse(plan) as { Plan: PlanNode }[]) : plan)[0]!.Plan;
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

const READS = /^(Seq Scan|Index Scan|Index Only Scan|Bitmap Index Scan|Bitmap Heap Scan)$/;

/** How the plan reads each table, in a line each: "Index Only Scan on Verification using ... (cond)". */
export function tableReads(plan: PlanNode): string[] {
  return nodes(plan)
    .filter((node) => READS.test(node["Node Type"]) && node["Node Type"] !== "Bitmap Heap Scan")
    .map(
      (node) =>
        `${node["Node Type"]}${node["Relation Name"] ? ` on ${node["Relation Name"]}` : ""}` +
        `${node["Index Name"] ? ` using ${node["Index Name"]}` : ""}` +
        `${node["Index Cond"] ? ` (${node["Index Cond"]})` : ""}`,
    );
}

/**
 * The reads that take a whole table: a Seq Scan, or an index walked end to end (no Index Cond:
 * every entry, whatever the shop). A Bitmap Index Scan always has its condition.
 */
export function wholeTableReads(plan: PlanNode): string[] {
  return nodes(plan)
    .filter(
      (node) =>
        node["Node Type"] === "Seq Scan" ||
        (/^Index (Only )?Scan$/.test(node["Node Type"]) && node["Index Cond"] === undefined),
    )
    .map(
      (node) =>
        `${node["Node Type"]} on ${node["Relation Name"]}${node["Index Name"] ? ` using ${node["Index Name"]}` : ""}`,
    );
}

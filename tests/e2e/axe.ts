import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";

// axe-core's own engine, read from the installed package and run inside the page, so the
// check needs no network and sees the DOM and computed styles the merchant's browser has.

const AXE_SOURCE = readFileSync(path.resolve(__dirname, "../../node_modules/axe-core/axe.min.js"), "utf8");

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Every violation axe finds on the page as it is now, most serious first. */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const findings = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe;
    const results = await axe.run(document, { resultTypes: ["violations"] });
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(" ")),
    }));
  });
  const rank = (impact: string | null) => ["critical", "serious", "moderate", "minor"].indexOf(impact ?? "minor");
  return findings.sort((a, b) => rank(a.impact) - rank(b.impact));
}

interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}

/** The serious and critical ones: what keeps someone from using the page at all. */
export async function blockingViolations(page: Page): Promise<AxeFinding[]> {
  return (await axeViolations(page)).filter((finding) => finding.impact === "serious" || finding.impact === "critical");
}

/** For a failure message: one line per violation with the elements it was found on. */
export function describeViolations(findings: AxeFinding[]): string {
  return findings.map((f) => `${f.impact} ${f.id}: ${f.help}\n    ${f.targets.slice(0, 5).join("\n    ")}`).join("\n");
}

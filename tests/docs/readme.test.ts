import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// README.md is what a newcomer reads first, to the end: it stays short, its folder table names
// every folder directly under app/ and no other, every docs/ path it gives exists, and its index
// of docs/ lists every doc there (the decisions and the lab notes as folders), with the numbers
// the decisions skipped named so that nobody looks for them.

const ROOT = path.resolve(import.meta.dirname, "../..");
const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");

const MAX_LINES = 250;

/** Lines as `wc -l` counts them. */
function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** The folders the README's tables give a row of their own under app/: `| \`app/name/\` |`. */
function tableFolders(text: string): string[] {
  return [...text.matchAll(/^\| `app\/([^`/]+)\/` \|/gm)].map((match) => match[1]!).sort();
}

/** Every docs/ path the README names, as a link target or in code, without its #anchor. */
function docsPaths(text: string): string[] {
  const paths = [...text.matchAll(/(?<![\w/.-])docs\/[^\s()[\]`#'",:]*/g)].map((match) => match[0].replace(/[.]$/, ""));
  return [...new Set(paths)].sort();
}

/** The README's index of docs/: the list under its "## Docs" heading. */
function docsIndex(text: string): string {
  const start = text.search(/^## Docs$/m);
  if (start === -1) return "";
  const rest = text.slice(start + "## Docs".length);
  const next = rest.search(/^## /m);
  return next === -1 ? rest : rest.slice(0, next);
}

/** Entries the index must have: each file directly under docs/, each folder there with a slash. */
function docsEntries(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .map((entry) => `docs/${entry.name}${entry.isDirectory() ? "/" : ""}`)
    .sort();
}

/** Entries missing from the index: a file as a link to it, a folder by its name in brackets. */
function missingFromIndex(index: string, entries: string[]): string[] {
  return entries.filter((entry) =>
    entry.endsWith("/") ? !index.includes(`[${entry}]`) : !index.includes(`](${entry})`),
  );
}

/** The decision numbers from 000 to the highest that have no record. */
function skippedDecisions(files: string[]): string[] {
  const taken = new Set(files.map((file) => /^(\d{3})-/.exec(file)?.[1]).filter((n): n is string => n !== undefined));
  const highest = Math.max(...[...taken].map(Number));
  return Array.from({ length: highest + 1 }, (_, n) => String(n).padStart(3, "0")).filter((n) => !taken.has(n));
}

/** The numbers the index's decisions line says do not exist: "no 031". */
function namedGaps(index: string): string[] {
  const line = index.split("\n").find((entry) => entry.includes("[docs/decisions/]")) ?? "";
  return [...line.matchAll(/\bno (\d{3})\b/g)].map((match) => match[1]!).sort();
}

function appFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

describe("README.md", () => {
  it(`is at most ${MAX_LINES} lines`, () => {
    expect(lineCount(readme)).toBeLessThanOrEqual(MAX_LINES);
  });

  it("states the test command", () => {
    expect(readme).toContain("npm test");
    expect(readme).toContain("bash .ci/run");
  });

  it("has one row for every folder directly under app/, and for no other", () => {
    expect(tableFolders(readme)).toEqual(appFolders(path.join(ROOT, "app")));
  });

  it("names only docs/ paths that exist", () => {
    const paths = docsPaths(readme);
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((docsPath) => !existsSync(path.join(ROOT, docsPath)))).toEqual([]);
  });

  it("indexes every doc directly under docs/, and docs/decisions/ and docs/lab/ as folders", () => {
    const entries = docsEntries(path.join(ROOT, "docs"));
    expect(entries).toEqual(expect.arrayContaining(["docs/decisions/", "docs/lab/"]));
    expect(missingFromIndex(docsIndex(readme), entries)).toEqual([]);
  });

  it("names the decision numbers that have no record, and only those", () => {
    const gaps = skippedDecisions(readdirSync(path.join(ROOT, "docs/decisions")));
    expect(namedGaps(docsIndex(readme))).toEqual(gaps);
  });
});

// Each check above, shown to fail on the README it is there to catch.
describe("README.md checks", () => {
  const table = "| folder | what it holds |\n|---|---|\n| `app/queue/` | jobs |\n| `app/routes/` | routes |\n";

  it("count lines as wc -l does", () => {
    expect(lineCount("a\nb\n")).toBe(2);
    expect(lineCount(`${"line\n".repeat(MAX_LINES + 1)}`)).toBeGreaterThan(MAX_LINES);
  });

  it("see a folder added to app/, or one removed, as a difference", () => {
    expect(tableFolders(table)).toEqual(["queue", "routes"]);
    expect(tableFolders(table)).not.toEqual(["queue", "routes", "worker"]);
    expect(tableFolders(table)).not.toEqual(["routes"]);
  });

  it("find a docs/ path that does not exist", () => {
    const text = "See [docs/gone.md](docs/gone.md#a-part) and `docs/lab/notes.md`.";
    expect(docsPaths(text)).toEqual(["docs/gone.md", "docs/lab/notes.md"]);
  });

  it("find a doc, or a folder, the index leaves out", () => {
    const index = docsIndex("# T\n\n## Docs\n\n- [docs/a.md](docs/a.md): a.\n- [docs/lab/](docs/lab/x.md): notes.\n");
    expect(missingFromIndex(index, ["docs/a.md", "docs/b.md", "docs/decisions/", "docs/lab/"])).toEqual([
      "docs/b.md",
      "docs/decisions/",
    ]);
  });

  it("find a skipped decision number the index does not name", () => {
    expect(skippedDecisions(["000-template.md", "001-a.md", "003-c.md", "README.md"])).toEqual(["002"]);
    expect(namedGaps("- [docs/decisions/](docs/decisions/README.md): records. There is no 031 and no 039.")).toEqual([
      "031",
      "039",
    ]);
  });
});

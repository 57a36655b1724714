import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

// Folders under app/ import one way: no folder reaches itself again through imports, however
// long the way round. A module directly in app/ (shopify.server.ts, root.tsx) counts as a
// folder of its own. Every
// import counts, type-only ones included: they tie the code as tightly. TypeScript's own
// scanner reads them (import, export ... from, import(), require).

const APP = path.resolve(import.meta.dirname, "../../app");

interface Edge {
  from: string;
  to: string;
  /** One import that makes it, as "app/a/x.ts imports app/b/y.ts". */
  example: string;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const file = path.join(folder, name);
      if (statSync(file).isDirectory()) return sourceFiles(file);
      return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [file] : [];
    });
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")];
  return candidates.find((file) => statSync(file, { throwIfNoEntry: false })?.isFile());
}

/** The folders (and top-level modules) of `root` and which import which. */
export function folderImports(root: string): Edge[] {
  const unitOf = (file: string) => path.relative(root, file).split(path.sep)[0]!;
  const label = (file: string) => path.join(path.basename(root), path.relative(root, file));
  const edges = new Map<string, Edge>();
  for (const file of sourceFiles(root)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      const target = resolveImport(file, fileName);
      if (!target || path.relative(root, target).startsWith("..")) continue;
      const [from, to] = [unitOf(file), unitOf(target)];
      if (from === to || edges.has(`${from}\n${to}`)) continue;
      edges.set(`${from}\n${to}`, { from, to, example: `${label(file)} imports ${label(target)}` });
    }
  }
  return [...edges.values()];
}

/**
 * Every ring of folders, of any length: each strongly connected set of two or more (Tarjan's
 * algorithm), as the imports that close it, one per edge of a cycle through all of them.
 */
export function importRings(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (unit: string) => {
    index.set(unit, index.size);
    low.set(unit, index.get(unit)!);
    stack.push(unit);
    onStack.add(unit);
    for (const to of next.get(unit) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(unit, Math.min(low.get(unit)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(unit, Math.min(low.get(unit)!, index.get(to)!));
    }
    if (low.get(unit) !== index.get(unit)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== unit);
    if (component.length > 1) components.push(component.sort());
  };
  for (const unit of [...new Set(edges.flatMap((edge) => [edge.from, edge.to]))].sort())
    if (!index.has(unit)) visit(unit);
  return components.map((component) => ringThrough(component, edges));
}

/** One cycle through the component's first unit, as the imports along it. */
function ringThrough(component: string[], edges: Edge[]): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  // Breadth-first from start back to start, inside the component: the shortest cycle.
  const cameBy = new Map<string, Edge>();
  const queue = [start];
  while (queue.length > 0) {
    const unit = queue.shift()!;
    for (const edge of edges.filter((e) => e.from === unit && inside.has(e.to))) {
      if (edge.to === start) {
        const ring = [edge.example];
        for (let at = unit; at !== start; at = cameBy.get(at)!.from) ring.unshift(cameBy.get(at)!.example);
        return ring;
      }
      if (!cameBy.has(edge.to)) {
        cameBy.set(edge.to, edge);
        queue.push(edge.to);
      }
    }
  }
  return component;
}

describe("folders under app/ import one way", () => {
  it("no folder reaches itself again through imports", () => {
    const rings = importRings(folderImports(APP));
    expect(rings.map((ring) => ring.join(", and "))).toEqual([]);
  });

  describe("the check itself", () => {
    const scratch = mkdtempSync(path.join(tmpdir(), "folder-imports-"));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    function tree(name: string, files: Record<string, string>): string {
      const root = path.join(scratch, name, "app");
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        writeFileSync(path.join(root, file), text);
      }
      return root;
    }

    it("names both files of a two-folder ring, type-only imports included", () => {
      const root = tree("pair", {
        "settings/save.server.ts": `import { tagOrder } from "../verification/tag";\nexport const save = tagOrder;`,
        "verification/tag.ts": `import type { Saved } from "../settings/save.server";\nexport const tagOrder = 1;`,
      });
      expect(importRings(folderImports(root))).toEqual([
        [
          "app/settings/save.server.ts imports app/verification/tag.ts",
          "app/verification/tag.ts imports app/settings/save.server.ts",
        ],
      ]);
    });

    it("finds a ring with a top-level module, through re-exports and import()", () => {
      const root = tree("top-level", {
        "a/one.ts": `export * from "../shop.server";`,
        "shop.server.ts": `export const x = import("./a/one");`,
      });
      expect(importRings(folderImports(root))).toEqual([
        ["app/a/one.ts imports app/shop.server.ts", "app/shop.server.ts imports app/a/one.ts"],
      ]);
    });

    it("finds a ring of three folders", () => {
      const root = tree("three", {
        "landing/journey.ts": `import { w } from "../webhooks/read";\nexport const j = w;`,
        "webhooks/read.ts": `import { s } from "../shopify.server";\nexport const w = s;`,
        "shopify.server.ts": `import { j } from "./landing/journey";\nexport const s = j;`,
      });
      expect(importRings(folderImports(root))).toEqual([
        [
          "app/landing/journey.ts imports app/webhooks/read.ts",
          "app/webhooks/read.ts imports app/shopify.server.ts",
          "app/shopify.server.ts imports app/landing/journey.ts",
        ],
      ]);
    });

    it("accepts imports that only go one way", () => {
      const root = tree("clean", {
        "routes/page.tsx": `import { q } from "../dashboard/q.server";\nimport { m } from "../units/money";`,
        "dashboard/q.server.ts": `import { m } from "../units/money";\nimport ts from "typescript";\nexport const q = m;`,
        "units/money.ts": `export const m = 1;`,
      });
      expect(folderImports(root).map((e) => `${e.from}->${e.to}`)).toEqual(
        expect.arrayContaining(["routes->dashboard", "routes->units", "dashboard->units"]),
      );
      expect(importRings(folderImports(root))).toEqual([]);
    });
  });
});

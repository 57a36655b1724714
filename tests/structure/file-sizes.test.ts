import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// Files a person reads in one sitting: no source file under app/ over 400 lines, and no route
// (app/routes) over 200, since a route only authenticates, parses, calls one module and lays out
// its page; forms, tables, cards and dialogs live in app/components and the work in the folder's
// modules. The generated Admin GraphQL types (app/types) are never read by a person and are left
// out, as are the message catalogues (app/i18n/locales/), which is data, looked up by key.

const APP = path.resolve(import.meta.dirname, "../../app");
export const MAX_LINES = 400;
export const MAX_ROUTE_LINES = 200;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const file = path.join(folder, name);
      if (statSync(file).isDirectory()) return sourceFiles(file);
      return /\.tsx?$/.test(name) ? [file] : [];
    });
}

/** Lines as an editor numbers them: a final newline ends the last line, it does not start another. */
function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Each file over its limit, as "app/x/y.ts: 412 lines (at most 400)". */
export function oversizedFiles(root: string): string[] {
  const label = (file: string) => path.join(path.basename(root), path.relative(root, file));
  return sourceFiles(root).flatMap((file) => {
    const relative = path.relative(root, file).split(path.sep);
    if (relative[0] === "types") return [];
    const limit = relative[0] === "routes" ? MAX_ROUTE_LINES : MAX_LINES;
    const lines = lineCount(readFileSync(file, "utf8"));
    return lines > limit ? [`${label(file)}: ${lines} lines (at most ${limit})`] : [];
  });
}

describe("files under app/ are read in one sitting", () => {
  it(`no source file over ${MAX_LINES} lines, no route over ${MAX_ROUTE_LINES}`, () => {
    expect(oversizedFiles(APP)).toEqual([]);
  });

  describe("the check itself", () => {
    const scratch = mkdtempSync(path.join(tmpdir(), "file-sizes-"));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    const lines = (count: number) => Array.from({ length: count }, (_, i) => `export const x${i} = ${i};\n`).join("");

    function tree(name: string, files: Record<string, string>): string {
      const root = path.join(scratch, name, "app");
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        writeFileSync(path.join(root, file), text);
      }
      return root;
    }

    it("names each file over its limit, a route at 200 and any other module at 400", () => {
      const root = tree("over", {
        "routes/app.big.tsx": lines(201),
        "routes/app.fits.tsx": lines(200),
        "commissions/big.server.ts": lines(401),
        "commissions/fits.server.ts": lines(400),
        "components/Wide.tsx": lines(250),
      });
      expect(oversizedFiles(root)).toEqual([
        "app/commissions/big.server.ts: 401 lines (at most 400)",
        "app/routes/app.big.tsx: 201 lines (at most 200)",
      ]);
    });

    it("leaves out the generated types and anything that is not TypeScript", () => {
      const root = tree("generated", {
        "types/admin.generated.d.ts": lines(5_000),
        "i18n/locales/en.json": lines(900),
        "units/money.ts": `${lines(10)}// no final newline`,
      });
      expect(oversizedFiles(root)).toEqual([]);
    });
  });
});

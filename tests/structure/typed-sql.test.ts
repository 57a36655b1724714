import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Prisma } from "@prisma/client";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

// SQL the compiler checks (decision 038): outside app/database/, a statement names its tables
// and columns through app/database/tables.ts, never as quoted text, and no file chooses between
// SQLite and PostgreSQL. The last test renames a column in a scratch copy of the schema and
// sees the type check fail at every statement that names it.

const ROOT = path.resolve(import.meta.dirname, "../..");
const APP = path.join(ROOT, "app");

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [file] : [];
  });
}

const outsideDatabase = sourceFiles(APP).filter(
  (file) => !file.startsWith(path.join(APP, "database") + path.sep) && !file.startsWith(path.join(APP, "types")),
);
const relative = (file: string) => path.relative(ROOT, file);

const NAMES = new Set(
  Object.values(Prisma.ModelName).flatMap((model) => [
    model,
    ...Object.keys((Prisma as unknown as Record<string, Record<string, string>>)[`${model}ScalarFieldEnum`]!),
  ]),
);

/** Quoted table or column names in the literal text of a file's Prisma.sql templates (an alias after AS aside). */
function quotedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === "Prisma.sql") {
      const template = node.template;
      const parts = ts.isNoSubstitutionTemplateLiteral(template)
        ? [template]
        : [template.head, ...template.templateSpans.map((span) => span.literal)];
      for (const part of parts) {
        for (const match of part.getText(source).matchAll(/(\bAS\s+)?"([A-Za-z_]\w*)"/gi)) {
          if (match[1] || !NAMES.has(match[2]!)) continue;
          const line = source.getLineAndCharacterOfPosition(part.getStart(source) + match.index).line + 1;
          found.push(`${relative(file)}:${line} "${match[2]}"`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("SQL the compiler checks", () => {
  it("outside app/database/, statements name tables and columns through tables.ts", () => {
    expect(outsideDatabase.flatMap(quotedNames)).toEqual([]);
  });

  it("finds a quoted name where one is written", () => {
    const scratch = mkdtempSync(path.join(tmpdir(), "typed-sql-"));
    const file = path.join(scratch, "statement.ts");
    writeFileSync(file, 'const q = Prisma.sql`SELECT "clickId" AS "seen" FROM "Verification"`;\n');
    expect(quotedNames(file)).toEqual([`${relative(file)}:1 "clickId"`, `${relative(file)}:1 "Verification"`]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it("only app/database/ tells SQLite and PostgreSQL apart", () => {
    const choosing = outsideDatabase.filter((file) =>
      /import\s*\{[^}]*\bdialect\b[^}]*\}\s*from\s*"[^"]*database\/db\.server"/.test(readFileSync(file, "utf8")),
    );
    expect(choosing.map(relative)).toEqual([]);
  });
});

describe("a column renamed in the schema", { timeout: 300_000 }, () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "renamed-column-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("fails the type check at every statement that names it", () => {
    // A copy of the project's sources and schema, with LandingTouch.cartToken renamed.
    for (const entry of ["app", "prisma", "prisma.config.ts", "tsconfig.json", "env.d.ts", "package.json"])
      cpSync(path.join(ROOT, entry), path.join(scratch, entry), { recursive: true });
    const schema = path.join(scratch, "prisma/schema.prisma");
    const text = readFileSync(schema, "utf8");
    const renamed = text.replace(/(model LandingTouch \{[\s\S]*?)\bcartToken\b/, "$1cartKey");
    expect(renamed).not.toBe(text);
    writeFileSync(schema, renamed.replaceAll("[shop, cartToken", "[shop, cartKey"));
    // Its own generated client; every other package is the project's own.
    const modules = path.join(scratch, "node_modules");
    mkdirSync(modules);
    for (const name of readdirSync(path.join(ROOT, "node_modules"))) {
      if (name === ".prisma" || name === "@prisma") continue;
      symlinkSync(path.join(ROOT, "node_modules", name), path.join(modules, name));
    }
    cpSync(path.join(ROOT, "node_modules/@prisma"), path.join(modules, "@prisma"), {
      recursive: true,
      dereference: true,
    });
    const generated = spawnSync(
      process.execPath,
      [path.join(ROOT, "node_modules/prisma/build/index.js"), "generate", "--schema", "prisma/schema.prisma"],
      { cwd: scratch, env: { ...process.env, DATABASE_URL: "file:./data/app.sqlite" }, encoding: "utf8" },
    );
    expect(generated.status, generated.stderr).toBe(0);

    // Where the statements of the real sources name the column.
    const expected = sourceFiles(APP)
      .filter((file) => !file.startsWith(path.join(APP, "types")))
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .flatMap((line, index) =>
            /LandingTouch\w*\.cartToken\b|LandingTouch\w*\.columns\([^)]*"cartToken"/.test(line)
              ? [`${relative(file)}(${index + 1}`]
              : [],
          ),
      );
    expect(expected.length).toBeGreaterThanOrEqual(4);

    const checked = spawnSync(
      process.execPath,
      [path.join(ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", "."],
      {
        cwd: scratch,
        encoding: "utf8",
      },
    );
    expect(checked.status).not.toBe(0);
    const errors = checked.stdout.split("\n").filter((line) => line.includes("error TS"));
    for (const place of expected)
      expect(
        errors.some((error) => error.startsWith(place)),
        place,
      ).toBe(true);
  });
});

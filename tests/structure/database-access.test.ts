import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// One way to the database: only app/database/ imports a database driver or a Prisma driver
// adapter, and only its prisma-internals.server.ts reaches the parts of Prisma its packages do
// not promise (decision 024).

const APP = path.resolve(import.meta.dirname, "../../app");
const DRIVERS = /^(better-sqlite3|pg|@prisma\/adapter-[\w-]+)(\/|$)/;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [file] : [];
  });
}

const relative = (file: string) => path.relative(path.dirname(APP), file);

describe("the database is reached one way", () => {
  it("only app/database/ imports a driver or a driver adapter", () => {
    const outside = sourceFiles(APP)
      .filter((file) => !file.startsWith(path.join(APP, "database") + path.sep))
      .flatMap((file) =>
        ts
          .preProcessFile(readFileSync(file, "utf8"), true, true)
          .importedFiles.filter(({ fileName }) => DRIVERS.test(fileName))
          .map(({ fileName }) => `${relative(file)} imports ${fileName}`),
      );
    expect(outside).toEqual([]);
  });

  it("every interactive transaction runs its body in the transaction scope (db.server's transaction)", () => {
    const direct = sourceFiles(APP)
      .filter((file) => !file.startsWith(path.join(APP, "database") + path.sep))
      .filter((file) => /\$transaction\(\s*(async\b|\(|\w+\s*=>)/.test(readFileSync(file, "utf8")))
      .map(relative);
    expect(direct).toEqual([]);
  });

  it("only prisma-internals.server.ts reads Prisma.dmmf or an adapter's connection", () => {
    const internals = path.join(APP, "database", "prisma-internals.server.ts");
    const reaching = sourceFiles(APP)
      .filter((file) => file !== internals)
      .filter((file) =>
        /Prisma\.dmmf|\.client\.prepare|\{\s*client\??:|rowToSession|Prisma\.empty\.constructor/.test(
          readFileSync(file, "utf8"),
        ),
      )
      .map(relative);
    expect(reaching).toEqual([]);
  });
});

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// One way to the database (decision 026): only app/database/ imports a database driver or a
// Prisma driver adapter, the rest of the app runs its statements through sql.server.ts, and
// only prisma-internals.server.ts reaches the parts of Prisma its packages do not promise
// (decision 024).

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

// What db.server.ts offers the rest of the app: the dialect and its time values, how to
// recognise a duplicate, and the instance's start and end (the checkpoint thread, closing the
// connections). Its client (databaseClient) serves sql.server.ts, the tests and the tools.
const FROM_DB_SERVER = new Set([
  "dialect",
  "sqlTime",
  "isUniqueViolation",
  "startDatabaseCheckpoints",
  "closeDatabase",
]);
const CLIENT_METHOD = /^\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe|transaction)$/;
const MODEL_METHOD =
  /^(findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|create|createMany|update|updateMany|upsert|delete|deleteMany|count|aggregate|groupBy)$/;

function clientUses(file: string): string[] {
  return clientUsesIn(file, readFileSync(file, "utf8"));
}

/** The ways a source reaches the Prisma client: importing it, a model call, or a raw call through it. */
function clientUsesIn(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const uses: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && !node.importClause?.isTypeOnly) {
      const from = node.moduleSpecifier.text;
      const clause = node.importClause;
      const named =
        clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : [];
      if (/database\/db\.server$/.test(from)) {
        for (const element of named)
          if (!element.isTypeOnly && !FROM_DB_SERVER.has(element.name.text))
            uses.push(`imports ${element.name.text} from ${from}`);
      }
      if (from === "@prisma/client")
        for (const element of named)
          if (!element.isTypeOnly && element.name.text === "PrismaClient")
            uses.push(`imports PrismaClient from ${from}`);
    }
    // A raw call through the client is a tagged template as often as a call: prisma.$queryRaw`...`.
    if (
      ts.isTaggedTemplateExpression(node) &&
      ts.isPropertyAccessExpression(node.tag) &&
      CLIENT_METHOD.test(node.tag.name.text)
    )
      uses.push(`calls ${node.tag.getText()}`);
    if (ts.isPropertyAccessExpression(node) && ts.isCallExpression(node.parent) && node.parent.expression === node) {
      const method = node.name.text;
      const target = node.expression;
      if (CLIENT_METHOD.test(method)) uses.push(`calls ${target.getText()}.${method}`);
      else if (
        MODEL_METHOD.test(method) &&
        ts.isPropertyAccessExpression(target) &&
        /^(prisma|tx|db|client)$/.test(target.expression.getText())
      )
        uses.push(`calls ${target.getText()}.${method}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

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

  it("outside app/database/, the app runs its statements through sql.server.ts, never the Prisma client", () => {
    const reaching = sourceFiles(APP)
      .filter((file) => !file.startsWith(path.join(APP, "database") + path.sep))
      .flatMap((file) => clientUses(file).map((use) => `${relative(file)}: ${use}`));
    expect(reaching).toEqual([]);
  });

  it("sees a model call, a raw call through the client and an import of the client", () => {
    const uses = clientUsesIn(
      "app/x.server.ts",
      `import { databaseClient, dialect } from "./database/db.server";
       const prisma = databaseClient();
       import { PrismaClient } from "@prisma/client";
       await prisma.payout.findMany();
       await prisma.$queryRaw\`SELECT 1\`;`,
    );
    expect(uses).toEqual([
      "imports databaseClient from ./database/db.server",
      "imports PrismaClient from @prisma/client",
      "calls prisma.payout.findMany",
      "calls prisma.$queryRaw",
    ]);
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

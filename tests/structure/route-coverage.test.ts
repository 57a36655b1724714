import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { SERVES_THE_BUILD } from "../support/test-projects";

// Every loader and action under app/routes is called through the production server by some
// test, which checks its success answer (tests/support/route-coverage.ts: coversRoute makes the
// call and checks the answer at run time). This reads the route modules and the tests as
// written: each exported loader and action must be named by a coversRoute call that imports the
// helper, stands in a suite of the "build" project (the suites that start the built server),
// and is not skipped; a call naming a route or function that does not exist fails too. A call
// handed to expect() (expected to throw) covers nothing.

const ROOT = path.resolve(import.meta.dirname, "../..");
const ROUTES = path.join(ROOT, "app/routes");
const TESTS = path.join(ROOT, "tests");
const HELPER = path.join(TESTS, "support/route-coverage.ts");
const FUNCTIONS = ["loader", "action"] as const;

interface Covered {
  route: string;
  fn: string;
  /** "tests/x.test.ts:12" */
  at: string;
}

/** Remix's flat routes: a module in app/routes, or a folder there with its route module. */
function routeModules(): { id: string; file: string }[] {
  return readdirSync(ROUTES)
    .sort()
    .flatMap((name) => {
      const file = path.join(ROUTES, name);
      if (statSync(file).isDirectory()) {
        const inside = ["route.tsx", "route.ts"].map((each) => path.join(file, each)).find((each) => existsSync(each));
        return inside ? [{ id: `routes/${name}`, file: inside }] : [];
      }
      return /\.tsx?$/.test(name) ? [{ id: `routes/${name.replace(/\.tsx?$/, "")}`, file }] : [];
    });
}

/** The loader and action a route module exports, however it exports them. */
export function exportedFunctions(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found = new Set<string>();
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && exported(statement) && statement.name) found.add(statement.name.text);
    if (ts.isVariableStatement(statement) && exported(statement))
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) found.add(declaration.name.text);
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause))
      for (const element of statement.exportClause.elements) found.add(element.name.text);
  }
  return FUNCTIONS.filter((fn) => found.has(fn));
}

function testSources(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const file = path.join(folder, name);
      if (statSync(file).isDirectory()) return testSources(file);
      return /\.tsx?$/.test(name) ? [file] : [];
    });
}

/** Whether the build project runs `file` (the suites that start the built server). */
const servesTheBuild = (file: string) =>
  SERVES_THE_BUILD.some((pattern) => path.matchesGlob(path.relative(ROOT, file), pattern));

/** A test callback that does not run: it.skip, describe.todo, it.skipIf(...), ... */
function skipped(call: ts.CallExpression): boolean {
  let callee: ts.Expression = call.expression;
  if (ts.isCallExpression(callee)) callee = callee.expression; // it.skipIf(cond)(...)
  return ts.isPropertyAccessExpression(callee) && /^(skip|todo|skipIf|runIf)$/.test(callee.name.text);
}

/**
 * The coversRoute calls in a test source that count: the helper imported from
 * tests/support/route-coverage.ts, the route and function written as strings, in no skipped test.
 * Calls that do not count are returned as problems.
 */
export function coveringCalls(fileName: string, text: string): { covered: Covered[]; problems: string[] } {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const where = (node: ts.Node) =>
    `${path.relative(ROOT, fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const imported = source.statements.some(
    (statement) =>
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      path.resolve(path.dirname(fileName), `${statement.moduleSpecifier.text}.ts`) === HELPER &&
      statement.importClause?.namedBindings &&
      ts.isNamedImports(statement.importClause.namedBindings) &&
      statement.importClause.namedBindings.elements.some(
        (element) => element.name.text === "coversRoute" && !element.propertyName,
      ),
  );
  const covered: Covered[] = [];
  const problems: string[] = [];
  const visit = (node: ts.Node, inSkipped: boolean, inExpect: boolean) => {
    if (ts.isCallExpression(node)) {
      // A call handed to expect() is one expected to fail (coversRoute's own test): not a call of the route.
      if (ts.isIdentifier(node.expression) && node.expression.text === "coversRoute" && !inExpect) {
        const [, route, fn] = node.arguments;
        const literal = (arg: ts.Expression | undefined) =>
          arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) ? arg.text : null;
        const at = where(node);
        if (!imported) problems.push(`${at}: coversRoute is not the one tests/support/route-coverage.ts exports`);
        else if (literal(route) === null || literal(fn) === null)
          problems.push(`${at}: the route and the function must be written as strings`);
        else if (inSkipped) problems.push(`${at}: in a test that is skipped`);
        else covered.push({ route: literal(route)!, fn: literal(fn)!, at });
      }
      inSkipped ||= skipped(node);
      inExpect ||= ts.isIdentifier(node.expression) && node.expression.text === "expect";
    }
    ts.forEachChild(node, (child) => visit(child, inSkipped, inExpect));
  };
  visit(source, false, false);
  return { covered, problems };
}

describe("every route's loader and action through the production server", () => {
  const routes = routeModules();
  const required = routes.flatMap(({ id, file }) =>
    exportedFunctions(file, readFileSync(file, "utf8")).map((fn) => `${id} ${fn}`),
  );
  const calls = testSources(TESTS)
    .filter((file) => file !== HELPER)
    .map((file) => ({ file, text: readFileSync(file, "utf8") }))
    .filter(({ text }) => text.includes("coversRoute"))
    .map(({ file, text }) => ({ file, ...coveringCalls(file, text) }));

  it("reads the route modules: Check now's action among them", () => {
    expect(routes.length).toBeGreaterThan(10);
    expect(required).toContain("routes/app.reconcile action");
    expect(required).toContain("routes/healthz loader");
  });

  it("has each loader and action called by a test of the build project, through coversRoute", () => {
    const problems = calls.flatMap(({ problems }) => problems);
    for (const { file, covered } of calls)
      if (covered.length > 0 && !servesTheBuild(file))
        problems.push(
          `${path.relative(ROOT, file)}: not a suite of the build project (tests/support/test-projects.ts)`,
        );
    const counted = new Set(
      calls
        .filter(({ file }) => servesTheBuild(file))
        .flatMap(({ covered }) => covered.map((c) => `${c.route} ${c.fn}`)),
    );
    const uncovered = required.filter((each) => !counted.has(each)).map((each) => `${each}: no test calls it`);
    const unknown = calls
      .flatMap(({ covered }) => covered)
      .filter((c) => !required.includes(`${c.route} ${c.fn}`))
      .map((c) => `${c.at}: ${c.route} has no ${c.fn}`);
    expect([...uncovered, ...unknown, ...problems]).toEqual([]);
  });

  it("counts only calls that run, of the helper, with the route written out", () => {
    const file = path.join(TESTS, "server/example.test.ts");
    const header = `import { coversRoute } from "../support/route-coverage";\n`;
    const call = (route: string) => `coversRoute(app, ${route}, "action", { path: "/" }, { status: 200 });`;
    expect(coveringCalls(file, `${header}it("x", async () => { await ${call('"routes/app.reconcile"')} });`)).toEqual({
      covered: [{ route: "routes/app.reconcile", fn: "action", at: "tests/server/example.test.ts:2" }],
      problems: [],
    });
    expect(coveringCalls(file, `${header}it.skip("x", async () => { await ${call('"routes/a"')} });`).problems).toEqual(
      ["tests/server/example.test.ts:2: in a test that is skipped"],
    );
    expect(coveringCalls(file, `${header}describe.skipIf(true)("x", () => { ${call("id")} });`).problems).toEqual([
      "tests/server/example.test.ts:2: the route and the function must be written as strings",
    ]);
    expect(coveringCalls(file, `${header}await expect(${call('"routes/a"')}).rejects.toThrow();`)).toEqual({
      covered: [],
      problems: [],
    });
    expect(coveringCalls(file, `const coversRoute = () => {};\n${call('"routes/a"')}`).problems).toEqual([
      "tests/server/example.test.ts:2: coversRoute is not the one tests/support/route-coverage.ts exports",
    ]);
    expect(servesTheBuild(file)).toBe(true);
    expect(servesTheBuild(path.join(TESTS, "admin/reconcile.test.ts"))).toBe(false);
    expect(
      exportedFunctions("x.tsx", "const loader = () => null;\nexport { loader };\nexport async function action() {}"),
    ).toEqual(["loader", "action"]);
  });
});

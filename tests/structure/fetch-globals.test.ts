import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { installGlobals } from "@remix-run/node";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The production server (server.mjs) installs Remix's fetch globals before it serves: with single
// fetch off, Response, Request, Headers, FormData, File and fetch are @remix-run/web-fetch's, not
// Node's. Tests call routes under Node's own, so a route that uses what only Node's offer passes
// every test and fails for every merchant ("Check now" answered 500: Response.json is not a
// function). What the server's globals lack is read from the two sets themselves, not listed by
// hand, and the app's server code may use none of it; nor the global fetch, which under them
// leaves through Node's http module, past undici's dispatcher (the Shopify stand-in's routing,
// and any other the app sets): server code fetches through undici, which it imports.

const APP = path.resolve(import.meta.dirname, "../../app");

const NATIVE = { Response, Request, Headers, FormData, File } as const;
type FetchClass = keyof typeof NATIVE;

/** The classes server.mjs installs (installGlobals, single fetch off), read and then put back. */
const REMIX = (() => {
  const nativeFetch = globalThis.fetch;
  installGlobals({ nativeFetch: false });
  const installed = Object.fromEntries(Object.keys(NATIVE).map((name) => [name, globalThis[name as FetchClass]]));
  Object.assign(globalThis, NATIVE, { fetch: nativeFetch });
  return installed as Record<FetchClass, object>;
})();

/** Every property name along a prototype chain, short of Object's and Function's own. */
function names(of: object): Set<string> {
  const found = new Set<string>();
  for (
    let at: object | null = of;
    at && at !== Object.prototype && at !== Function.prototype;
    at = Object.getPrototypeOf(at)
  )
    for (const name of Object.getOwnPropertyNames(at)) found.add(name);
  return found;
}

/** "Response.json", ...: the static methods Node's classes have and Remix's lack. */
function missingStatics(): Set<string> {
  const missing = new Set<string>();
  for (const [name, native] of Object.entries(NATIVE)) {
    const remix = names(REMIX[name as FetchClass]);
    for (const member of names(native))
      if (!remix.has(member) && typeof Object.getOwnPropertyDescriptor(native, member)?.value === "function")
        missing.add(`${name}.${member}`);
  }
  return missing;
}

/** "bytes", ...: the methods instances of Node's classes have and those of Remix's lack. */
function missingMethods(): Set<string> {
  const missing = new Set<string>();
  for (const [name, native] of Object.entries(NATIVE)) {
    const remix = names((REMIX[name as FetchClass] as { prototype: object }).prototype);
    for (const member of names(native.prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(native.prototype, member);
      if (!remix.has(member) && member !== "constructor" && typeof descriptor?.value === "function")
        missing.add(member);
    }
  }
  return missing;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [file] : [];
  });
}

/**
 * The parts of a source that run on the server: a module whole, but of a component module
 * (.tsx, not .server.tsx) only its route's loader and action; the rest runs in the browser too,
 * under the browser's own fetch.
 */
function serverParts(file: string, source: ts.SourceFile): ts.Node[] {
  if (!file.endsWith(".tsx") || file.endsWith(".server.tsx")) return [source];
  const parts: ts.Node[] = [];
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && /^(loader|action)$/.test(statement.name?.text ?? ""))
      parts.push(statement);
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name) && /^(loader|action)$/.test(declaration.name.text))
          parts.push(declaration);
  }
  return parts;
}

/** The names a source binds itself (imports, declarations, parameters): those are not the globals. */
function boundNames(source: ts.SourceFile): Set<string> {
  const bound = new Set<string>();
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportSpecifier(node) ||
        ts.isImportClause(node) ||
        ts.isNamespaceImport(node) ||
        ts.isVariableDeclaration(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isParameter(node) ||
        ts.isClassDeclaration(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    )
      bound.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return bound;
}

/** What a server part uses that the server's fetch globals do not offer, as "line: what". */
function usesMissing(file: string, text: string, statics: Set<string>, methods: Set<string>): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const bound = boundNames(source);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${path.relative(path.dirname(APP), file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && callee.text === "fetch" && !bound.has("fetch"))
        found.push(`${at(node)} calls the global fetch`);
      if (ts.isPropertyAccessExpression(callee)) {
        const target = callee.expression;
        const name = `${target.getText()}.${callee.name.text}`;
        if (ts.isIdentifier(target) && !bound.has(target.text) && statics.has(name))
          found.push(`${at(node)} calls ${name}`);
        else if (methods.has(callee.name.text)) found.push(`${at(node)} calls .${callee.name.text}()`);
      }
    }
    ts.forEachChild(node, visit);
  };
  for (const part of serverParts(file, source)) visit(part);
  return found;
}

describe("the server's code under the server's fetch globals", () => {
  it("knows what Remix's globals lack: Response.json among them", () => {
    expect(missingStatics()).toContain("Response.json");
    expect(missingMethods()).toContain("getSetCookie");
  });

  it("uses nothing of Node's fetch API that Remix's globals lack, and no global fetch", () => {
    const statics = missingStatics();
    const methods = missingMethods();
    const found = sourceFiles(APP).flatMap((file) => usesMissing(file, readFileSync(file, "utf8"), statics, methods));
    expect(found).toEqual([]);
  });

  it("finds such a use where it is: a route's action, a server module, and not a browser component", () => {
    const statics = missingStatics();
    const methods = missingMethods();
    const route = `export const action = async () => Response.json({ ok: true });
export default function Page() { void fetch("/app"); return null; }`;
    expect(usesMissing(path.join(APP, "routes/x.tsx"), route, statics, methods)).toEqual([
      "app/routes/x.tsx:1 calls Response.json",
    ]);
    const server = `export async function ask(headers: Headers) { headers.getSetCookie(); return fetch("https://x"); }`;
    expect(usesMissing(path.join(APP, "x.server.ts"), server, statics, methods)).toEqual([
      "app/x.server.ts:1 calls .getSetCookie()",
      "app/x.server.ts:1 calls the global fetch",
    ]);
    const imported = `import { fetch } from "undici";\nexport const ask = () => fetch("https://x");`;
    expect(usesMissing(path.join(APP, "x.server.ts"), imported, statics, methods)).toEqual([]);
  });
});

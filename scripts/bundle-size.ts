// The admin's JavaScript per page, as issue 59's budget counts it (decision 053): gzipped (level
// 9) size of every JavaScript chunk a page loads, read from the production build's Vite manifest
// (Remix moves it to build/.vite/client-manifest.json), summed over the chunks of the browser entry, the root
// route, the admin frame (routes/app.tsx) and the page's route, with their static imports, each
// chunk counted once. "In all" adds what the page loads before it hydrates: the language chunks
// app/i18n/client.ts imports (the page's language, English's for a key it lacks, Polaris's
// strings for it). A build from before the admin was translated has no language chunks: its
// English was in the static bundle.
//
//   npx tsx scripts/bundle-size.ts [build/client] [--before OTHER/build/client]
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
type Manifest = Record<string, ManifestChunk>;

/** The admin's pages: the route module each one renders under the frame. */
export const PAGES: Record<string, string> = {
  Dashboard: "app/routes/app._index.tsx",
  Commissions: "app/routes/app.commissions.tsx",
  Order: "app/routes/app.orders.$id.tsx",
  Creators: "app/routes/app.creators.tsx",
  Payouts: "app/routes/app.payouts.tsx",
  Codes: "app/routes/app.codes.tsx",
  Settings: "app/routes/app.settings.tsx",
};

const ROOT = "app/root.tsx";
const FRAME = "app/routes/app.tsx";

export interface PageBundle {
  page: string;
  /** Gzipped bytes of the chunks loaded by static import. */
  staticBytes: number;
  /** Gzipped bytes of the language chunks an English page loads before hydrating. */
  englishBytes: number;
  /** Gzipped bytes of the language chunks a German page loads before hydrating. */
  germanBytes: number;
}

function readManifest(clientDir: string): Manifest {
  return JSON.parse(readFileSync(path.join(clientDir, "../.vite/client-manifest.json"), "utf8")) as Manifest;
}

/** A module's key in the manifest: Remix's client route modules carry a query. */
function keyOf(manifest: Manifest, source: string): string {
  return manifest[source] ? source : `${source}?__remix-build-client-route`;
}

/** A chunk's file and those of everything it imports statically, transitively. */
function staticFiles(manifest: Manifest, key: string, into = new Set<string>()): Set<string> {
  const chunk = manifest[keyOf(manifest, key)];
  if (!chunk) throw new Error(`the build's manifest has no ${key}`);
  if (into.has(chunk.file)) return into;
  into.add(chunk.file);
  for (const imported of chunk.imports ?? []) staticFiles(manifest, imported, into);
  return into;
}

/** The language chunks a page in `locale` loads, found by their source in the manifest. */
function languageFiles(manifest: Manifest, locale: string): Set<string> {
  const sources = [`app/i18n/locales/${locale}.json`, "app/i18n/locales/en.json"];
  // Polaris's by the end of its path: where node_modules is depends on the checkout.
  if (locale !== "en") sources.push(`/@shopify/polaris/locales/${locale}.json`);
  const files = new Set<string>();
  for (const key of Object.keys(manifest))
    if (sources.some((source) => key === source || (source.startsWith("/") && key.endsWith(source))))
      staticFiles(manifest, key, files);
  return files;
}

export function pageBundles(clientDir: string): PageBundle[] {
  const manifest = readManifest(clientDir);
  // app/entry.client.tsx, or Remix's own when the app has none (as before the admin was translated).
  const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry && key.endsWith("entry.client.tsx"));
  if (!entry) throw new Error("the build's manifest has no browser entry");
  const sizes = new Map<string, number>();
  const gzipped = (file: string) => {
    if (!sizes.has(file)) sizes.set(file, gzipSync(readFileSync(path.join(clientDir, file)), { level: 9 }).length);
    return sizes.get(file)!;
  };
  const sum = (files: Iterable<string>) => [...files].reduce((total, file) => total + gzipped(file), 0);
  const extra = (files: Set<string>, already: Set<string>) => [...files].filter((file) => !already.has(file));
  return Object.entries(PAGES)
    .filter(([, route]) => manifest[keyOf(manifest, route)])
    .map(([page, route]) => {
      const loaded = new Set<string>();
      for (const key of [entry, ROOT, FRAME, route]) staticFiles(manifest, key, loaded);
      return {
        page,
        staticBytes: sum(loaded),
        englishBytes: sum(extra(languageFiles(manifest, "en"), loaded)),
        germanBytes: sum(extra(languageFiles(manifest, "de"), loaded)),
      };
    });
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function main(): void {
  const args = process.argv.slice(2);
  const beforeAt = args.indexOf("--before");
  const beforeDir = beforeAt >= 0 ? args[beforeAt + 1] : undefined;
  const positional = args.filter((arg, i) => !arg.startsWith("--") && (beforeAt < 0 || i !== beforeAt + 1));
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const now = pageBundles(path.resolve(positional[0] ?? path.join(root, "build/client")));
  const before = beforeDir ? new Map(pageBundles(path.resolve(beforeDir)).map((b) => [b.page, b])) : undefined;
  console.log(
    `| page |${before ? " before |" : ""} static | English page in all |${before ? " growth |" : ""} German page in all |`,
  );
  console.log(`|---|${before ? "---|" : ""}---|---|${before ? "---|" : ""}---|`);
  for (const b of now) {
    const was = before?.get(b.page);
    const english = b.staticBytes + b.englishBytes;
    const cells = [
      b.page,
      ...(before ? [was ? kb(was.staticBytes + was.englishBytes) : "-"] : []),
      kb(b.staticBytes),
      kb(english),
      ...(before ? [was ? kb(english - was.staticBytes - was.englishBytes) : "-"] : []),
      kb(b.staticBytes + b.germanBytes),
    ];
    console.log(`| ${cells.join(" | ")} |`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

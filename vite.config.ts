import { readFileSync } from "node:fs";
import path from "node:path";
import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig, type Plugin, type UserConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";
import { clientMessages, stringsOf } from "./app/i18n/client-messages";

// Shopify's CLI sets HOST; Remix's dev server wants SHOPIFY_APP_URL.
if (process.env.HOST && (!process.env.SHOPIFY_APP_URL || process.env.SHOPIFY_APP_URL === process.env.HOST)) {
  process.env.SHOPIFY_APP_URL = process.env.HOST;
  delete process.env.HOST;
}

// `npm run bench` builds the app with one route more, the template-style reference its intake is
// measured against (bench/reference-route.tsx), into a build of its own: the app's build never
// has it.
const benchBuild = process.env.TAG_GUARD_BUILD === "bench";

const host = new URL(process.env.SHOPIFY_APP_URL || "http://localhost").hostname;
const hmrConfig =
  host === "localhost"
    ? { protocol: "ws", host: "localhost", port: 64999, clientPort: 64999 }
    : { protocol: "wss", host, port: parseInt(process.env.FRONTEND_PORT ?? "8002"), clientPort: 443 };

const APP_DIR = path.resolve(import.meta.dirname, "app");
const LOCALE_FILE = /\/app\/i18n\/locales\/[^/]+\.json$/;

/**
 * The browser's language chunks hold only the messages its code can look up
 * (app/i18n/client-messages.ts): the strings of every app module in the client build, gathered
 * as Rollup parses them, decide what each locale file's chunk keeps when it is written. The
 * chunk's name is hashed after that, from what it holds. The server build keeps every message.
 */
function clientMessagesPlugin(): Plugin {
  const strings = new Set<string>();
  let client = false;
  return {
    name: "tag-guard:client-messages",
    apply: "build",
    configResolved(config) {
      client = !config.build.ssr;
    },
    moduleParsed(info) {
      if (!client || !info.ast || !info.id.startsWith(APP_DIR) || LOCALE_FILE.test(info.id)) return;
      for (const text of stringsOf(info.ast)) strings.add(text);
    },
    renderChunk(_code, chunk) {
      if (!client || !chunk.facadeModuleId || !LOCALE_FILE.test(chunk.facadeModuleId)) return null;
      const messages = JSON.parse(readFileSync(chunk.facadeModuleId, "utf8"));
      const kept = JSON.stringify(clientMessages(messages, strings));
      return { code: `export default JSON.parse(${JSON.stringify(kept)});\n`, map: null };
    },
  };
}

const CLIENT_LOCALE_LOADER = /\/app\/i18n\/client\.ts$/;

/**
 * The browser's language loader (app/i18n/client.ts) imports its chunks (a language's strings,
 * Polaris's, the pseudo-locale's code) without Vite's preload wrapper: the wrapper fetches a
 * chunk's own imports alongside it, and these import nothing, yet its helper costs every page
 * 0.5 KB gzipped (issue 59's budget, decision 053). Vite wraps a dynamic import whose specifier
 * is a plain string; a parenthesised one it leaves, while Rollup, reading the same string, still
 * makes the chunk. Runs after import.meta.glob has written its imports out.
 */
function unwrappedLanguageImports(): Plugin {
  return {
    name: "tag-guard:unwrapped-language-imports",
    apply: "build",
    enforce: "post",
    transform(code, id) {
      if (!CLIENT_LOCALE_LOADER.test(id)) return null;
      return { code: code.replace(/\bimport\(("[^"]+")\)/g, "import(($1))"), map: null };
    },
  };
}

export default defineConfig({
  server: {
    allowedHosts: [host],
    cors: { preflightContinue: true },
    port: Number(process.env.PORT || 3000),
    hmr: hmrConfig,
    fs: { allow: ["app", "node_modules"] },
  },
  plugins: [
    remix({
      ignoredRouteFiles: ["**/.*"],
      ...(benchBuild && {
        buildDirectory: "build/bench",
        routes: (defineRoutes) => defineRoutes((route) => route("webhooks/baseline", "../bench/reference-route.tsx")),
      }),
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_lazyRouteDiscovery: true,
        v3_singleFetch: false,
        v3_routeConfig: false,
      },
    }),
    tsconfigPaths(),
    clientMessagesPlugin(),
    unwrappedLanguageImports(),
  ],
  // The Vite manifest stays in the build (Remix moves it to build/.vite/client-manifest.json,
  // outside what is served): scripts/bundle-size.ts reads what each page loads from it.
  build: { assetsInlineLimit: 0, manifest: true },
  optimizeDeps: { include: ["@shopify/app-bridge-react", "@shopify/polaris"] },
}) satisfies UserConfig;

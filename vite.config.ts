import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig, type UserConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";

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
  ],
  build: { assetsInlineLimit: 0 },
  // i18next-shopify's CommonJS build hands Node's import its exports object, not the plugin:
  // the server bundles the package's ES module build instead, as the browser's does.
  ssr: { noExternal: ["@shopify/i18next-shopify"] },
  optimizeDeps: { include: ["@shopify/app-bridge-react", "@shopify/polaris"] },
}) satisfies UserConfig;

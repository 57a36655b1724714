// GraphQL Code Generator (`npm run graphql-codegen`) and editor tooling: the types of every
// Admin API document in app/shopify-admin/documents.ts, from the committed schema of the app's
// API version (app/shopify-admin/api-version.ts; tests/fixtures/admin-schema), through Shopify's
// preset. Offline: the schema is built from the gzipped introspection in this process, never
// fetched. The output is committed; tests/shopify-admin/generated-types.test.ts fails when it is
// stale.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ApiType, pluckConfig, preset } from "@shopify/api-codegen-preset";
import { parse, printSchema } from "graphql";
import { apiVersion as ADMIN_API_VERSION } from "./app/shopify-admin/api-version";
import { loadAdminSchema } from "./sandbox/shopify/schema";

const documents = ["app/shopify-admin/documents.ts"];
// Handed over as a document, not a GraphQLSchema: graphql's ESM and CommonJS builds each
// refuse the other's schema objects, and the test runner and the CLI load different ones.
const schema = [
  {
    [`tests/fixtures/admin-schema/admin_${ADMIN_API_VERSION}.json.gz`]: {
      loader: () => parse(printSchema(loadAdminSchema(ADMIN_API_VERSION))),
    },
  },
];

export const adminCodegen = {
  cwd: path.dirname(fileURLToPath(import.meta.url)),
  schema,
  documents,
  pluckConfig,
  generates: {
    // The whole schema's types, which the operation types Pick from. Without descriptions,
    // and with enums as string unions (a .d.ts cannot hold runtime enums), it is a third of
    // the size.
    "app/types/admin.types.d.ts": {
      plugins: ["typescript"],
      config: {
        defaultScalarType: "string",
        scalars: { JSON: "unknown" },
        enumsAsTypes: true,
        disableDescriptions: true,
      },
    },
    // Each document's variables and result, keyed by its exact text (see AdminDocument).
    "app/types/admin.generated.d.ts": { preset, presetConfig: { apiType: ApiType.Admin } },
  },
};

export default {
  schema,
  documents,
  projects: { default: { schema, documents, extensions: { codegen: adminCodegen } } },
};

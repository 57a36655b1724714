// Admin API schemas by version, from the vendored introspection files in
// tests/fixtures/admin-schema (see its README). Built once per version per process.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from "graphql";

/** The Admin API version the stand-in serves by default: the app's (app/shopify-admin/api-version.ts). */
export const DEFAULT_API_VERSION = "2026-10";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../tests/fixtures/admin-schema");
const cache = new Map<string, GraphQLSchema>();

export function hasAdminSchema(version: string): boolean {
  return cache.has(version) || existsSync(schemaFile(version));
}

export function loadAdminSchema(version: string): GraphQLSchema {
  let schema = cache.get(version);
  if (!schema) {
    const json = JSON.parse(gunzipSync(readFileSync(schemaFile(version))).toString("utf8")) as
      { data: IntrospectionQuery } | IntrospectionQuery;
    schema = buildClientSchema("data" in json ? json.data : json);
    cache.set(version, schema);
  }
  return schema;
}

function schemaFile(version: string): string {
  if (!/^\d{4}-\d{2}$|^unstable$/.test(version)) return path.join(FIXTURES, "__none__");
  return path.join(FIXTURES, `admin_${version}.json.gz`);
}

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { buildClientSchema, parse, validate, GraphQLError, type GraphQLSchema, type IntrospectionQuery } from "graphql";

// The Admin API 2026-07 introspection shipped in @shopify/dev-mcp (see
// tests/fixtures/admin-schema/README.md). Built once per process: it is ~1 MB gzipped.
const FIXTURE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../fixtures/admin-schema/admin_2026-07.json.gz",
);

let cached: GraphQLSchema | undefined;

export function adminSchema(): GraphQLSchema {
  if (!cached) {
    const json = JSON.parse(gunzipSync(readFileSync(FIXTURE)).toString("utf8")) as
      { data: IntrospectionQuery } | IntrospectionQuery;
    const introspection = "data" in json ? json.data : json;
    cached = buildClientSchema(introspection);
  }
  return cached;
}

/** Parse and validate a document against the Admin schema; syntax errors come back as errors too. */
export function validateAdminDocument(source: string): readonly GraphQLError[] {
  let document;
  try {
    document = parse(source);
  } catch (error) {
    if (error instanceof GraphQLError) return [error];
    throw error;
  }
  return validate(adminSchema(), document);
}

import { parse, validate, GraphQLError, type GraphQLSchema } from "graphql";
import { apiVersion } from "../../app/shopify-admin/api-version";
import { loadAdminSchema } from "../../sandbox/shopify/schema";

// The Admin API introspection of the app's version, as shipped in @shopify/dev-mcp (see
// tests/fixtures/admin-schema/README.md), built once per process: it is ~1 MB gzipped.
export function adminSchema(): GraphQLSchema {
  return loadAdminSchema(apiVersion);
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

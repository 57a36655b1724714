import { getOperationAST, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { apiVersion } from "../../app/shopify-admin/api-version";
import * as documents from "../../app/shopify-admin/documents";
import { validateAdminDocument } from "../support/admin-schema";

// Every exported string that is a GraphQL operation is checked, so a document added to
// app/shopify-admin/documents.ts is covered without touching this test.
const operations: Array<[string, string]> = Object.entries(documents as Record<string, unknown>).flatMap(
  ([name, value]): Array<[string, string]> =>
    typeof value === "string" && /^\s*(#graphql\s*)?(query|mutation)\b/.test(value) ? [[name, value]] : [],
);

describe(`Admin GraphQL documents (API ${apiVersion})`, () => {
  it("finds the documents to check", () => {
    expect(operations.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        "MARK_ORDER_HIJACKED",
        "METAFIELDS_SET",
        "CURRENT_APP_INSTALLATION",
        "EVIDENCE_DEFINITION_CREATE",
        "ORDER_TAG_GUARD_STATE",
      ]),
    );
  });

  it.each(operations)("%s validates against the Admin schema", (_name, source) => {
    const errors = validateAdminDocument(source);
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  it.each(operations)("%s is a single named operation", (_name, source) => {
    const document = parse(source);
    expect(document.definitions).toHaveLength(1);
    expect(getOperationAST(document)?.name?.value).toMatch(/^TagGuard/);
  });

  it("rejects a document with a field the schema lacks (the check is real)", () => {
    const errors = validateAdminDocument(`query { order(id: "gid://shopify/Order/1") { id hijackTag } }`);
    expect(errors.map((e) => e.message).join()).toMatch(/hijackTag/);
  });
});

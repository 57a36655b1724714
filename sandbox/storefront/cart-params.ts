import { badRequest, isRecord } from "./cart";

// What a cart request posts, read as Shopify's storefront reads it: a JSON object, or a form,
// URL-encoded (a theme's form, jQuery.post) or multipart (fetch with FormData), whose names nest
// as Rails nests them: items[0][id], properties[Name], attributes[Gift wrap], updates[123],
// updates[] and items[][id]. Any other body is no parameters at all, as there. The body itself
// is bounded by the server (MAX_BODY_BYTES in server.ts) before it gets here.

/** Names in one form: enough for a cart of 500 lines, each with a few properties. */
const MAX_FIELDS = 5_000;
/** Brackets in one name: items[0][properties][Name] is the deepest the cart API reads. */
const MAX_BRACKETS = 4;

export async function cartParams(contentType: string | undefined, body: string): Promise<Record<string, unknown>> {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  // A POST with no body at all (clear.js, often) posts nothing, whatever its type says.
  if (body.trim() === "") return {};
  if (type === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw badRequest("Bad Request", "invalid JSON");
    }
    if (!isRecord(parsed)) throw badRequest("Bad Request", "expected a JSON object");
    return parsed;
  }
  if (type === "application/x-www-form-urlencoded") return nested(new URLSearchParams(body));
  if (type === "multipart/form-data") {
    let form: FormData;
    try {
      form = await new Response(body, { headers: { "content-type": contentType! } }).formData();
    } catch {
      throw badRequest("Bad Request", "invalid multipart body");
    }
    return nested([...form].flatMap(([name, value]) => (typeof value === "string" ? [[name, value] as const] : [])));
  }
  return {};
}

/** A plain record with no prototype: a posted name such as "__proto__" is only a name. */
const record = () => Object.create(null) as Record<string, unknown>;

/** Form fields, their Rails-style bracketed names made into nested records and lists. */
export function nested(fields: Iterable<readonly [string, string]>): Record<string, unknown> {
  const root = record();
  let count = 0;
  for (const [name, value] of fields) {
    if (++count > MAX_FIELDS) throw badRequest("Bad Request", `at most ${MAX_FIELDS} form fields`);
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
    const brackets = match ? [...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1]!) : [];
    if (brackets.length > MAX_BRACKETS) throw badRequest("Bad Request", `at most ${MAX_BRACKETS} brackets in a name`);
    place(root, match ? match[1]! : name, brackets, value);
  }
  return root;
}

function place(parent: Record<string, unknown>, key: string, brackets: string[], value: string): void {
  const [next, ...rest] = brackets;
  if (next === undefined) {
    parent[key] = value;
    return;
  }
  if (next !== "") {
    const child = isRecord(parent[key]) ? parent[key] : (parent[key] = record());
    place(child, next, rest, value);
    return;
  }
  // name[] is a list; name[][field] a list of records, the next one begun when the last
  // already has that field (Rails' rule).
  const list = Array.isArray(parent[key]) ? (parent[key] as unknown[]) : (parent[key] = []);
  const [field, ...deeper] = rest;
  if (field === undefined) {
    list.push(value);
    return;
  }
  let last = list.at(-1);
  if (!isRecord(last) || (deeper.length === 0 && field in last)) list.push((last = record()));
  place(last as Record<string, unknown>, field, deeper, value);
}

import { createHash } from "node:crypto";
import type { Line } from "./pages";
import { decimalAmount, lineTitle, variantById, type Variant } from "./products";

// The stand-in shop's cart: one model behind every way it changes, the theme's form posts, the
// Ajax Cart API (cart-api.ts answers both), Buy it now and the checkout that pays for it. As
// Shopify documents its Ajax Cart API (shopify.dev/docs/api/ajax/reference/cart):
// - a line is a variant with its quantity and line item properties; its key is
//   "VARIANT_ID:HASH", the hash changing with the properties, and an added item joins the line
//   with the same key, else starts one at the top of the cart (lines are newest first);
// - change.js finds one line by 1-based `line`, or `id` (a key, or a variant id: its first
//   line), sets its quantity (0 removes it) and overwrites its properties;
// - update.js sets quantities by variant id or key (`updates`, or an array, one per line; a
//   variant not in the cart is added), merges attributes (a key set to "" or null is removed)
//   and sets the note; clear.js empties the lines and keeps the attributes and the note;
// - what Shopify refuses it answers with its status and body (CartRefusal), and a refused
//   request changes nothing: every change is made on a draft that replaces the cart at the end.

export interface CartLine {
  variantId: number;
  quantity: number;
  properties: Record<string, string>;
}

export interface Cart {
  /** The cart cookie's value, decoded: TOKEN?key=... */
  token: string;
  attributes: Record<string, string>;
  note: string | null;
  /** The lines, newest first, as cart.js lists them. */
  items: CartLine[];
}

/** The body of Shopify's answer to a cart request it refuses. */
export interface RefusalBody {
  status: number | string;
  message: string;
  description: string;
}

/** A cart request Shopify refuses: the HTTP status and the JSON it answers with. */
export class CartRefusal extends Error {
  constructor(
    readonly httpStatus: number,
    readonly body: RefusalBody,
  ) {
    super(body.description);
  }
}

/** Shopify's cart allows 500 lines. */
export const MAX_LINES = 500;
/** The stand-in's bound on one line's quantity (it tracks no stock): beyond it, Shopify's "can't add more". */
export const MAX_LINE_QUANTITY = 1_000_000;

const cartError = (description: string, httpStatus = 422) =>
  new CartRefusal(httpStatus, { status: httpStatus, message: "Cart Error", description });
export const badRequest = (message: string, description = message) =>
  new CartRefusal(400, { status: "bad_request", message, description });
const missing = (field: string) =>
  badRequest("Parameter Missing or Invalid", `Required parameter missing or invalid: ${field}`);
const NO_VALID_LINE = "no valid id or line parameter";

export function emptyCart(token: string): Cart {
  return { token, attributes: {}, note: null, items: [] };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const absent = (value: unknown) => value === undefined || value === null || value === "";

/** A whole number given as a JSON number or as a form's text, else NaN. */
function integerFrom(value: unknown): number {
  const number = typeof value === "string" && /^\s*[+-]?\d{1,16}\s*$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isSafeInteger(number) ? number : NaN;
}

/** A whole number; undefined when absent. */
function wholeNumber(value: unknown, name: string): number | undefined {
  if (absent(value)) return undefined;
  const number = integerFrom(value);
  if (Number.isNaN(number)) throw badRequest(`expected String to be a Integer: ${name}`);
  return number;
}

/** The variant a request names by id. */
function namedVariant(id: unknown): Variant | undefined {
  return variantById(integerFrom(id));
}

const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** Line item properties as Shopify keeps them: text values, the empty ones dropped. */
function propertiesOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw missing("properties");
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, entry]) => !absent(entry))
      .map(([key, entry]) => [key, asText(entry)]),
  );
}

export function lineKey(line: CartLine): string {
  const properties = Object.entries(line.properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${line.variantId}:${createHash("md5").update(JSON.stringify(properties)).digest("hex")}`;
}

export function variantOf(line: CartLine): Variant {
  const variant = variantById(line.variantId);
  if (!variant) throw new Error(`the cart holds variant ${line.variantId}, which the shop does not sell`);
  return variant;
}

function withinLimit(line: CartLine): CartLine {
  if (line.quantity > MAX_LINE_QUANTITY)
    throw cartError(`You can't add more ${lineTitle(variantOf(line))} to the cart.`);
  return line;
}

/** Makes `change` on a copy of the cart, which replaces it only when no refusal was thrown. */
function onDraft<T>(cart: Cart, change: (draft: Cart) => T): T {
  const draft: Cart = {
    ...cart,
    attributes: { ...cart.attributes },
    items: cart.items.map((line) => ({ ...line, properties: { ...line.properties } })),
  };
  const result = change(draft);
  if (draft.items.length > MAX_LINES) throw cartError(`You can't add more than ${MAX_LINES} lines to the cart.`);
  Object.assign(cart, draft);
  return result;
}

/**
 * Adds items as add.js and the product form do (`field` names the parameter they came in for
 * Shopify's answer: "items", or "id" for one item posted alone). Returns the line each item
 * ended in, in the order posted.
 */
export function addItems(cart: Cart, inputs: readonly unknown[], field: "items" | "id"): CartLine[] {
  if (inputs.length === 0) throw missing(field);
  return onDraft(cart, (draft) => {
    const added: CartLine[] = [];
    const touched = inputs.map((input) => {
      if (!isRecord(input) || absent(input.id)) throw missing(field);
      const variant = namedVariant(input.id);
      if (!variant) throw cartError("Cannot find variant");
      const quantity = wholeNumber(input.quantity, "quantity") ?? 1;
      if (quantity < 1) throw cartError("Quantity must be 1 or more");
      const line: CartLine = { variantId: variant.id, quantity, properties: propertiesOf(input.properties) };
      const same = [...added, ...draft.items].find((other) => lineKey(other) === lineKey(line));
      if (!same) added.push(line);
      else same.quantity += quantity;
      return withinLimit(same ?? line);
    });
    // One request's new lines go to the top together, in the order posted.
    draft.items.unshift(...added);
    return touched;
  });
}

/** The index of the line change.js names, by 1-based `line` or by `id` (a key or a variant id). */
function namedLine(cart: Cart, input: Record<string, unknown>): number {
  if (!absent(input.line)) {
    const line = integerFrom(input.line);
    if (Number.isNaN(line)) {
      const invalid = "line parameter is invalid.";
      throw new CartRefusal(422, { status: "unprocessable_entity", message: invalid, description: invalid });
    }
    if (line < 1 || line > cart.items.length) throw badRequest(NO_VALID_LINE);
    return line - 1;
  }
  const id = input.id;
  const index =
    typeof id === "string" && id.includes(":")
      ? cart.items.findIndex((line) => lineKey(line) === id)
      : cart.items.findIndex((line) => line.variantId === integerFrom(id));
  if (index < 0) throw badRequest(NO_VALID_LINE);
  return index;
}

export function changeLine(cart: Cart, input: Record<string, unknown>): void {
  onDraft(cart, (draft) => {
    const index = namedLine(draft, input);
    const line = draft.items[index]!;
    const quantity = wholeNumber(input.quantity, "quantity");
    if (quantity !== undefined && quantity < 0) throw cartError("Quantity must be 0 or more");
    const properties = propertiesOf(input.properties);
    // Properties once set cannot be emptied again: Shopify keeps them.
    if (Object.keys(properties).length > 0) {
      line.properties = properties;
      const same = draft.items.findIndex((other, at) => at !== index && lineKey(other) === lineKey(line));
      if (same >= 0) {
        line.quantity += draft.items[same]!.quantity;
        draft.items.splice(same, 1);
      }
    }
    if (quantity !== undefined) line.quantity = quantity;
    withinLimit(line);
    draft.items = draft.items.filter((each) => each.quantity > 0);
  });
}

/** update.js's `updates` by variant id or key: the line's new quantity, or a new line. */
function updateQuantities(draft: Cart, updates: Record<string, unknown>): void {
  for (const [id, value] of Object.entries(updates)) {
    const quantity = wholeNumber(value, "updates");
    if (quantity === undefined) continue;
    if (quantity < 0) throw cartError("Quantity must be 0 or more");
    const line = id.includes(":")
      ? draft.items.find((each) => lineKey(each) === id)
      : draft.items.find((each) => each.variantId === integerFrom(id));
    if (line) line.quantity = withinLimit({ ...line, quantity }).quantity;
    else if (id.includes(":")) throw badRequest(NO_VALID_LINE);
    else {
      const variant = namedVariant(id);
      if (!variant) throw cartError("Cannot find variant", 404);
      if (quantity > 0) draft.items.unshift(withinLimit({ variantId: variant.id, quantity, properties: {} }));
    }
  }
}

export function updateCart(cart: Cart, input: Record<string, unknown>): void {
  onDraft(cart, (draft) => {
    const { updates, note, attributes } = input;
    if (Array.isArray(updates)) {
      if (updates.length !== draft.items.length) throw missing("updates");
      updates.forEach((value, index) => updateQuantities(draft, { [lineKey(draft.items[index]!)]: value }));
    } else if (isRecord(updates)) updateQuantities(draft, updates);
    else if (updates !== undefined) throw missing("updates");
    if (note !== undefined) {
      if (note !== null && typeof note !== "string") throw missing("note");
      draft.note = note;
    }
    if (attributes !== undefined) {
      if (!isRecord(attributes)) throw missing("attributes");
      // Through a Map: any name is an attribute's, "__proto__" too.
      const merged = new Map(Object.entries(draft.attributes));
      for (const [key, value] of Object.entries(attributes)) {
        if (absent(value)) merged.delete(key);
        else merged.set(key, asText(value));
      }
      draft.attributes = Object.fromEntries(merged);
    }
    draft.items = draft.items.filter((line) => line.quantity > 0);
  });
}

/** clear.js and the theme's Clear cart: no lines left; the attributes and the note stay. */
export function clearCart(cart: Cart): void {
  cart.items = [];
}

/** The cart's lines as its page and a checkout show them: title, unit price, quantity. */
export function linesOf(cart: Cart): Line[] {
  return cart.items.map((line) => {
    const variant = variantOf(line);
    return { title: lineTitle(variant), price: decimalAmount(variant.price), quantity: line.quantity };
  });
}

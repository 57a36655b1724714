// In-memory state of the stand-in: shops, their orders (kept in the REST webhook shape they
// were created from), metafields by owner, metafield definitions, tokens and the leaky-bucket
// throttle state. Business rules mirror the Admin API's documented behaviour for the few
// operations the app uses.
import { createHash } from "node:crypto";
import { buildOrderEditedPayload, editedOrderPayload } from "./edit-payload";
import { TokenStore, type IssueOptions, type TokenRecord } from "./tokens";

export interface MetafieldRecord {
  id: number;
  ownerId: string;
  ownerType: "ORDER" | "API_PERMISSION";
  namespace: string; // resolved (app--{id}--x for $app:x)
  key: string;
  type: string;
  value: string;
  createdAt: string;
  updatedAt: string;
}

export interface MetafieldDefinitionRecord {
  id: number;
  ownerType: string;
  namespace: string;
  key: string;
  name: string;
  type: string;
  description: string | null;
  pinnedPosition: number | null;
  access: { admin: string | null };
}

export interface OrderRecord {
  id: number;
  gid: string;
  name: string;
  tags: string[];
  payload: Record<string, unknown>;
  /** tagsAdd mutations applied to this order (throttled or refused ones are not): a chaos run's double-tag count. */
  tagsAddApplied: number;
  /** Order.updatedAt: every change (created, tagged, refunded, cancelled), to the second as Shopify keeps it. */
  updatedAt: string;
  /** Edits committed to it: its payload is the latest version of the order. */
  edits: number;
  /** Its refunds as refunds/create describes them (REST payloads), in the order they were issued. */
  refunds: { gid: string; id: string; payload: Record<string, unknown> }[];
  cancelledAt: string | null;
  /**
   * Shopify's record of the visits that led to the order (Order.customerJourneySummary): the
   * landing page and start of each, oldest first, and when Shopify has attributed them (`ready`
   * is false before). Without one given, the order's landing_site is its one visit, ready at once.
   */
  journey: { visits: { landingPage: string; occurredAt: string }[]; readyAt: number } | null;
}

/** What Shopify recorded of the visits before an order, for `createOrder`. */
export interface OrderJourneyRecord {
  /** Landing pages (path and query, or a URL) and when each visit began, oldest first. */
  visits: { landingPage: string; occurredAt: Date }[];
}

/** A code discount: one or more codes, switched off by discountCodeDeactivate. */
export interface DiscountRecord {
  gid: string;
  title: string;
  codes: string[];
  status: "ACTIVE" | "EXPIRED" | "SCHEDULED";
  /** Set by discountCodeDeactivate: the end of the discount's active period. */
  endsAt: string | null;
}

export interface ShopState {
  domain: string;
  appInstallationGid: string;
  orders: Map<string, OrderRecord>; // by gid
  metafields: Map<string, Map<string, MetafieldRecord>>; // ownerGid -> "ns\u0000key" -> record
  definitions: MetafieldDefinitionRecord[];
  bucket: { available: number; at: number };
  /** Code discounts by gid; a code names one discount, compared without regard to case. */
  discounts: Map<string, DiscountRecord>;
  /** Optional scopes the merchant has granted: tokens issued later carry them too. */
  grantedScopes: Set<string>;
  /** The app's web pixel (webPixelCreate), settings as saved; null until connected. */
  webPixel: { id: string; settings: Record<string, unknown> } | null;
  /** Shop.ianaTimezone and Shop.currencyCode; a test sets them to see the admin in a shop's zone. */
  ianaTimezone: string;
  currencyCode: string;
  /** Reads of Order.customerJourneySummary.ready, by its answer: how often it was ready when asked. */
  journeyReads: { ready: number; notReady: number };
}

export interface UserErrorOut {
  field: string[] | null;
  message: string;
  code?: string | null;
  elementIndex?: number | null;
}

export const THROTTLE = { maximumAvailable: 2000, restoreRate: 100 } as const;
// Shopify's limit on one order tag; the app's settings schema enforces the same for its tag.
const TAG_MAX_LENGTH = 40;
const KNOWN_TYPES = new Set([
  "json",
  "single_line_text_field",
  "multi_line_text_field",
  "boolean",
  "number_integer",
  "number_decimal",
  "date",
  "date_time",
  "url",
  "color",
  "rich_text_field",
]);

export class ShopifyStandinStore {
  readonly shops = new Map<string, ShopState>();
  readonly tokens: TokenStore;
  readonly appId: number;
  private nextId = 1;

  constructor(
    readonly clock: () => number,
    appId = 4_242_001,
  ) {
    this.appId = appId;
    this.tokens = new TokenStore(clock);
  }

  id(): number {
    return this.nextId++;
  }

  shop(domain: string): ShopState {
    const key = domain.toLowerCase();
    let shop = this.shops.get(key);
    if (!shop) {
      shop = {
        domain: key,
        appInstallationGid: `gid://shopify/AppInstallation/${900_000 + this.id()}`,
        orders: new Map(),
        metafields: new Map(),
        definitions: [],
        bucket: { available: THROTTLE.maximumAvailable, at: this.clock() },
        discounts: new Map(),
        grantedScopes: new Set(),
        webPixel: null,
        ianaTimezone: this.shopDefaults.ianaTimezone,
        currencyCode: this.shopDefaults.currencyCode,
        journeyReads: { ready: 0, notReady: 0 },
      };
      this.shops.set(key, shop);
    }
    return shop;
  }

  /** `$app:x` -> `app--{appId}--x`; `$app` -> `app--{appId}`; anything else unchanged. */
  resolveNamespace(namespace: string | null | undefined): string {
    const ns = namespace ?? "$app";
    if (ns === "$app") return `app--${this.appId}`;
    if (ns.startsWith("$app:")) return `app--${this.appId}--${ns.slice(5)}`;
    return ns;
  }

  /**
   * How long after an order Shopify's journey of it stays not ready (`ready: false`): Shopify
   * attributes an order's sessions after the order, on its own schedule. 0: ready at once.
   */
  journeyReadyAfterMs = 0;

  createOrder(domain: string, payload: Record<string, unknown>, journey?: OrderJourneyRecord): OrderRecord {
    const shop = this.shop(domain);
    const id = Number(payload.id ?? this.id());
    const gid = String(payload.admin_graphql_api_id ?? `gid://shopify/Order/${id}`);
    const tags = splitTags(payload.tags);
    const record: OrderRecord = {
      id,
      gid,
      name: String(payload.name ?? `#${1000 + id}`),
      tags,
      payload,
      tagsAddApplied: 0,
      updatedAt: this.secondNow(),
      refunds: [],
      edits: 0,
      cancelledAt: null,
      journey: journey
        ? {
            visits: journey.visits.map((v) => ({ landingPage: v.landingPage, occurredAt: v.occurredAt.toISOString() })),
            readyAt: this.clock() + this.journeyReadyAfterMs,
          }
        : null,
    };
    shop.orders.set(gid, record);
    // A code an order used exists in the shop: the order's codes become discounts if unknown.
    const codes = Array.isArray(payload.discount_codes) ? (payload.discount_codes as { code?: unknown }[]) : [];
    for (const entry of codes) if (typeof entry?.code === "string") this.ensureDiscount(domain, entry.code);
    return record;
  }

  /** The store's clock as Shopify's DateTime: UTC, to the second. */
  secondNow(): string {
    return new Date(Math.floor(this.clock() / 1000) * 1000).toISOString().replace(".000Z", "Z");
  }

  /** A refund issued on one of the shop's orders (refunds/create's payload); the order is updated. */
  addRefund(domain: string, payload: Record<string, unknown>): void {
    const order = this.shop(domain).orders.get(`gid://shopify/Order/${String(payload.order_id)}`);
    if (!order) throw new Error(`no order ${String(payload.order_id)} in ${domain}`);
    const gid = String(payload.admin_graphql_api_id ?? `gid://shopify/Refund/${String(payload.id)}`);
    order.refunds.push({ gid, id: gid.slice(gid.lastIndexOf("/") + 1), payload });
    order.updatedAt = this.secondNow();
  }

  /**
   * An order edit committed (orderEditBegin ... orderEditCommit): the order becomes its next
   * version, its subtotal after discounts `subtotal` with `discount` more of line discounts
   * (editedOrderPayload), and is updated; the orders/edited payload of the edit is returned, for
   * the caller to deliver (then orders/updated).
   */
  editOrder(domain: string, orderId: number | string, subtotal: string, discount?: string): Record<string, unknown> {
    const order = this.shop(domain).orders.get(`gid://shopify/Order/${String(orderId)}`);
    if (!order) throw new Error(`no order ${String(orderId)} in ${domain}`);
    order.payload = editedOrderPayload(order.payload, subtotal, discount);
    order.edits += 1;
    order.updatedAt = this.secondNow();
    return buildOrderEditedPayload({ orderId: order.id, committedAt: new Date(this.clock()) });
  }

  /** An order cancelled (orders/cancelled's payload); the order is updated. */
  cancelOrder(domain: string, payload: Record<string, unknown>): void {
    const gid = String(payload.admin_graphql_api_id ?? `gid://shopify/Order/${String(payload.id)}`);
    const order = this.shop(domain).orders.get(gid);
    if (!order) throw new Error(`no order ${gid} in ${domain}`);
    const at = typeof payload.cancelled_at === "string" ? Date.parse(payload.cancelled_at) : this.clock();
    order.cancelledAt = new Date(Math.floor(at / 1000) * 1000).toISOString().replace(".000Z", "Z");
    order.updatedAt = this.secondNow();
  }

  /** The refund with this gid, and its order, in the shop. */
  findRefund(shop: ShopState, gid: string): { order: OrderRecord; refund: OrderRecord["refunds"][number] } | undefined {
    for (const order of shop.orders.values()) {
      const refund = order.refunds.find((r) => r.gid === gid);
      if (refund) return { order, refund };
    }
    return undefined;
  }

  /** The code discount holding this code (without regard to case), if any. */
  discountByCode(shop: ShopState, code: string): DiscountRecord | undefined {
    const wanted = code.toLowerCase();
    for (const discount of shop.discounts.values())
      if (discount.codes.some((c) => c.toLowerCase() === wanted)) return discount;
    return undefined;
  }

  /** A basic code discount with this one code, created unless one already holds it. */
  ensureDiscount(domain: string, code: string, title = code): DiscountRecord {
    const shop = this.shop(domain);
    const known = this.discountByCode(shop, code);
    if (known) return known;
    const discount: DiscountRecord = {
      gid: `gid://shopify/DiscountCodeNode/${this.id()}`,
      title,
      codes: [code],
      status: "ACTIVE",
      endsAt: null,
    };
    shop.discounts.set(discount.gid, discount);
    return discount;
  }

  /** discountCodeDeactivate: the discount ends now (status EXPIRED); already ended is no error. */
  deactivateDiscount(shop: ShopState, gid: string): { discount: DiscountRecord | null; userErrors: UserErrorOut[] } {
    const discount = shop.discounts.get(gid);
    if (!discount) return { discount: null, userErrors: [{ field: ["id"], message: "Discount does not exist" }] };
    if (discount.status !== "EXPIRED") {
      discount.status = "EXPIRED";
      discount.endsAt = new Date(this.clock()).toISOString();
    }
    return { discount, userErrors: [] };
  }

  /** App Bridge's scopes.request granted these optional scopes for the shop. */
  grantScopes(domain: string, scopes: string[]): void {
    const shop = this.shop(domain);
    for (const scope of scopes) shop.grantedScopes.add(scope);
    this.tokens.grantScopes(shop.domain, scopes);
  }

  findOrder(id: string | number): { shop: ShopState; order: OrderRecord } | undefined {
    const gid = typeof id === "number" || /^\d+$/.test(id) ? `gid://shopify/Order/${id}` : id;
    for (const shop of this.shops.values()) {
      const order = shop.orders.get(gid);
      if (order) return { shop, order };
    }
    return undefined;
  }

  metafieldsOf(shop: ShopState, ownerGid: string): MetafieldRecord[] {
    return [...(shop.metafields.get(ownerGid)?.values() ?? [])];
  }

  metafield(
    shop: ShopState,
    ownerGid: string,
    namespace: string | null | undefined,
    key: string,
  ): MetafieldRecord | null {
    return shop.metafields.get(ownerGid)?.get(`${this.resolveNamespace(namespace)}\u0000${key}`) ?? null;
  }

  /** tagsAdd: case-insensitive de-duplication; comma-separated entries are split like Shopify does. */
  tagsAdd(
    shop: ShopState,
    id: string,
    tags: string[],
  ): { node: { __typename: "Order"; id: string } | null; userErrors: UserErrorOut[] } {
    const order = shop.orders.get(id);
    if (!/^gid:\/\/shopify\/Order\/\d+$/.test(id) && !/^gid:\/\/shopify\/\w+\/\d+$/.test(id)) {
      return { node: null, userErrors: [{ field: ["id"], message: "Invalid global id" }] };
    }
    if (!order) return { node: null, userErrors: [{ field: ["id"], message: "Order does not exist" }] };
    const incoming = tags.flatMap((t) => splitTags(t));
    const tooLong = incoming.find((t) => t.length > TAG_MAX_LENGTH);
    if (tooLong)
      return {
        node: null,
        userErrors: [
          {
            field: ["tags"],
            message: `Tag '${tooLong.slice(0, 20)}…' is too long (maximum is ${TAG_MAX_LENGTH} characters)`,
          },
        ],
      };
    order.tagsAddApplied += 1;
    for (const tag of incoming) {
      if (!order.tags.some((t) => t.toLowerCase() === tag.toLowerCase())) order.tags.push(tag);
    }
    order.updatedAt = this.secondNow();
    return { node: { __typename: "Order", id: order.gid }, userErrors: [] };
  }

  metafieldsSet(
    shop: ShopState,
    inputs: Array<{
      ownerId: string;
      namespace?: string | null;
      key: string;
      type?: string | null;
      value: string;
      compareDigest?: string | null;
    }>,
  ): { metafields: MetafieldRecord[] | null; userErrors: UserErrorOut[] } {
    const userErrors: UserErrorOut[] = [];
    if (inputs.length > 25) {
      return {
        metafields: null,
        userErrors: [
          {
            field: ["metafields"],
            message: "Exceeded the maximum metafields input limit of 25.",
            code: "LESS_THAN_OR_EQUAL_TO",
            elementIndex: null,
          },
        ],
      };
    }
    const planned: Array<{
      index: number;
      ownerType: MetafieldRecord["ownerType"];
      namespace: string;
      type: string;
      input: (typeof inputs)[number];
    }> = [];
    inputs.forEach((input, index) => {
      const err = (field: string, message: string, code: string) =>
        userErrors.push({ field: ["metafields", String(index), field], message, code, elementIndex: index });
      let ownerType: MetafieldRecord["ownerType"] | undefined;
      if (shop.orders.has(input.ownerId)) ownerType = "ORDER";
      else if (input.ownerId === shop.appInstallationGid) ownerType = "API_PERMISSION";
      if (!ownerType) return err("ownerId", "Owner does not exist.", "INVALID");
      const namespace = this.resolveNamespace(input.namespace);
      if (namespace.length < 2 || namespace.length > 255)
        return err("namespace", "Namespace is too short or too long.", "INVALID");
      if (!/^[a-zA-Z0-9_-]{2,64}$/.test(input.key))
        return err("key", "Key must be 2-64 characters of letters, numbers, '-' or '_'.", "INVALID");
      const existing = shop.metafields.get(input.ownerId)?.get(`${namespace}\u0000${input.key}`);
      const definition = shop.definitions.find(
        (d) => d.ownerType === ownerType && d.namespace === namespace && d.key === input.key,
      );
      const type = input.type ?? definition?.type ?? existing?.type;
      if (!type) return err("type", "Type can't be blank.", "BLANK");
      if (!KNOWN_TYPES.has(type) && !type.startsWith("list."))
        return err("type", `Type '${type}' is not a valid type.`, "INVALID_TYPE");
      if (definition && definition.type !== type)
        return err("type", `Type must be ${definition.type} to match the metafield definition.`, "INVALID_TYPE");
      if (input.compareDigest && existing && digest(existing) !== input.compareDigest) {
        return err("compareDigest", "The resource has been updated since it was loaded.", "STALE_OBJECT");
      }
      const valueError = validateValue(type, input.value);
      if (valueError) return err("value", valueError, "INVALID_VALUE");
      planned.push({ index, ownerType, namespace, type, input });
    });
    // Shopify applies metafieldsSet atomically: any error and nothing is written.
    if (userErrors.length > 0) return { metafields: null, userErrors };
    const now = new Date(this.clock()).toISOString();
    const written = planned.map(({ ownerType, namespace, type, input }) => {
      let byKey = shop.metafields.get(input.ownerId);
      if (!byKey) shop.metafields.set(input.ownerId, (byKey = new Map()));
      const mapKey = `${namespace}\u0000${input.key}`;
      const previous = byKey.get(mapKey);
      const record: MetafieldRecord = {
        id: previous?.id ?? this.id(),
        ownerId: input.ownerId,
        ownerType,
        namespace,
        key: input.key,
        type,
        value: normaliseValue(type, input.value),
        createdAt: previous?.createdAt ?? now,
        updatedAt: now,
      };
      byKey.set(mapKey, record);
      return record;
    });
    return { metafields: written, userErrors: [] };
  }

  /**
   * webPixelCreate / webPixelUpdate: Shopify validates the settings against the extension's
   * settings definition (shopify.extension.toml); so does the stand-in, against the Tag Guard
   * pixel's (WEB_PIXEL_SETTINGS_DEFINITION), and one pixel per app and shop.
   */
  webPixelSave(
    shop: ShopState,
    id: string | null,
    settings: unknown,
  ): { webPixel: ShopState["webPixel"]; userErrors: UserErrorOut[] } {
    if (id === null && shop.webPixel)
      return { webPixel: null, userErrors: [{ field: null, message: "Web pixel is taken.", code: "TAKEN" }] };
    if (id !== null && shop.webPixel?.id !== id)
      return { webPixel: null, userErrors: [{ field: ["id"], message: "Web pixel not found.", code: "NOT_FOUND" }] };
    const problem = invalidPixelSettings(settings);
    if (problem)
      return {
        webPixel: null,
        userErrors: [{ field: ["webPixel", "settings"], message: problem, code: "INVALID_SETTINGS" }],
      };
    const parsed = (typeof settings === "string" ? JSON.parse(settings) : settings) as Record<string, unknown>;
    shop.webPixel = { id: id ?? `gid://shopify/WebPixel/${this.id()}`, settings: parsed };
    return { webPixel: shop.webPixel, userErrors: [] };
  }

  /** The merchant disconnects the pixel (Settings > Customer events), as the stand-in's tests need. */
  webPixelDelete(shop: ShopState): void {
    shop.webPixel = null;
  }

  metafieldDefinitionCreate(
    shop: ShopState,
    input: {
      name: string;
      namespace?: string | null;
      key: string;
      type: string;
      ownerType: string;
      description?: string | null;
      pin?: boolean | null;
      access?: { admin?: string | null } | null;
    },
  ): { createdDefinition: MetafieldDefinitionRecord | null; userErrors: UserErrorOut[] } {
    const namespace = this.resolveNamespace(input.namespace);
    const fail = (field: string, message: string, code: string) => ({
      createdDefinition: null,
      userErrors: [{ field: ["definition", field], message, code }],
    });
    if (!input.name.trim()) return fail("name", "Name can't be blank.", "BLANK");
    if (!KNOWN_TYPES.has(input.type) && !input.type.startsWith("list."))
      return fail("type", `Type '${input.type}' is not a valid type.`, "INCLUSION");
    if (!["ORDER", "API_PERMISSION"].includes(input.ownerType))
      return fail("ownerType", `Stand-in supports ORDER and API_PERMISSION definitions only.`, "INCLUSION");
    if (input.access?.admin && !namespace.startsWith(`app--${this.appId}`)) {
      return fail(
        "access",
        "Admin access can only be specified on metafield definitions that have an app namespace.",
        "ADMIN_ACCESS_INPUT_NOT_ALLOWED",
      );
    }
    if (
      shop.definitions.some((d) => d.ownerType === input.ownerType && d.namespace === namespace && d.key === input.key)
    ) {
      return fail(
        "key",
        `Key is in use for ${input.ownerType.toLowerCase()} metafields on the '${namespace}' namespace.`,
        "TAKEN",
      );
    }
    const pinned = shop.definitions.filter((d) => d.ownerType === input.ownerType && d.pinnedPosition !== null).length;
    const record: MetafieldDefinitionRecord = {
      id: this.id(),
      ownerType: input.ownerType,
      namespace,
      key: input.key,
      name: input.name,
      type: input.type,
      description: input.description ?? null,
      pinnedPosition: input.pin ? pinned + 1 : null,
      access: { admin: input.access?.admin ?? (namespace.startsWith("app--") ? "MERCHANT_READ_WRITE" : null) },
    };
    shop.definitions.push(record);
    return { createdDefinition: record, userErrors: [] };
  }

  /** What a token exchange grants when the caller names no scopes: the app's declared scopes. */
  grantedScopes: string | undefined = undefined;
  /** What a new shop's Shop.ianaTimezone and currencyCode answer (startShopifyStandin's shopProfile). */
  shopDefaults = { ianaTimezone: "UTC", currencyCode: "USD" };

  issueToken(shop: string, options: IssueOptions = {}): TokenRecord {
    const state = this.shop(shop);
    const issued = this.tokens.issue(shop, { scope: this.grantedScopes, ...options });
    // Optional scopes once granted stay granted: a new token (token exchange) carries them.
    if (state.grantedScopes.size > 0) this.tokens.grantScopes(state.domain, [...state.grantedScopes]);
    return issued;
  }

  /** Leaky bucket: restores restoreRate points per second up to maximumAvailable. */
  bucketNow(shop: ShopState): number {
    const now = this.clock();
    const restored = ((now - shop.bucket.at) / 1000) * THROTTLE.restoreRate;
    shop.bucket.available = Math.min(THROTTLE.maximumAvailable, shop.bucket.available + Math.max(0, restored));
    shop.bucket.at = now;
    return shop.bucket.available;
  }
}

export function digest(record: MetafieldRecord): string {
  return createHash("sha256").update(`${record.id}:${record.value}:${record.updatedAt}`).digest("hex");
}

export function splitTags(tags: unknown): string[] {
  if (Array.isArray(tags)) return tags.flatMap(splitTags);
  if (typeof tags !== "string") return [];
  return tags
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
}

function validateValue(type: string, value: string): string | null {
  switch (type) {
    case "json":
      try {
        JSON.parse(value);
        return null;
      } catch {
        return "Value is invalid JSON.";
      }
    case "boolean":
      return value === "true" || value === "false" ? null : "Value must be true or false.";
    case "number_integer":
      return /^-?\d+$/.test(value) ? null : "Value must be an integer.";
    case "number_decimal":
      return /^-?\d+(\.\d+)?$/.test(value) ? null : "Value must be a decimal.";
    case "single_line_text_field":
      return value.includes("\n") ? "Value must be a single line." : null;
    default:
      return null;
  }
}

function normaliseValue(type: string, value: string): string {
  // Shopify re-serialises json values (compact form).
  return type === "json" ? JSON.stringify(JSON.parse(value)) : value;
}

/**
 * The Tag Guard pixel's settings definition, as extensions/tag-guard-pixel/shopify.extension.toml
 * declares it (tests/sandbox-shopify holds the two equal): field name, type, length bounds.
 */
export const WEB_PIXEL_SETTINGS_DEFINITION = {
  tagParams: { type: "single_line_text_field", min: 2, max: 700 },
} as const;

/** Why settings do not match the definition, or null when they do. */
function invalidPixelSettings(settings: unknown): string | null {
  let value: unknown = settings;
  if (typeof settings === "string") {
    try {
      value = JSON.parse(settings);
    } catch {
      return "Settings must be a JSON object.";
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "Settings must be a JSON object.";
  for (const [name, field] of Object.entries(value)) {
    const definition = WEB_PIXEL_SETTINGS_DEFINITION[name as keyof typeof WEB_PIXEL_SETTINGS_DEFINITION];
    if (!definition) return `Setting ${name} is not defined by the extension.`;
    if (typeof field !== "string") return `Setting ${name} must be a ${definition.type}.`;
    if (field.length < definition.min || field.length > definition.max)
      return `Setting ${name} must be between ${definition.min} and ${definition.max} characters.`;
    if (/[\r\n]/.test(field)) return `Setting ${name} must be a single line.`;
  }
  for (const name of Object.keys(WEB_PIXEL_SETTINGS_DEFINITION))
    if (!(name in value)) return `Setting ${name} is required.`;
  return null;
}

// Executes the Admin operations the app uses against the in-memory store with graphql-js
// `execute` over the REAL Admin schema: field names, arguments, variables, aliases, non-null
// rules and input coercion are the schema's. Resolvers exist only for the fields below; any
// other field resolves to null (and errors where the schema says non-null).
import {
  GraphQLError,
  TypeInfo,
  execute,
  getNamedType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import {
  digest,
  type DiscountRecord,
  type MetafieldDefinitionRecord,
  type MetafieldRecord,
  type OrderRecord,
  type ShopState,
  type ShopifyStandinStore,
} from "./store";
import type { TokenRecord } from "./tokens";
import { orderReadFields, ordersConnection, refundView, searchOrders } from "./order-reads";
import { payoutMutations, payoutQueries } from "./payouts";

export interface ExecContext {
  store: ShopifyStandinStore;
  shop: ShopState;
  token: TokenRecord;
}

const ORDER_READ = ["read_orders", "write_orders", "read_all_orders"];
// A write scope includes its read scope, as Shopify's do.
const DISCOUNT_READ = ["read_discounts", "write_discounts"];

function requireScope(ctx: ExecContext, field: string, anyOf: string[]) {
  if (!anyOf.some((s) => ctx.token.scope.includes(s))) {
    throw new GraphQLError(
      `Access denied for ${field} field. Required access: \`${anyOf[anyOf.length - 1] === "read_all_orders" ? "read_orders" : anyOf[0]}\` access scope.`,
      {
        extensions: {
          code: "ACCESS_DENIED",
          documentation: "https://shopify.dev/api/usage/access-scopes",
          requiredAccess: `\`${anyOf[0]}\` access scope.`,
        },
      },
    );
  }
}

/** webPixelCreate/Update need write_pixels and, per Shopify's docs, read_customer_events too. */
function requirePixelScopes(ctx: ExecContext, field: string) {
  requireScope(ctx, field, ["write_pixels"]);
  requireScope(ctx, field, ["read_customer_events"]);
}

/** The JSON scalar comes back as the JSON text of the settings, as Shopify returns it. */
function webPixelView(pixel: NonNullable<ShopState["webPixel"]>) {
  return { __typename: "WebPixel", id: pixel.id, settings: JSON.stringify(pixel.settings) };
}

function connection<T>(items: T[], args: { first?: number | null; last?: number | null }) {
  const limit = args.first ?? args.last ?? items.length;
  const slice = args.last && !args.first ? items.slice(-limit) : items.slice(0, limit);
  return {
    nodes: slice,
    edges: slice.map((node, i) => ({ node, cursor: Buffer.from(`c${i}`).toString("base64") })),
    pageInfo: {
      hasNextPage: slice.length < items.length && !!args.first,
      hasPreviousPage: false,
      startCursor: null,
      endCursor: null,
    },
  };
}

function metafieldView(record: MetafieldRecord) {
  return {
    __typename: "Metafield",
    id: `gid://shopify/Metafield/${record.id}`,
    legacyResourceId: String(record.id),
    namespace: record.namespace,
    key: record.key,
    type: record.type,
    value: record.value,
    jsonValue: record.type === "json" ? JSON.parse(record.value) : record.value,
    compareDigest: digest(record),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ownerType: record.ownerType,
    description: null,
    definition: null,
  };
}

function metafieldAccessors(ctx: ExecContext, ownerGid: string) {
  return {
    metafield: (args: { namespace?: string | null; key: string }) => {
      const record = ctx.store.metafield(ctx.shop, ownerGid, args.namespace, args.key);
      return record ? metafieldView(record) : null;
    },
    metafields: (args: {
      namespace?: string | null;
      keys?: string[] | null;
      first?: number | null;
      last?: number | null;
    }) => {
      let items = ctx.store.metafieldsOf(ctx.shop, ownerGid);
      if (args.namespace) {
        const ns = ctx.store.resolveNamespace(args.namespace);
        items = items.filter((m) => m.namespace === ns);
      }
      if (args.keys) {
        items = items.filter((m) =>
          args.keys!.some((k) => {
            const dot = k.lastIndexOf(".");
            return ctx.store.resolveNamespace(k.slice(0, dot)) === m.namespace && k.slice(dot + 1) === m.key;
          }),
        );
      }
      return connection(items.map(metafieldView), args);
    },
  };
}

function orderView(ctx: ExecContext, order: OrderRecord) {
  const p = order.payload as Record<string, any>;
  return {
    __typename: "Order",
    id: order.gid,
    // From the gid: a JSON number id beyond 2^53 has already lost its last digits.
    legacyResourceId: order.gid.slice(order.gid.lastIndexOf("/") + 1),
    name: order.name,
    tags: () => [...order.tags],
    // The codes of the webhook's discount_codes, as Shopify's Order.discountCodes lists them.
    discountCodes: () =>
      (Array.isArray(p.discount_codes) ? (p.discount_codes as { code?: unknown }[]) : [])
        .map((entry) => entry?.code)
        .filter((code): code is string => typeof code === "string"),
    email: p.email ?? null,
    note: p.note ?? null,
    createdAt: p.created_at ?? null,
    processedAt: p.processed_at ?? p.created_at ?? null,
    currencyCode: p.currency ?? null,
    test: Boolean(p.test),
    customAttributes: (p.note_attributes ?? []).map((a: { name: string; value: string }) => ({
      key: a.name,
      value: a.value,
    })),
    ...orderReadFields(ctx.shop, order, ctx.store.clock),
    ...metafieldAccessors(ctx, order.gid),
  };
}

function discountNodeView(discount: DiscountRecord) {
  return {
    __typename: "DiscountCodeNode",
    id: discount.gid,
    codeDiscount: {
      __typename: "DiscountCodeBasic",
      title: discount.title,
      status: discount.status,
      endsAt: discount.endsAt,
      codes: (args: { first?: number | null; last?: number | null }) =>
        connection(
          discount.codes.map((code, i) => ({
            __typename: "DiscountRedeemCode",
            id: `${discount.gid}/code/${i}`,
            code,
          })),
          args,
        ),
    },
  };
}

function definitionView(d: MetafieldDefinitionRecord) {
  return {
    __typename: "MetafieldDefinition",
    id: `gid://shopify/MetafieldDefinition/${d.id}`,
    name: d.name,
    namespace: d.namespace,
    key: d.key,
    description: d.description,
    ownerType: d.ownerType,
    pinnedPosition: d.pinnedPosition,
    type: { name: d.type, category: d.type === "json" ? "JSON" : "TEXT" },
    access: { admin: d.access.admin, storefront: "NONE", customerAccount: "NONE" },
  };
}

function queryRoot(ctx: ExecContext) {
  return {
    ...payoutQueries(ctx.shop, (field, anyOf) => requireScope(ctx, field, anyOf)),
    order: ({ id }: { id: string }) => {
      requireScope(ctx, "order", ORDER_READ);
      const order = ctx.shop.orders.get(id);
      return order ? orderView(ctx, order) : null;
    },
    orders: (args: {
      first?: number | null;
      after?: string | null;
      query?: string | null;
      sortKey?: string | null;
      reverse?: boolean | null;
    }) => {
      requireScope(ctx, "orders", ORDER_READ);
      const page = ordersConnection(searchOrders([...ctx.shop.orders.values()], args.query), args);
      return {
        nodes: page.slice.map((order) => orderView(ctx, order)),
        edges: page.slice.map((order) => ({ node: orderView(ctx, order), cursor: page.cursor(order) })),
        pageInfo: page.pageInfo,
      };
    },
    refund: ({ id }: { id: string }) => {
      requireScope(ctx, "refund", ORDER_READ);
      const found = ctx.store.findRefund(ctx.shop, id);
      return found ? refundView(found.order, found.refund) : null;
    },
    codeDiscountNodeByCode: ({ code }: { code: string }) => {
      requireScope(ctx, "codeDiscountNodeByCode", DISCOUNT_READ);
      const discount = ctx.store.discountByCode(ctx.shop, code);
      return discount ? discountNodeView(discount) : null;
    },
    currentAppInstallation: () => ({
      __typename: "AppInstallation",
      id: ctx.shop.appInstallationGid,
      accessScopes: ctx.token.scope.map((handle) => ({ handle, description: handle })),
      ...metafieldAccessors(ctx, ctx.shop.appInstallationGid),
    }),
    webPixel: ({ id }: { id?: string | null }) => {
      requireScope(ctx, "webPixel", ["read_pixels", "write_pixels"]);
      const pixel = ctx.shop.webPixel;
      return pixel && (!id || id === pixel.id) ? webPixelView(pixel) : null;
    },
    shop: () => ({
      __typename: "Shop",
      id: `gid://shopify/Shop/${Math.abs(hash(ctx.shop.domain))}`,
      name: ctx.shop.domain.replace(/\.myshopify\.com$/, ""),
      myshopifyDomain: ctx.shop.domain,
      ianaTimezone: ctx.shop.ianaTimezone,
      currencyCode: ctx.shop.currencyCode,
    }),
  };
}

function mutationRoot(ctx: ExecContext) {
  return {
    ...payoutMutations(
      ctx.shop,
      (field, anyOf) => requireScope(ctx, field, anyOf),
      () => new Date(ctx.store.clock()).toISOString(),
    ),
    tagsAdd: ({ id, tags }: { id: string; tags: string[] }) => {
      if (id.startsWith("gid://shopify/Order/")) requireScope(ctx, "tagsAdd", ["write_orders"]);
      return ctx.store.tagsAdd(ctx.shop, id, tags);
    },
    metafieldsSet: ({ metafields }: { metafields: Parameters<ShopifyStandinStore["metafieldsSet"]>[1] }) => {
      if (metafields.some((m) => m.ownerId.startsWith("gid://shopify/Order/")))
        requireScope(ctx, "metafieldsSet", ["write_orders"]);
      const result = ctx.store.metafieldsSet(ctx.shop, metafields);
      return { metafields: result.metafields?.map(metafieldView) ?? null, userErrors: result.userErrors };
    },
    discountCodeDeactivate: ({ id }: { id: string }) => {
      requireScope(ctx, "discountCodeDeactivate", ["write_discounts"]);
      const result = ctx.store.deactivateDiscount(ctx.shop, id);
      return {
        codeDiscountNode: result.discount ? discountNodeView(result.discount) : null,
        userErrors: result.userErrors,
      };
    },
    webPixelCreate: ({ webPixel }: { webPixel: { settings: unknown } }) => {
      requirePixelScopes(ctx, "webPixelCreate");
      const result = ctx.store.webPixelSave(ctx.shop, null, webPixel.settings);
      return { webPixel: result.webPixel ? webPixelView(result.webPixel) : null, userErrors: result.userErrors };
    },
    webPixelUpdate: ({ id, webPixel }: { id: string; webPixel: { settings: unknown } }) => {
      requirePixelScopes(ctx, "webPixelUpdate");
      const result = ctx.store.webPixelSave(ctx.shop, id, webPixel.settings);
      return { webPixel: result.webPixel ? webPixelView(result.webPixel) : null, userErrors: result.userErrors };
    },
    metafieldDefinitionCreate: ({
      definition,
    }: {
      definition: Parameters<ShopifyStandinStore["metafieldDefinitionCreate"]>[1];
    }) => {
      const result = ctx.store.metafieldDefinitionCreate(ctx.shop, definition);
      return {
        createdDefinition: result.createdDefinition ? definitionView(result.createdDefinition) : null,
        userErrors: result.userErrors,
      };
    },
  };
}

export function runOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  ctx: ExecContext,
): ExecutionResult {
  const rootValue =
    operation.operation === "mutation" ? mutationRoot(ctx) : operation.operation === "query" ? queryRoot(ctx) : {};
  return execute({
    schema,
    document,
    rootValue,
    contextValue: ctx,
    variableValues: variables ?? {},
    operationName: operation.name?.value,
    typeResolver: (value) => (value as { __typename?: string }).__typename,
  }) as ExecutionResult;
}

/**
 * Approximation of Shopify's calculated query cost: 10 per mutation field, 1 per object
 * (or interface/union) field, connections multiply their children by `first`/`last` and add 2.
 */
export function queryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> = {},
): number {
  const typeInfo = new TypeInfo(schema);
  const multipliers: number[] = [1];
  let cost = 0;
  let depth = 0;
  visit(
    operation,
    visitWithTypeInfo(typeInfo, {
      Field: {
        enter(node) {
          depth += 1;
          const type = typeInfo.getType();
          const named = type ? getNamedType(type) : undefined;
          const factor = multipliers[multipliers.length - 1] ?? 1;
          let own = 0;
          let childFactor = factor;
          if (operation.operation === "mutation" && depth === 1) own = 10;
          else if (named && (isObjectType(named) || isInterfaceType(named) || isUnionType(named))) {
            own = 1;
            if (named.name.endsWith("Connection")) {
              const arg = node.arguments?.find((a) => a.name.value === "first" || a.name.value === "last");
              let n = 1;
              if (arg?.value.kind === "IntValue") n = Number(arg.value.value);
              else if (arg?.value.kind === "Variable") n = Number(variables[arg.value.name.value] ?? 1);
              own = 2;
              childFactor = factor * Math.max(1, n);
            }
          }
          cost += own * factor;
          multipliers.push(childFactor);
        },
        leave() {
          depth -= 1;
          multipliers.pop();
        },
      },
    }),
  );
  void document;
  return Math.max(1, cost);
}

function hash(text: string): number {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) | 0;
  return h;
}

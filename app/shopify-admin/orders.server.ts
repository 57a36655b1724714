// Writes the app's verdicts into Shopify: the hijack tag and evidence on an order, the
// storefront settings on the app installation, and the evidence metafield's definition; reads
// an order's journey (its visits) for attribution.
import { STOREFRONT_CONFIG_METAFIELD } from "../attribution/cart-attributes";
import {
  requestAdmin,
  type AdminData,
  type AdminFailure,
  type AdminGraphql,
  type AdminResult,
  type AdminVariables,
  type QueryCost,
  type RetryOptions,
} from "./admin-client.server";
import {
  CURRENT_APP_INSTALLATION,
  EVIDENCE_DEFINITION_CREATE,
  EVIDENCE_METAFIELD,
  MARK_ORDER_HIJACKED,
  METAFIELDS_SET,
  ORDER_AMOUNTS,
  ORDER_JOURNEY,
  ORDER_TAG_GUARD_STATE,
} from "./documents";

export type { AdminGraphql, AdminResult, RetryOptions } from "./admin-client.server";

/** What the merchant sees on the order (JSON value of the evidence metafield). */
export interface HijackEvidence {
  /** Creator tag the click service says the order belongs to. */
  expectedTag: string;
  /** Tag that was on the cart when the order arrived (the hijacker's). */
  arrivedTag: string | null;
  creatorId: string;
  /** Verdict of the click verification, e.g. "hijacked". */
  verdict: string;
  /** ISO 8601 time the verdict was reached. */
  decidedAt: string;
  /** Optional: click id the verdict was made on. */
  clickId?: string | null;
}

export interface MarkOrderHijackedInput {
  /** gid://shopify/Order/… (the webhook's admin_graphql_api_id). */
  orderGid: string;
  /** The merchant's hijack tag (their settings always hold one). */
  tag: string;
  evidence: HijackEvidence;
}

export async function markOrderHijacked(
  graphql: AdminGraphql,
  { orderGid, tag, evidence }: MarkOrderHijackedInput,
  options?: RetryOptions,
): Promise<AdminResult> {
  const hijackTag = tag.trim();
  if (!hijackTag) return { ok: false, retryable: false, message: "user errors: the hijack tag is blank" };
  const variables: AdminVariables<typeof MARK_ORDER_HIJACKED> = {
    id: orderGid,
    tags: [hijackTag],
    metafields: [
      {
        ownerId: orderGid,
        namespace: EVIDENCE_METAFIELD.namespace,
        key: EVIDENCE_METAFIELD.key,
        type: EVIDENCE_METAFIELD.type,
        value: JSON.stringify(evidence),
      },
    ],
  };
  const result = await requestAdmin(graphql, MARK_ORDER_HIJACKED, variables, options);
  if (!result.ok) return result;
  const { tagsAdd, metafieldsSet } = result.data;
  const problems = [
    ...describeUserErrors("tagsAdd", tagsAdd?.userErrors),
    ...describeUserErrors("metafieldsSet", metafieldsSet?.userErrors),
  ];
  if (problems.length > 0) {
    const notFound = problems.some((p) => /not (be )?found|does not exist|doesn't exist/i.test(p));
    return {
      ok: false,
      retryable: false,
      message: `${notFound ? "order not found" : "user errors"}: ${problems.join("; ")}`,
    };
  }
  if (!tagsAdd?.node) return { ok: false, retryable: false, message: `order not found: ${orderGid}` };
  if (!metafieldsSet?.metafields?.length) {
    return { ok: false, retryable: false, message: "user errors: metafieldsSet returned no metafield" };
  }
  return { ok: true, ...(result.cost && { cost: result.cost }) };
}

export interface StorefrontConfig {
  tagParams: string[];
}

/** Publishes the settings the theme extension reads (app.metafields.tag_guard.storefront_config). */
export async function writeStorefrontConfig(
  graphql: AdminGraphql,
  config: StorefrontConfig,
  options?: RetryOptions,
): Promise<AdminResult> {
  const installation = await requestAdmin(graphql, CURRENT_APP_INSTALLATION, {}, options);
  if (!installation.ok) return installation;
  const ownerId = installation.data.currentAppInstallation?.id;
  if (!ownerId) return { ok: false, retryable: false, message: "access denied: no current app installation" };
  const variables: AdminVariables<typeof METAFIELDS_SET> = {
    metafields: [
      {
        ownerId,
        namespace: STOREFRONT_CONFIG_METAFIELD.namespace,
        key: STOREFRONT_CONFIG_METAFIELD.key,
        type: "json",
        value: JSON.stringify({ tagParams: config.tagParams }),
      },
    ],
  };
  const result = await requestAdmin(graphql, METAFIELDS_SET, variables, options);
  if (!result.ok) return result;
  const problems = describeUserErrors("metafieldsSet", result.data.metafieldsSet?.userErrors);
  if (problems.length > 0) return { ok: false, retryable: false, message: `user errors: ${problems.join("; ")}` };
  return { ok: true };
}

/**
 * Creates the order metafield definition for the evidence, pinned, merchant-readable and
 * app-writable only. Idempotent: a definition that already exists (TAKEN) counts as success.
 * Call once per shop (e.g. afterAuth).
 */
export async function ensureEvidenceDefinition(graphql: AdminGraphql, options?: RetryOptions): Promise<AdminResult> {
  const variables: AdminVariables<typeof EVIDENCE_DEFINITION_CREATE> = {
    definition: {
      name: "Affiliate hijack evidence",
      namespace: EVIDENCE_METAFIELD.namespace,
      key: EVIDENCE_METAFIELD.key,
      type: EVIDENCE_METAFIELD.type,
      description:
        "Written by Tag Guard when a coupon extension swapped the affiliate tag: expected tag, arrived tag, creator id, verdict and time.",
      ownerType: "ORDER",
      pin: true,
      access: { admin: "MERCHANT_READ" },
    },
  };
  const result = await requestAdmin(graphql, EVIDENCE_DEFINITION_CREATE, variables, options);
  if (!result.ok) return result;
  const errors = result.data.metafieldDefinitionCreate?.userErrors ?? [];
  const blocking = errors.filter((e) => e.code !== "TAKEN");
  if (blocking.length > 0) {
    return {
      ok: false,
      retryable: false,
      message: `user errors: ${describeUserErrors("metafieldDefinitionCreate", blocking).join("; ")}`,
    };
  }
  return { ok: true };
}

/** Shopify's record of an order's visits: whether it is ready, and its first and last visits' landing pages. */
export interface OrderJourney {
  ready: boolean;
  visits: { landingPage: string | null; occurredAt: Date | null }[];
}

export async function readOrderJourney(
  graphql: AdminGraphql,
  orderGid: string,
  options?: RetryOptions,
): Promise<{ ok: true; journey: OrderJourney | null; cost?: QueryCost } | AdminFailure> {
  const result = await requestAdmin(graphql, ORDER_JOURNEY, { id: orderGid }, options);
  if (!result.ok) return result;
  const summary = result.data.order?.customerJourneySummary;
  if (!summary) return { ok: true, journey: null, cost: result.cost };
  const visit = (v: { landingPage?: unknown; occurredAt?: unknown } | null | undefined) =>
    v
      ? {
          landingPage: typeof v.landingPage === "string" ? v.landingPage : null,
          occurredAt:
            typeof v.occurredAt === "string" && !Number.isNaN(Date.parse(v.occurredAt)) ? new Date(v.occurredAt) : null,
        }
      : null;
  const visits = [visit(summary.firstVisit), visit(summary.lastVisit)].filter((v) => v !== null);
  return { ok: true, journey: { ready: summary.ready, visits }, cost: result.cost };
}

/** An order's amounts after its edits, before returns, in its shop's money (null: Shopify gave none). */
export interface OrderAmounts {
  currency: string;
  /** subtotalPriceSet: line items after discounts. */
  subtotal: string | null;
  /** totalPriceSet: with taxes and shipping. */
  total: string | null;
  /** totalDiscountsSet: what discounts took. */
  discounts: string | null;
}

export async function readOrderAmounts(
  graphql: AdminGraphql,
  orderGid: string,
  options?: RetryOptions,
): Promise<{ ok: true; amounts: OrderAmounts | null; cost?: QueryCost } | AdminFailure> {
  const result = await requestAdmin(graphql, ORDER_AMOUNTS, { id: orderGid }, options);
  if (!result.ok) return result;
  const order = result.data.order;
  if (!order) return { ok: true, amounts: null, cost: result.cost };
  const amount = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    ok: true,
    amounts: {
      currency: order.subtotalPriceSet?.shopMoney.currencyCode ?? order.currencyCode,
      subtotal: amount(order.subtotalPriceSet?.shopMoney.amount),
      total: amount(order.totalPriceSet.shopMoney.amount),
      discounts: amount(order.totalDiscountsSet?.shopMoney.amount),
    },
    cost: result.cost,
  };
}

export type OrderTagGuardState = NonNullable<AdminData<typeof ORDER_TAG_GUARD_STATE>["order"]>;

/** Reads an order's tags and evidence back. */
export async function readOrderTagGuardState(
  graphql: AdminGraphql,
  orderGid: string,
  options?: RetryOptions,
): Promise<{ ok: true; order: OrderTagGuardState | null } | { ok: false; retryable: boolean; message: string }> {
  const result = await requestAdmin(graphql, ORDER_TAG_GUARD_STATE, { id: orderGid }, options);
  if (!result.ok) return result;
  return { ok: true, order: result.data.order ?? null };
}

/** The userErrors of any mutation: some carry a code. */
interface UserError {
  field?: string[] | null;
  message: string;
  code?: string | null;
}

function describeUserErrors(field: string, errors: UserError[] | undefined | null): string[] {
  return (errors ?? []).map((e) => {
    const code = e.code ? ` [${e.code}]` : "";
    const path = e.field?.length ? ` (${e.field.join(".")})` : "";
    return `${field}: ${e.message}${code}${path}`;
  });
}

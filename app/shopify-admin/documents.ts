// Every GraphQL document the app sends to the Admin API (2026-10). Their variable and result
// types are generated from this file (`npm run graphql-codegen` writes app/types/; see
// requestAdmin), and tests/shopify-admin validates every string exported here against the
// vendored Admin schema, so a document added to this module is covered automatically.
// Plain module (no network): safe to import from anywhere.

/** Where the hijack evidence lives on an order. `$app:` makes it app-owned (reserved). */
export const EVIDENCE_METAFIELD = {
  namespace: "$app:tag_guard",
  key: "hijack_evidence",
  type: "json",
} as const;

/**
 * Tag the order and write the evidence in one round trip: both fields are idempotent
 * (tagsAdd ignores tags already present; metafieldsSet is an upsert), so the whole
 * mutation can be retried safely.
 */
export const MARK_ORDER_HIJACKED = `#graphql
  mutation TagGuardMarkOrderHijacked($id: ID!, $tags: [String!]!, $metafields: [MetafieldsSetInput!]!) {
    tagsAdd(id: $id, tags: $tags) {
      node { id }
      userErrors { field message }
    }
    metafieldsSet(metafields: $metafields) {
      metafields { id namespace key }
      userErrors { field message code }
    }
  }
`;

export const CURRENT_APP_INSTALLATION = `#graphql
  query TagGuardCurrentAppInstallation {
    currentAppInstallation { id }
  }
`;

export const METAFIELDS_SET = `#graphql
  mutation TagGuardMetafieldsSet($metafields: [MetafieldsSetInput!]!) {
    metafieldsSet(metafields: $metafields) {
      metafields { id namespace key }
      userErrors { field message code }
    }
  }
`;

/**
 * Pins the evidence metafield to the order page with merchant read access, so the merchant
 * sees it in the admin's Metafields card without being able to edit it. Once per shop.
 */
export const EVIDENCE_DEFINITION_CREATE = `#graphql
  mutation TagGuardEvidenceDefinitionCreate($definition: MetafieldDefinitionInput!) {
    metafieldDefinitionCreate(definition: $definition) {
      createdDefinition { id namespace key }
      userErrors { field message code }
    }
  }
`;

/**
 * Reads back what the app wrote on an order (used by checks, support tooling and tests), and the
 * discount codes Shopify holds for it: the same codes orders/create brought (discount_codes).
 */
export const ORDER_TAG_GUARD_STATE = `#graphql
  query TagGuardOrderState($id: ID!) {
    order(id: $id) {
      id
      name
      tags
      discountCodes
      evidence: metafield(namespace: "$app:tag_guard", key: "hijack_evidence") {
        id
        namespace
        key
        type
        value
      }
    }
  }
`;

/**
 * The code discount a discount code belongs to (Codes page, issue 37). Needs read_discounts,
 * an optional scope the merchant grants on first use.
 */
export const CODE_DISCOUNT_BY_CODE = `#graphql
  query TagGuardCodeDiscountByCode($code: String!) {
    codeDiscountNodeByCode(code: $code) {
      id
      codeDiscount {
        __typename
        ... on DiscountCodeBasic { title status }
        ... on DiscountCodeBxgy { title status }
        ... on DiscountCodeFreeShipping { title status }
        ... on DiscountCodeApp { title status }
      }
    }
  }
`;

/** Switches a code discount off (every code of it): needs write_discounts, optional like the above. */
export const DISCOUNT_CODE_DEACTIVATE = `#graphql
  mutation TagGuardDiscountCodeDeactivate($id: ID!) {
    discountCodeDeactivate(id: $id) {
      codeDiscountNode {
        id
        codeDiscount {
          __typename
          ... on DiscountCodeBasic { status }
          ... on DiscountCodeBxgy { status }
          ... on DiscountCodeFreeShipping { status }
          ... on DiscountCodeApp { status }
        }
      }
      userErrors { field message code }
    }
  }
`;

/** The app's web pixel on the shop (extensions/tag-guard-pixel), or null when none is connected. */
export const WEB_PIXEL = `#graphql
  query TagGuardWebPixel {
    webPixel { id settings }
  }
`;

/** Connects the web pixel for the shop: no merchant step. Settings are checked against the extension's. */
export const WEB_PIXEL_CREATE = `#graphql
  mutation TagGuardWebPixelCreate($webPixel: WebPixelInput!) {
    webPixelCreate(webPixel: $webPixel) {
      webPixel { id settings }
      userErrors { field message code }
    }
  }
`;

/** Updates the connected pixel's settings (the tag parameters changed). */
export const WEB_PIXEL_UPDATE = `#graphql
  mutation TagGuardWebPixelUpdate($id: ID!, $webPixel: WebPixelInput!) {
    webPixelUpdate(id: $id, webPixel: $webPixel) {
      webPixel { id settings }
      userErrors { field message code }
    }
  }
`;

/**
 * The reconciliation sweep's listing (app/reconciliation): orders updated in a window, oldest
 * change first, with only what tells whether the app has seen them (the order, its refunds, its
 * cancellation, and whether it was ever edited: a scalar, so the page costs no more; an edited
 * order with a live commission then has its amounts read with ORDER_AMOUNTS, decision 045). The orders it has not seen are read whole with RECONCILE_ORDER.
 * `query` is Shopify's search syntax: updated_at:>='…' AND updated_at:<='…'.
 */
export const RECONCILE_ORDERS = `#graphql
  query TagGuardReconcileOrders($query: String!, $first: Int!, $after: String) {
    orders(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
      nodes {
        id
        legacyResourceId
        updatedAt
        cancelledAt
        refunds(first: 20) { id legacyResourceId }
        edited
      }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

/**
 * One order as orders/create describes it, for an order no delivery brought: the fields
 * app/verification/order-facts.ts reads, under their GraphQL names. Its lines' prices before
 * discounts (total_line_items_price) come a page of lines at a time: 20 lines, as most orders
 * have fewer, keep a read near 90 points where 50 would cost 160.
 */
export const RECONCILE_ORDER = `#graphql
  query TagGuardReconcileOrder($id: ID!, $linesAfter: String) {
    order(id: $id) {
      id
      legacyResourceId
      name
      createdAt
      currencyCode
      subtotalPriceSet { shopMoney { amount currencyCode } }
      totalPriceSet { shopMoney { amount currencyCode } }
      customAttributes { key value }
      cartToken
      checkoutToken
      customerJourneySummary { lastVisit { landingPage } }
      totalDiscountsSet { shopMoney { amount } }
      discountApplications(first: 5) {
        nodes {
          targetType
          value { __typename }
          ... on DiscountCodeApplication { code }
        }
      }
      lineItems(first: 20, after: $linesAfter) {
        nodes { originalTotalSet { shopMoney { amount } } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;

/** One refund as refunds/create describes it, for a refund no delivery brought; its lines a page at a time. */
export const RECONCILE_REFUND = `#graphql
  query TagGuardReconcileRefund($id: ID!, $linesAfter: String) {
    refund(id: $id) {
      id
      legacyResourceId
      order { id legacyResourceId }
      refundLineItems(first: 20, after: $linesAfter) {
        nodes {
          quantity
          subtotalSet { shopMoney { amount currencyCode } }
          totalTaxSet { shopMoney { amount currencyCode } }
          lineItem { originalUnitPriceSet { shopMoney { amount currencyCode } } }
        }
        pageInfo { hasNextPage endCursor }
      }
      refundShippingLines(first: 10) {
        nodes {
          subtotalAmountSet { shopMoney { amount currencyCode } }
          taxAmountSet { shopMoney { amount currencyCode } }
        }
      }
    }
  }
`;

/**
 * Shopify's record of the visits that led to an order (docs/attribution.md): read only for an
 * order whose landing page cannot settle its attribution (a click reported on a visit whose
 * landing page carried none, or first reported before the one it carried). `ready` is false
 * while Shopify has not yet attributed the order's sessions. About 4 points a read.
 */
export const ORDER_JOURNEY = `#graphql
  query TagGuardOrderJourney($id: ID!) {
    order(id: $id) {
      id
      customerJourneySummary {
        ready
        firstVisit { landingPage occurredAt }
        lastVisit { landingPage occurredAt }
      }
    }
  }
`;

/**
 * An order's amounts as they stand after its edits, before returns (decision 045): what an edit
 * moves the commission to. orders/edited lists what the edit added and removed, not the totals.
 * subtotalPriceSet and totalPriceSet change with every committed edit and not with refunds,
 * which the ledger takes from refunds/create. About 7 points a read.
 */
export const ORDER_AMOUNTS = `#graphql
  query TagGuardOrderAmounts($id: ID!) {
    order(id: $id) {
      id
      currencyCode
      subtotalPriceSet { shopMoney { amount currencyCode } }
      totalPriceSet { shopMoney { amount currencyCode } }
      totalDiscountsSet { shopMoney { amount } }
    }
  }
`;

/** The shop's time zone and currency, read at each authorization so the admin speaks the shop's time and money. */
export const SHOP_PROFILE = `#graphql
  query TagGuardShopProfile {
    shop { ianaTimezone currencyCode }
  }
`;

/**
 * The creator's customer account, by email, for store credit and gift cards (app/payouts):
 * `query` is `email:"…"` (a phrase, so only that address matches). Needs read_customers and
 * the protected customer data the email is. Two are read so an address on several is seen.
 */
export const PAYOUT_CUSTOMER_BY_EMAIL = `#graphql
  query TagGuardPayoutCustomerByEmail($query: String!) {
    customers(first: 2, query: $query) {
      nodes { id email }
    }
  }
`;

/** A customer account for a creator who has none, when the merchant allows it: needs write_customers. */
export const PAYOUT_CUSTOMER_CREATE = `#graphql
  mutation TagGuardPayoutCustomerCreate($input: CustomerInput!) {
    customerCreate(input: $input) {
      customer { id }
      userErrors { field message }
    }
  }
`;

/**
 * The customer's store credit in one currency, newest transactions first: read before the first
 * credit (the newest one is the mark) and after an attempt whose answer was lost (what came
 * after the mark). Needs read_store_credit_account_transactions.
 */
export const PAYOUT_STORE_CREDIT_TRANSACTIONS = `#graphql
  query TagGuardPayoutStoreCreditTransactions($customerId: ID!, $currency: String!) {
    customer(id: $customerId) {
      id
      storeCreditAccounts(first: 2, query: $currency) {
        nodes {
          id
          transactions(first: 25, sortKey: CREATED_AT, reverse: true) {
            nodes {
              __typename
              amount { amount currencyCode }
              createdAt
              ... on StoreCreditAccountCreditTransaction { id event }
              ... on StoreCreditAccountDebitTransaction { id }
              ... on StoreCreditAccountDebitRevertTransaction { id }
            }
          }
        }
      }
    }
  }
`;

/** Credits the creator's store credit in the shop's currency, and has Shopify tell them. */
export const PAYOUT_STORE_CREDIT = `#graphql
  mutation TagGuardPayoutStoreCredit($customerId: ID!, $creditInput: StoreCreditAccountCreditInput!) {
    storeCreditAccountCredit(id: $customerId, creditInput: $creditInput) {
      storeCreditAccountTransaction { id amount { amount currencyCode } }
      userErrors { field message code }
    }
  }
`;

/**
 * A gift card for the amount with the creator as its recipient, so Shopify sends it to them. The
 * code is never asked for (giftCardCode, maskedCode): the app never holds it. `note` carries the
 * payout's marker, which is how an attempt whose answer was lost is found again.
 */
export const PAYOUT_GIFT_CARD_CREATE = `#graphql
  mutation TagGuardPayoutGiftCardCreate($input: GiftCardCreateInput!) {
    giftCardCreate(input: $input) {
      giftCard { id note initialValue { amount currencyCode } }
      userErrors { field message code }
    }
  }
`;

/** The gift cards a customer received, newest first, by their notes: finds a payout's marker. Needs read_gift_cards. */
export const PAYOUT_GIFT_CARDS_OF = `#graphql
  query TagGuardPayoutGiftCardsOf($query: String!) {
    giftCards(first: 50, query: $query, sortKey: CREATED_AT, reverse: true) {
      nodes { id note initialValue { amount currencyCode } }
    }
  }
`;

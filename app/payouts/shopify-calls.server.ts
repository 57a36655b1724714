import { t } from "../i18n";
import { requestAdmin, type AdminCallResult, type AdminGraphql } from "../shopify-admin/admin-client.server";
import {
  PAYOUT_CUSTOMER_BY_EMAIL,
  PAYOUT_CUSTOMER_CREATE,
  PAYOUT_GIFT_CARD_CREATE,
  PAYOUT_GIFT_CARDS_OF,
  PAYOUT_STORE_CREDIT,
  PAYOUT_STORE_CREDIT_TRANSACTIONS,
} from "../shopify-admin/documents";
import { cardsWithMarker, creditsAfterMark, type Answer, type Found } from "./shopify-steps";

// The Admin API calls a store credit or gift card payout makes, each answered as a value the
// steps decide on (shopify-steps.ts). A mutation's user errors are Shopify's refusal: nothing was
// created. The gift card's code is never asked for, so it never reaches the app or its logs.

const STORE_CREDIT_PAGE = 25;
const GIFT_CARD_PAGE = 50;
// Reads retry Shopify's throttling in place; a mutation is tried once: a lost answer is looked into first.
const READ = { maxAttempts: 3 };
const ONCE = { maxAttempts: 1 };

function answer<T, U>(result: AdminCallResult<T>, value: (data: T) => U): Answer<U> {
  if (!result.ok) return { ok: false, retryable: result.retryable, message: result.message };
  return { ok: true, value: value(result.data) };
}

const refusal = (errors: { message: string }[]) => ({ refused: errors.map((e) => e.message).join("; ") });

/** The numeric id at the end of a gid: what Shopify's search syntax takes. */
const numericId = (gid: string) => gid.slice(gid.lastIndexOf("/") + 1);

export async function findCustomer(graphql: AdminGraphql, email: string): Promise<Answer<string[]>> {
  const quoted = `email:"${email.replace(/["\\]/g, "")}"`;
  const result = await requestAdmin(graphql, PAYOUT_CUSTOMER_BY_EMAIL, { query: quoted }, READ);
  // Search matches words; only an account of exactly this address is the creator's.
  return answer(result, (data) =>
    data.customers.nodes.filter((c) => c.email?.toLowerCase() === email.toLowerCase()).map((c) => c.id),
  );
}

export async function createCustomer(
  graphql: AdminGraphql,
  email: string,
  name: string,
): Promise<Answer<{ id: string } | { refused: string }>> {
  const result = await requestAdmin(
    graphql,
    PAYOUT_CUSTOMER_CREATE,
    { input: { email, ...(name && { firstName: name }), note: t("payouts.shopify.customerNote") } },
    ONCE,
  );
  return answer(result, (data) => {
    const created = data.customerCreate;
    if (created?.customer) return { id: created.customer.id };
    return refusal(created?.userErrors ?? [{ message: "customerCreate returned nothing" }]);
  });
}

async function transactions(graphql: AdminGraphql, customerId: string, currency: string) {
  const result = await requestAdmin(
    graphql,
    PAYOUT_STORE_CREDIT_TRANSACTIONS,
    { customerId, currency: `currency_code:${currency}` },
    READ,
  );
  return answer(result, (data) => {
    const account = data.customer?.storeCreditAccounts.nodes[0];
    const nodes = account?.transactions.nodes ?? [];
    return {
      pageFull: nodes.length >= STORE_CREDIT_PAGE,
      list: nodes.map((n) => ({
        id: "id" in n ? n.id : null,
        credit: n.__typename === "StoreCreditAccountCreditTransaction",
        amount: n.amount.amount as string,
        currency: n.amount.currencyCode as string,
      })),
    };
  });
}

/** The account's newest transaction (with an id) before the first credit: the mark. */
export async function readMark(
  graphql: AdminGraphql,
  customerId: string,
  currency: string,
): Promise<Answer<{ newestId: string | null }>> {
  const read = await transactions(graphql, customerId, currency);
  if (!read.ok) return read;
  return { ok: true, value: { newestId: read.value.list.find((tr) => tr.id)?.id ?? null } };
}

export async function lookForCredit(
  graphql: AdminGraphql,
  line: { customerId: string; mark: string; amount: string; currency: string },
): Promise<Answer<Found>> {
  const read = await transactions(graphql, line.customerId, line.currency);
  if (!read.ok) return read;
  return {
    ok: true,
    value: creditsAfterMark(read.value.list, line.mark, line.amount, line.currency, read.value.pageFull),
  };
}

export async function sendStoreCredit(
  graphql: AdminGraphql,
  line: { customerId: string; amount: string; currency: string },
): Promise<Answer<{ id: string } | { refused: string }>> {
  const result = await requestAdmin(
    graphql,
    PAYOUT_STORE_CREDIT,
    {
      customerId: line.customerId,
      creditInput: { creditAmount: { amount: line.amount, currencyCode: line.currency as never }, notify: true },
    },
    ONCE,
  );
  return answer(result, (data) => {
    const credited = data.storeCreditAccountCredit;
    const id = credited?.storeCreditAccountTransaction?.id;
    if (id && (credited?.userErrors ?? []).length === 0) return { id };
    return refusal(credited?.userErrors ?? [{ message: "storeCreditAccountCredit returned nothing" }]);
  });
}

export async function sendGiftCard(
  graphql: AdminGraphql,
  line: { payoutId: string; customerId: string; amount: string; currency: string; name: string; shop: string },
): Promise<Answer<{ id: string } | { refused: string }>> {
  const result = await requestAdmin(
    graphql,
    PAYOUT_GIFT_CARD_CREATE,
    {
      input: {
        initialAmount: { amount: line.amount, currencyCode: line.currency as never },
        note: t("payouts.shopify.giftCardNote", { payoutId: line.payoutId }),
        recipientAttributes: {
          id: line.customerId,
          message: t("payouts.shopify.giftCardMessage", { shop: line.shop }),
          ...(line.name && { preferredName: line.name }),
        },
      },
    },
    ONCE,
  );
  return answer(result, (data) => {
    const created = data.giftCardCreate;
    const id = created?.giftCard?.id;
    if (id && (created?.userErrors ?? []).length === 0) return { id };
    return refusal(created?.userErrors ?? [{ message: "giftCardCreate returned nothing" }]);
  });
}

export async function lookForGiftCard(
  graphql: AdminGraphql,
  line: { payoutId: string; customerId: string },
): Promise<Answer<Found>> {
  const result = await requestAdmin(
    graphql,
    PAYOUT_GIFT_CARDS_OF,
    { query: `recipient_id:${numericId(line.customerId)}` },
    READ,
  );
  return answer(result, (data) =>
    cardsWithMarker(data.giftCards.nodes, line.payoutId, data.giftCards.nodes.length >= GIFT_CARD_PAGE),
  );
}

// The stand-in's customers, store credit accounts and gift cards: what paying creators in store
// credit or gift cards reads and writes (customers by email, customerCreate,
// storeCreditAccountCredit, a customer's store credit transactions, giftCardCreate, giftCards by
// recipient), with the scopes Shopify asks for each. Executed over the real Admin schema
// (execute.ts); kept per shop beside the rest of its state.
import { randomBytes } from "node:crypto";
import type { ShopState } from "./store";

export interface CustomerRecord {
  gid: string;
  email: string;
  firstName: string | null;
}

export interface CreditRecord {
  gid: string;
  customerGid: string;
  amount: string;
  currency: string;
  createdAt: string;
  notified: boolean;
}

export interface GiftCardRecord {
  gid: string;
  /** Shopify holds it; the app never asks for it. Kept so a test can prove it never left. */
  code: string;
  amount: string;
  currency: string;
  note: string | null;
  recipientGid: string | null;
  message: string | null;
  createdAt: string;
}

export interface PayoutState {
  customers: CustomerRecord[];
  credits: CreditRecord[];
  giftCards: GiftCardRecord[];
}

const states = new WeakMap<ShopState, PayoutState>();
let nextId = 7_000_000;

export function payoutState(shop: ShopState): PayoutState {
  let state = states.get(shop);
  if (!state) {
    state = { customers: [], credits: [], giftCards: [] };
    states.set(shop, state);
  }
  return state;
}

/** A customer the merchant already has (for tests): its gid. */
export function addCustomer(shop: ShopState, email: string, firstName: string | null = null): string {
  const gid = `gid://shopify/Customer/${++nextId}`;
  payoutState(shop).customers.push({ gid, email, firstName });
  return gid;
}

/** A store credit the merchant gave by hand (for tests: another credit after the app's mark). */
export function addCredit(shop: ShopState, customerGid: string, amount: string, currency: string, at: string) {
  const credit = {
    gid: `gid://shopify/StoreCreditAccountCreditTransaction/${++nextId}`,
    customerGid,
    amount,
    currency,
    createdAt: at,
    notified: false,
  };
  payoutState(shop).credits.push(credit);
  return credit;
}

type Scoped = (field: string, anyOf: string[]) => void;

/** Shopify's Decimal as it answers it: no trailing zeros ("15.50" -> "15.5"). */
function decimal(amount: string): string {
  return amount.includes(".") ? amount.replace(/0+$/, "").replace(/\.$/, "") : amount;
}

const money = (amount: string, currency: string) => ({ amount: decimal(amount), currencyCode: currency });

function creditView(credit: CreditRecord) {
  return {
    __typename: "StoreCreditAccountCreditTransaction",
    id: credit.gid,
    amount: money(credit.amount, credit.currency),
    createdAt: credit.createdAt,
    event: "ADJUSTMENT",
  };
}

function giftCardView(card: GiftCardRecord) {
  return {
    __typename: "GiftCard",
    id: card.gid,
    note: card.note,
    initialValue: money(card.amount, card.currency),
    lastCharacters: card.code.slice(-4),
    maskedCode: `•••• •••• •••• ${card.code.slice(-4)}`,
  };
}

function accountsOf(shop: ShopState, customerGid: string, query: string | null | undefined) {
  const state = payoutState(shop);
  const wanted = /currency_code:(\w+)/.exec(query ?? "")?.[1];
  const currencies = [...new Set(state.credits.filter((c) => c.customerGid === customerGid).map((c) => c.currency))];
  return currencies
    .filter((currency) => !wanted || currency === wanted)
    .map((currency) => ({
      __typename: "StoreCreditAccount",
      id: `gid://shopify/StoreCreditAccount/${customerGid.split("/").pop()}${currency}`,
      transactions: (args: { first?: number | null; reverse?: boolean | null }) => {
        const mine = state.credits.filter((c) => c.customerGid === customerGid && c.currency === currency);
        const ordered = args.reverse ? [...mine].reverse() : mine;
        return { nodes: ordered.slice(0, args.first ?? ordered.length).map(creditView) };
      },
    }));
}

function customerView(shop: ShopState, customer: CustomerRecord, scoped: Scoped) {
  return {
    __typename: "Customer",
    id: customer.gid,
    email: customer.email,
    storeCreditAccounts: (args: { query?: string | null }) => {
      scoped("storeCreditAccounts", [
        "read_store_credit_account_transactions",
        "write_store_credit_account_transactions",
      ]);
      return { nodes: accountsOf(shop, customer.gid, args.query) };
    },
  };
}

const CUSTOMER_READ = ["read_customers", "write_customers"];

export function payoutQueries(shop: ShopState, scoped: Scoped) {
  const state = payoutState(shop);
  return {
    customers: (args: { first?: number | null; query?: string | null }) => {
      scoped("customers", CUSTOMER_READ);
      const email = /email:"([^"]*)"/.exec(args.query ?? "")?.[1]?.toLowerCase();
      const found = state.customers.filter((c) => email === undefined || c.email.toLowerCase() === email);
      return { nodes: found.slice(0, args.first ?? found.length).map((c) => customerView(shop, c, scoped)) };
    },
    customer: ({ id }: { id: string }) => {
      scoped("customer", CUSTOMER_READ);
      const customer = state.customers.find((c) => c.gid === id);
      return customer ? customerView(shop, customer, scoped) : null;
    },
    giftCards: (args: { first?: number | null; query?: string | null; reverse?: boolean | null }) => {
      scoped("giftCards", ["read_gift_cards", "write_gift_cards"]);
      const recipient = /recipient_id:(\d+)/.exec(args.query ?? "")?.[1];
      const found = state.giftCards.filter((g) => !recipient || g.recipientGid?.endsWith(`/${recipient}`));
      const ordered = args.reverse ? [...found].reverse() : found;
      return { nodes: ordered.slice(0, args.first ?? ordered.length).map(giftCardView) };
    },
  };
}

const userError = (field: string[], message: string, code: string | null = null) => ({ field, message, code });

export function payoutMutations(shop: ShopState, scoped: Scoped, now: () => string) {
  const state = payoutState(shop);
  return {
    customerCreate: ({ input }: { input: { email?: string | null; firstName?: string | null } }) => {
      scoped("customerCreate", ["write_customers"]);
      const email = input.email ?? "";
      if (state.customers.some((c) => c.email.toLowerCase() === email.toLowerCase()))
        return { customer: null, userErrors: [userError(["email"], "Email has already been taken")] };
      const gid = addCustomer(shop, email, input.firstName ?? null);
      return { customer: { __typename: "Customer", id: gid }, userErrors: [] };
    },
    storeCreditAccountCredit: (args: {
      id: string;
      creditInput: { creditAmount: { amount: string; currencyCode: string }; notify?: boolean | null };
    }) => {
      scoped("storeCreditAccountCredit", ["write_store_credit_account_transactions"]);
      const customer = state.customers.find((c) => c.gid === args.id);
      if (!customer)
        return {
          storeCreditAccountTransaction: null,
          userErrors: [userError(["id"], "Owner does not exist", "OWNER_NOT_FOUND")],
        };
      const { amount, currencyCode } = args.creditInput.creditAmount;
      if (!/^\d+(\.\d+)?$/.test(String(amount)) || Number(amount) <= 0)
        return {
          storeCreditAccountTransaction: null,
          userErrors: [
            userError(
              ["creditInput", "creditAmount", "amount"],
              "A positive amount must be used to credit a store credit account",
              "NEGATIVE_OR_ZERO_AMOUNT",
            ),
          ],
        };
      const credit = addCredit(shop, customer.gid, String(amount), currencyCode, now());
      credit.notified = args.creditInput.notify === true;
      return { storeCreditAccountTransaction: creditView(credit), userErrors: [] };
    },
    giftCardCreate: ({
      input,
    }: {
      input: {
        initialAmount?: { amount: string; currencyCode: string } | null;
        note?: string | null;
        recipientAttributes?: { id: string; message?: string | null } | null;
      };
    }) => {
      scoped("giftCardCreate", ["write_gift_cards"]);
      if (input.recipientAttributes) scoped("giftCardCreate", ["write_customers"]);
      const recipient = input.recipientAttributes
        ? state.customers.find((c) => c.gid === input.recipientAttributes!.id)
        : null;
      if (input.recipientAttributes && !recipient)
        return {
          giftCard: null,
          giftCardCode: null,
          userErrors: [userError(["input", "recipientAttributes", "id"], "Customer not found", "CUSTOMER_NOT_FOUND")],
        };
      if (!input.initialAmount)
        return {
          giftCard: null,
          giftCardCode: null,
          userErrors: [userError(["input", "initialAmount"], "Initial value is required", "MISSING_ARGUMENT")],
        };
      const card: GiftCardRecord = {
        gid: `gid://shopify/GiftCard/${++nextId}`,
        code: randomBytes(8).toString("hex"),
        amount: String(input.initialAmount.amount),
        currency: input.initialAmount.currencyCode,
        note: input.note ?? null,
        recipientGid: recipient?.gid ?? null,
        message: input.recipientAttributes?.message ?? null,
        createdAt: now(),
      };
      state.giftCards.push(card);
      return { giftCard: giftCardView(card), giftCardCode: card.code, userErrors: [] };
    },
  };
}

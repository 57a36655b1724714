import { embeddedRequest } from "./embedded-request";
import { formatMinor } from "../../app/units/money";
import { sessionToken, type Stack } from "./run-scenario";

// The admin pages the demo's payouts go through, over HTTP with a fresh session token per
// request as the embedded admin sends them: the Payouts page (its balances, methods and shop
// currency; its forms) and the Creators page (a creator's email).

export interface PageBalance {
  key: string;
  creatorId: string;
  currency: string;
  balanceMinor: string;
  payable: boolean;
}

/** What the demo reads of the Payouts page's loader. */
export interface PayoutsPage {
  balances: PageBalance[];
  payoutSettings: { defaultMethod: string; createCustomers: boolean };
  /** The shop's currency as the app learnt it from Shopify; null until it has. */
  shopCurrency: string | null;
}

/** The page's answer to a form: ok, or its errors by field (shown to the merchant as they are). */
export type PageAnswer = { ok: true; runId?: string } | { ok: false; errors: Record<string, string> };

async function request(stack: Stack, body?: URLSearchParams): Promise<{ status: number; answer: unknown }> {
  const response = await embeddedRequest(stack.appUrl, "payouts", sessionToken(stack), body);
  return { status: response.status, answer: await response.json().catch(() => null) };
}

/** The Payouts page as it loads. */
export async function payoutsPage(stack: Stack): Promise<PayoutsPage> {
  const { status, answer } = await request(stack);
  if (status !== 200 || !answer) throw new Error(`the Payouts page did not load: HTTP ${status}`);
  return answer as PayoutsPage;
}

/**
 * A form sent on the Payouts page, its answer as the page shows it: a refusal (HTTP 400 with the
 * errors the merchant would read) is an answer; anything else that is not ok is the demo's failure.
 */
export async function submit(stack: Stack, body: URLSearchParams): Promise<PageAnswer> {
  const { status, answer } = await request(stack, body);
  const page = answer as { ok?: boolean; runId?: string; errors?: Record<string, string> } | null;
  if (status === 200 && page?.ok) return { ok: true, ...(page.runId && { runId: page.runId }) };
  if (status === 400 && page?.ok === false && page.errors) return { ok: false, errors: page.errors };
  throw new Error(`the Payouts page answered ${body.get("intent")} with HTTP ${status} ${JSON.stringify(page)}`);
}

/** A form the demo expects the page to take. */
export async function submitted(stack: Stack, body: URLSearchParams): Promise<{ runId?: string }> {
  const answer = await submit(stack, body);
  if (!answer.ok) throw new Error(`the Payouts page refused ${body.get("intent")}: ${JSON.stringify(answer.errors)}`);
  return answer;
}

export const decimal = (minor: string, currency: string) => formatMinor(minor, currency).replace(/,/g, "");

export async function until<T>(what: string, read: () => Promise<T | null | undefined | false>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const emailOf = (creatorId: string) => `${creatorId.replace(/[^A-Za-z0-9._-]/g, "_")}@creators.demo`;

/** The creator's email, which the app pays to (PayPal) or finds their Shopify customer by, saved on the Creators page. */
export async function saveEmail(stack: Stack, creatorId: string): Promise<void> {
  const response = await embeddedRequest(
    stack.appUrl,
    "creators",
    sessionToken(stack),
    new URLSearchParams({ creatorId, name: creatorId, email: emailOf(creatorId), note: "" }),
  );
  if (!response.ok) throw new Error(`the Creators page refused ${creatorId}'s email: HTTP ${response.status}`);
}

import { z } from "zod";
import { DEFAULT_SETTINGS } from "../../app/settings/defaults";
import { ORDER_VALUE_BASES } from "../../app/settings/order-value-basis";

// The demo's scenario format. It is a public interface (outsiders write scenario files to
// check the product), so every refusal names the field that is wrong.

const Money = z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal amount such as "120.00"');

const Click = z.object({
  ref: z.string().min(1),
  expectedTag: z.string().min(1),
  creatorId: z.string().min(1),
  ageMinutes: z
    .number()
    .min(0)
    .max(24 * 60)
    .default(5),
});

/** A code applied to the order: its text, or the text and the amount it took off. */
const DiscountCode = z.union([
  z
    .string()
    .min(1)
    .max(255)
    .transform((code) => ({ code, amount: undefined as string | undefined })),
  z.object({ code: z.string().min(1).max(255), amount: Money.optional() }),
]);

const Order = z
  .object({
    ref: z.string().min(1),
    click: z.string().min(1).optional(),
    clickId: z.string().min(1).optional(),
    arrivedTag: z.string().nullable().optional(),
    capture: z.enum(["cart_attributes", "landing_site", "none"]).default("cart_attributes"),
    subtotal: Money.default("100.00"),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as USD")
      .default("USD"),
    deliveries: z.number().int().min(1).max(20).default(1),
    /** The shopper's landing reached the app proxy while the click was alive. */
    landing: z.boolean().default(false),
    /** With `landing`: the app embed ran (cart attributes and landing touches); false: it was off. */
    embed: z.boolean().default(true),
    /** With `landing`: the web pixel ran (landings and checkout reported); false: blocked, or no consent. */
    pixel: z.boolean().default(true),
    /** After landing, a script rewrote the cart's attributes: to a scenario click or a literal id (null: removed), and a tag (null: removed). */
    tamper: z
      .object({
        click: z.string().min(1).optional(),
        clickId: z.string().min(1).nullable().optional(),
        arrivedTag: z.string().nullable().optional(),
        /** The script also reports its click through the app proxy, as the embed would (one extra touch). */
        touch: z.boolean().default(false),
      })
      .refine((tamper) => !(tamper.click && tamper.clickId !== undefined), {
        message: "name a scenario click with `click` or a literal id with `clickId`, not both",
        path: ["click"],
      })
      .optional(),
    // After the order's own deliveries, without waiting for its verification: each edit committed
    // in the Shopify stand-in (the order's subtotal after discounts becomes that amount; its other
    // bases move with it, shipping and taxes unchanged) and its orders/edited sent, then
    // one refunds/create per refund (that much of the order-value basis refunded), then
    // orders/cancelled. Each as many times as `deliveries`.
    edits: z
      .array(z.object({ subtotal: Money }).strict())
      .max(20)
      .default([]),
    refunds: z
      .array(z.object({ subtotal: Money }))
      .max(20)
      .default([]),
    cancel: z.boolean().default(false),
    // The codes applied; `subtotal` stays the subtotal after them. A code without an amount
    // took 10% of the subtotal.
    discountCodes: z
      .array(DiscountCode)
      .max(20)
      .default([])
      .refine((codes) => new Set(codes.map((c) => c.code.toLowerCase())).size === codes.length, {
        message: "names the same code twice",
      }),
  })
  .refine((order) => !(order.click && order.clickId), {
    message: "name a scenario click with `click` or a literal id with `clickId`, not both",
    path: ["click"],
  })
  .refine((order) => !order.tamper || order.landing, {
    message: "a tampered cart needs `landing: true` (there is no landing record to tamper with otherwise)",
    path: ["tamper"],
  })
  .refine((order) => !order.landing || (order.capture === "cart_attributes" && (order.click || order.clickId)), {
    message: 'a landing needs a click (`click` or `clickId`) captured on the cart (`capture: "cart_attributes"`)',
    path: ["landing"],
  })
  .refine((order) => order.landing || order.embed, {
    message: "`embed` applies with `landing: true`",
    path: ["embed"],
  })
  .refine((order) => order.landing || order.pixel, {
    message: "`pixel` applies with `landing: true`",
    path: ["pixel"],
  })
  .refine((order) => !order.tamper || order.embed, {
    message: "a tampered cart needs the embed (`embed: false` writes no cart to tamper with)",
    path: ["tamper"],
  })
  .refine((order) => !order.tamper?.touch || order.tamper.click || order.tamper.clickId, {
    message: "a tamper's `touch` reports its click: name one with `click` or `clickId`",
    path: ["tamper", "touch"],
  });

/** How a scenario pays a creator: the methods' names are a public interface. */
export const SCENARIO_PAYOUT_METHODS = ["paypal", "store_credit", "gift_card", "manual"] as const;
/** What PayPal does with a scenario's payment (its stand-in's planned end for the receiver). */
export const PAYPAL_OUTCOMES = ["SUCCESS", "UNCLAIMED", "RETURNED", "FAILED"] as const;

const ScenarioPayout = z
  .object({
    creatorId: z.string().min(1).max(200),
    method: z.enum(SCENARIO_PAYOUT_METHODS),
    paypalOutcome: z.enum(PAYPAL_OUTCOMES).optional(),
  })
  .strict()
  .refine((payout) => payout.paypalOutcome === undefined || payout.method === "paypal", {
    message: '`paypalOutcome` applies with `method: "paypal"`',
    path: ["paypalOutcome"],
  })
  .transform((payout) => ({ ...payout, paypalOutcome: payout.paypalOutcome ?? "SUCCESS" }));

const ScenarioSettings = z.object({
  commissionRate: z.string().default(DEFAULT_SETTINGS.commissionRate),
  hijackTag: z.string().default(DEFAULT_SETTINGS.hijackTag),
  tagParams: z
    .array(z.string())
    .min(1)
    .default([...DEFAULT_SETTINGS.tagParams]),
  orderValueBasis: z.enum(ORDER_VALUE_BASES).default(DEFAULT_SETTINGS.orderValueBasis),
  // Omitted: the shop keeps its stored hold (a new shop's: DEFAULT_SETTINGS.holdDays).
  holdDays: z.number().int().min(0).max(365).optional(),
});

/** The settings a scenario without any saves: the app's defaults. */
export const DEFAULT_SCENARIO_SETTINGS = ScenarioSettings.parse({});

export const Scenario = z
  .object({
    settings: ScenarioSettings.prefault({}),
    clicks: z.array(Click).default([]),
    orders: z.array(Order).min(1, "a scenario needs at least one order"),
    /** Codes the demo switches off through the admin's Codes page once the orders are verified. */
    deactivate: z.array(z.string().min(1).max(255)).default([]),
    /**
     * Played once every order has settled and the hold has passed: each pays that creator's whole
     * payable balance by its method (sandbox/demo/payouts.ts).
     */
    payouts: z.array(ScenarioPayout).max(100).default([]),
  })
  .superRefine((scenario, ctx) => {
    const refs = new Set<string>();
    scenario.clicks.forEach((click, index) => {
      if (refs.has(click.ref))
        ctx.addIssue({ code: "custom", message: `duplicate click ref "${click.ref}"`, path: ["clicks", index, "ref"] });
      refs.add(click.ref);
    });
    const orderRefs = new Set<string>();
    scenario.orders.forEach((order, index) => {
      if (order.tamper?.click && !refs.has(order.tamper.click))
        ctx.addIssue({
          code: "custom",
          message: `names click "${order.tamper.click}", which the scenario does not define`,
          path: ["orders", index, "tamper", "click"],
        });
      if (order.click && !refs.has(order.click))
        ctx.addIssue({
          code: "custom",
          message: `names click "${order.click}", which the scenario does not define`,
          path: ["orders", index, "click"],
        });
      if (orderRefs.has(order.ref))
        ctx.addIssue({ code: "custom", message: `duplicate order ref "${order.ref}"`, path: ["orders", index, "ref"] });
      orderRefs.add(order.ref);
    });
    const creators = new Set(scenario.clicks.map((click) => click.creatorId));
    const paid = new Set<string>();
    scenario.payouts.forEach((payout, index) => {
      if (!creators.has(payout.creatorId))
        ctx.addIssue({
          code: "custom",
          message: `names creator "${payout.creatorId}", whom no click of the scenario names`,
          path: ["payouts", index, "creatorId"],
        });
      if (paid.has(payout.creatorId))
        ctx.addIssue({
          code: "custom",
          message: `pays creator "${payout.creatorId}" twice: one entry pays the whole balance`,
          path: ["payouts", index, "creatorId"],
        });
      paid.add(payout.creatorId);
    });
    const used = new Set(scenario.orders.flatMap((order) => order.discountCodes.map((c) => c.code.toLowerCase())));
    scenario.deactivate.forEach((code, index) => {
      if (!used.has(code.toLowerCase()))
        ctx.addIssue({
          code: "custom",
          message: `names code "${code}", which no order of the scenario carries`,
          path: ["deactivate", index],
        });
    });
  });

export type Scenario = z.output<typeof Scenario>;
export type ScenarioOrder = Scenario["orders"][number];
export type ScenarioPayout = Scenario["payouts"][number];

export class ScenarioError extends Error {}

export function parseScenario(input: unknown): Scenario {
  const result = Scenario.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map(
    (issue) => `  ${issue.path.length ? issue.path.join(".") : "(scenario)"}: ${issue.message}`,
  );
  throw new ScenarioError(`The scenario is not valid:\n${lines.join("\n")}`);
}

/** Shows every outcome the pipeline can reach from storefront input. */
export const BUILT_IN_SCENARIO = {
  settings: {
    commissionRate: DEFAULT_SETTINGS.commissionRate,
    hijackTag: DEFAULT_SETTINGS.hijackTag,
    tagParams: [...DEFAULT_SETTINGS.tagParams],
  },
  clicks: [
    { ref: "alice", expectedTag: "alice-20", creatorId: "cr_alice", ageMinutes: 5 },
    { ref: "bob", expectedTag: "bob-10", creatorId: "cr_bob", ageMinutes: 12 },
    { ref: "carol", expectedTag: "carol-7", creatorId: "cr_carol", ageMinutes: 3 },
    { ref: "dan", expectedTag: "dan-3", creatorId: "cr_dan", ageMinutes: 20 },
    { ref: "old", expectedTag: "erin-1", creatorId: "cr_erin", ageMinutes: 75 },
    // Landed while fresh; the order comes three hours after the click.
    { ref: "fiona", expectedTag: "fiona-9", creatorId: "cr_fiona", ageMinutes: 180 },
    { ref: "gina", expectedTag: "gina-5", creatorId: "cr_gina", ageMinutes: 8 },
    { ref: "hana", expectedTag: "hana-4", creatorId: "cr_hana", ageMinutes: 6 },
    { ref: "ivan", expectedTag: "ivan-2", creatorId: "cr_ivan", ageMinutes: 9 },
    { ref: "jack", expectedTag: "jack-8", creatorId: "cr_jack", ageMinutes: 4 },
  ],
  orders: [
    { ref: "matched", click: "alice", arrivedTag: "alice-20", subtotal: "120.00", deliveries: 2 },
    { ref: "hijacked", click: "bob", arrivedTag: "honey-77", subtotal: "89.90", deliveries: 3 },
    { ref: "stripped-tag", click: "carol", arrivedTag: null, subtotal: "45.50" },
    {
      ref: "landing-site",
      click: "dan",
      arrivedTag: "dan-3",
      capture: "landing_site",
      subtotal: "19999",
      currency: "JPY",
    },
    { ref: "expired-click", click: "old", arrivedTag: "erin-1", subtotal: "60.00" },
    { ref: "unknown-click", clickId: "clk_never_issued", arrivedTag: "alice-20", subtotal: "30.00" },
    { ref: "no-click", capture: "none", subtotal: "15.00" },
    { ref: "saved-from-expiry", click: "fiona", arrivedTag: "fiona-9", landing: true, subtotal: "75.00" },
    {
      ref: "tampered-cart",
      click: "gina",
      arrivedTag: "honey-77",
      landing: true,
      // A script erased the cart's evidence after the swap: the server's record still has it.
      tamper: { clickId: null, arrivedTag: null },
      subtotal: "50.00",
    },
    // The app embed switched off: the web pixel the app connected at install still saw the click.
    { ref: "pixel-only", click: "hana", arrivedTag: "hana-4", landing: true, embed: false, subtotal: "40.00" },
    // A script rewrote the cart to its own valid click and reported it: the first click keeps the credit.
    {
      ref: "competing-click",
      click: "ivan",
      arrivedTag: "ivan-2",
      landing: true,
      tamper: { click: "jack", arrivedTag: "jack-8", touch: true },
      subtotal: "30.00",
    },
    // The ledger after the order: a cancellation, a partial refund, refunds of the whole order.
    { ref: "cancelled", click: "alice", arrivedTag: "alice-20", subtotal: "75.00", cancel: true, deliveries: 2 },
    {
      ref: "part-refunded",
      click: "bob",
      arrivedTag: "honey-77",
      subtotal: "200.00",
      refunds: [{ subtotal: "50.00" }],
      deliveries: 2,
    },
    {
      ref: "fully-refunded",
      click: "carol",
      arrivedTag: "carol-7",
      subtotal: "64.90",
      refunds: [{ subtotal: "14.90" }, { subtotal: "50.00" }],
    },
  ],
};

import { afterAll, describe, expect, it } from "vitest";
import { startPaypalStandin } from "../../sandbox/paypal/server";
import { useEmbeddedAdmin } from "./embedded-suite";

// A payout schedule set on the Payouts page in a real browser against the built app: off until
// turned on, then weekly on the day chosen, with a minimum; the next run's preview names its time
// in the shop's zone (New York here), the creators it would send to and their amounts, those to
// be paid by hand, and who is left out and why; pause and resume; and the run the schedule wrote.

const SHOP = "e2e-schedule.myshopify.com";
const ZONE = "America/New_York";
const paypal = await startPaypalStandin();
process.env.PAYPAL_API_ORIGIN = paypal.url;
const { databaseClient } = await import("../../app/database/db.server");
const { creator, record } = await import("../support/paypal-runs");
const { savePaypalAccount, saveMethod } = await import("../../app/payouts/payout-settings.server");
const { nextDue } = await import("../../app/payouts/schedule-periods");
const { tickSchedule } = await import("../../app/payouts/schedule-run.server");
const { formatShopTime } = await import("../../app/units/shop-format");
const prisma = databaseClient();

const suite = useEmbeddedAdmin({
  shop: SHOP,
  apiKey: "e2e-schedule-api-key",
  apiSecret: "e2e-schedule-api-secret",
  standin: { shopProfile: { ianaTimezone: ZONE, currencyCode: "USD" } },
  env: { PAYPAL_API_ORIGIN: paypal.url },
});

afterAll(async () => {
  await paypal.close();
});

describe("the payout schedule on the Payouts page", () => {
  it("is set weekly with a minimum, and previews the next run in the shop's zone", { timeout: 180_000 }, async () => {
    const client = paypal.addClient();
    await savePaypalAccount(SHOP, {
      environment: "sandbox",
      clientId: client.clientId,
      secret: client.secret,
      webhookId: "",
    });
    await saveMethod(SHOP, { creatorId: "", method: "paypal" });
    await saveMethod(SHOP, { creatorId: "cr_lee", method: "manual" });
    for (const id of ["cr_sam", "cr_lee", "cr_low", "cr_eur"]) await creator(SHOP, id, `${id}@creators.test`);
    await record(SHOP, "cr_sam", "USD", 3000n);
    await record(SHOP, "cr_lee", "USD", 4000n);
    await record(SHOP, "cr_low", "USD", 1000n);
    await record(SHOP, "cr_eur", "EUR", 5000n);

    const page = await suite.openPage("/app/payouts");
    await page.getByRole("heading", { name: "Payout schedule" }).waitFor();
    await page.getByText("The schedule is off", { exact: false }).waitFor();
    expect(await page.getByTestId("schedule-preview").count()).toBe(0);

    await page.getByRole("checkbox", { name: "Pay creators on a schedule" }).check();
    await page.getByRole("combobox", { name: "How often" }).selectOption("weekly");
    await page.getByRole("combobox", { name: "Day of the week" }).selectOption("5");
    await page.getByLabel("Minimum balance").fill("20.00");
    await page.getByRole("button", { name: "Save schedule" }).click();
    await page.getByText("Payout schedule saved.").waitFor();

    // Friday at 09:00 in New York, as the shop's zone writes it.
    const due = nextDue({ cadence: "weekly", weekday: 5, monthDay: 1 }, ZONE, new Date());
    const time = formatShopTime(due.dueAt, { locale: "en-US", timeZone: ZONE });
    expect(time).toMatch(/9:00\sAM\sE[SD]T/);
    const preview = page.getByTestId("schedule-preview");
    await preview.getByText(`Next run: ${time}`).waitFor();
    expect(await page.getByTestId("schedule-pay").innerText()).toContain("cr_sam: $30.00, by PayPal");
    expect(await page.getByTestId("schedule-by-hand").innerText()).toContain("cr_lee: $40.00");
    const excluded = await page.getByTestId("schedule-excluded").innerText();
    expect(excluded).toContain("cr_low: $10.00 — under the minimum");
    expect(excluded).toContain("cr_eur: €50.00 — in another currency (");
    expect(await prisma.payoutSchedule.findUniqueOrThrow({ where: { shop: SHOP } })).toMatchObject({
      enabled: true,
      cadence: "weekly",
      weekday: 5,
      minimumMinor: 2000n,
      currency: "USD",
    });
    expect(await prisma.job.findFirst({ where: { kind: "payout-schedule", subject: SHOP } })).toMatchObject({
      state: "queued",
    });

    await page.getByRole("button", { name: "Pause schedule" }).click();
    await page.getByText("Payout schedule paused.").waitFor();
    await preview.getByText(`Next run (paused): ${time}`).waitFor();
    await page.getByRole("button", { name: "Resume schedule" }).click();
    await page.getByText("Payout schedule resumed.").waitFor();
    await preview.getByText(`Next run: ${time}`).waitFor();
    // Nothing was paid by saving, pausing or resuming.
    expect(await prisma.commission.count({ where: { shop: SHOP, status: "approved" } })).toBe(4);

    // Friday comes (the schedule's tick, as the worker runs it, on the clock moved to its time):
    // cr_sam is sent by PayPal; cr_lee, paid by hand, is not marked paid.
    expect(await tickSchedule(SHOP, due.dueAt)).toMatchObject({ wrote: { key: due.key, state: "done" } });
    await page.reload();
    await page.getByText(`Last run: ${due.key}, ${time}: 1 creator sent by the app`).waitFor();
    await page.getByText("With PayPal", { exact: true }).waitFor();
    const statuses = await prisma.commission.findMany({ where: { shop: SHOP }, orderBy: { creatorId: "asc" } });
    expect(statuses.map((c) => [c.creatorId, c.status])).toEqual([
      ["cr_eur", "approved"],
      ["cr_lee", "approved"],
      ["cr_low", "approved"],
      ["cr_sam", "paying"],
    ]);
  });
});

import { describe, expect, it } from "vitest";
import de from "../../app/i18n/locales/de.json";
import fr from "../../app/i18n/locales/fr.json";
import { runInRequestLocale } from "../../app/i18n/translators.server";
import { schedulePart, scheduleAction } from "../../app/payouts/schedule-page.server";
import { databaseClient } from "../../app/database/db.server";
import { settingsFormValues } from "../../app/settings/form-values";

// The payout schedule's minimum, as a merchant whose admin is in German or French types it: a
// decimal comma and dots or spaces between thousands, read as the exact amount, shown back the
// same way, and input that reads two ways refused with both readings named.

const prisma = databaseClient();
let shops = 0;

function scheduleForm(minimum: string): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries({
    intent: "schedule",
    enabled: "on",
    cadence: "monthly",
    weekday: "1",
    monthDay: "1",
    currency: "EUR",
    minimum,
  }))
    form.set(name, value);
  return form;
}

/** The schedule's action and page as a request in `locale` runs them (server.mjs's wrapping). */
const inLocale = <T>(locale: string, work: () => Promise<T>) =>
  runInRequestLocale(`/app/payouts?locale=${locale}`, work);

describe("the payout schedule's minimum in the merchant's locale", () => {
  it.each([
    ["de", "1.250,50", 125050n, "1250,50"],
    ["de", "25,5", 2550n, "25,50"],
    // A dot that cannot group thousands is read as the decimal mark a habit typed.
    ["de", "12.75", 1275n, "12,75"],
    ["fr", "1\u202f250,50", 125050n, "1250,50"],
    ["en", "1,250.50", 125050n, "1250.50"],
  ])("in %s, %j is saved as %s minor units and shown as %j", async (locale, typed, minor, shown) => {
    const shop = `typed-numbers-${++shops}.myshopify.com`;
    expect(await inLocale(locale, () => scheduleAction(shop, scheduleForm(typed)))).toEqual({
      intent: "schedule",
      ok: true,
    });
    expect((await prisma.payoutSchedule.findUniqueOrThrow({ where: { shop } })).minimumMinor).toBe(minor);
    const page = await inLocale(locale, () => schedulePart(shop, locale));
    expect(page.schedule.minimum).toBe(shown);
    // What the page shows is saved again unchanged.
    await inLocale(locale, () => scheduleAction(shop, scheduleForm(page.schedule.minimum)));
    expect((await prisma.payoutSchedule.findUniqueOrThrow({ where: { shop } })).minimumMinor).toBe(minor);
  });

  it("refuses a number that reads two ways, saying both, in the merchant's language", async () => {
    const shop = `typed-numbers-${++shops}.myshopify.com`;
    expect(await inLocale("de", () => scheduleAction(shop, scheduleForm("1.500")))).toEqual({
      intent: "schedule",
      ok: false,
      errors: {
        minimum: de.numbers.ambiguous
          .replace("{typed}", "1.500")
          .replace("{thousands}", "1500")
          .replace("{fraction}", "1,500"),
      },
    });
    expect(await inLocale("fr", () => scheduleAction(shop, scheduleForm("2.250")))).toMatchObject({
      errors: {
        minimum: fr.numbers.ambiguous
          .replace("{typed}", "2.250")
          .replace("{thousands}", "2250")
          .replace("{fraction}", "2,250"),
      },
    });
    expect(await prisma.payoutSchedule.count({ where: { shop } })).toBe(0);
  });

  it("still refuses what is no amount, with the field's own message", async () => {
    const shop = `typed-numbers-${++shops}.myshopify.com`;
    expect(await inLocale("de", () => scheduleAction(shop, scheduleForm("25,505")))).toEqual({
      intent: "schedule",
      ok: false,
      errors: { minimum: de.payouts.schedule.minimumInvalid },
    });
  });
});

describe("the settings' rates in the merchant's locale", () => {
  it("are shown with the locale's decimal mark", () => {
    const values = runInRequestLocale("/app/settings?locale=de", () =>
      settingsFormValues({
        clickServiceUrl: "",
        tagParams: ["tag"],
        hijackTag: "affiliate-hijacked",
        commissionRate: "7.5",
        orderValueBasis: "subtotal_after_discounts",
        autoVerify: true,
        attributionWindowDays: 30,
        landingLookupsPerHour: 600,
        holdDays: 30,
        creatorRates: { cr_ana: "12.25" },
      } as never),
    );
    expect(values.commissionRate).toBe("7,5");
    expect(values.creatorRates).toBe("cr_ana = 12,25");
  });
});

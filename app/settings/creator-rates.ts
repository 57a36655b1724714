// Per-creator commission rates: creator id -> percent, overriding the shop's default rate.
// Merchants type them one per line ("cr_alice = 12.5"); they are stored as a JSON object.

export type CreatorRates = Record<string, string>;

export const MAX_CREATOR_RATES = 500;
export const MAX_CREATOR_ID = 200;

/** The rate an order credited to `creatorId` earns. */
export function rateForCreator(
  settings: { commissionRate: string; creatorRates: CreatorRates },
  creatorId: string,
): string {
  return Object.hasOwn(settings.creatorRates, creatorId) ? settings.creatorRates[creatorId]! : settings.commissionRate;
}

/** "cr_a = 12.5" lines (or "cr_a: 12.5") into a map; a line without a rate keeps an empty one for the schema to refuse. */
export function parseCreatorRatesText(text: string): CreatorRates {
  // No prototype: a creator named "__proto__" is a rate like any other, not a no-op assignment.
  const rates: CreatorRates = Object.create(null) as CreatorRates;
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const at = Math.max(line.lastIndexOf("="), line.lastIndexOf(":"));
    const id = (at < 0 ? line : line.slice(0, at)).trim();
    rates[id] =
      at < 0
        ? ""
        : line
            .slice(at + 1)
            .trim()
            .replace(/%$/, "")
            .trim();
  }
  return rates;
}

export function formatCreatorRatesText(rates: CreatorRates): string {
  return Object.entries(rates)
    .map(([id, rate]) => `${id} = ${rate}`)
    .join("\n");
}

/** Rates read back from the database; anything unreadable is no override at all. */
export function parseStoredCreatorRates(json: string): CreatorRates {
  try {
    const value: unknown = JSON.parse(json);
    if (!value || typeof value !== "object" || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return {};
  }
}

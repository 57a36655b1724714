// The settings schema on its own: what it keeps, trims and fills in, and the exact message a
// merchant reads next to each field it refuses. The save path around it is in shop-settings.test.ts.
import { describe, expect, it } from "vitest";
import {
  MAX_CREATOR_ID,
  MAX_CREATOR_RATES,
  parseCreatorRatesText,
  rateForCreator,
  type CreatorRates,
} from "../../app/settings/creator-rates";
import { DEFAULT_SETTINGS } from "../../app/settings/defaults";
import { SettingsInput } from "../../app/settings/settings-schema";

const url = "https://clicks.example.com";

/** The first message the schema gives for `input` (the one the form shows), and the field it names. */
function refusal(input: Record<string, unknown>): { field: string; message: string } {
  const parsed = SettingsInput.safeParse({ clickServiceUrl: url, ...input });
  if (parsed.success) throw new Error(`accepted ${JSON.stringify(input)}`);
  const [issue] = parsed.error.issues;
  return { field: issue!.path.join("."), message: issue!.message };
}

function accepted(input: Record<string, unknown>) {
  const parsed = SettingsInput.safeParse({ clickServiceUrl: url, ...input });
  if (!parsed.success) throw new Error(parsed.error.message);
  return parsed.data;
}

describe("defaults and trimming", () => {
  it("fills every omitted field with the shared default and leaves the stored-only fields out", () => {
    expect(accepted({})).toEqual({
      clickServiceUrl: url,
      tagParams: [...DEFAULT_SETTINGS.tagParams],
      hijackTag: DEFAULT_SETTINGS.hijackTag,
      commissionRate: DEFAULT_SETTINGS.commissionRate,
      orderValueBasis: DEFAULT_SETTINGS.orderValueBasis,
      autoVerify: DEFAULT_SETTINGS.autoVerify,
    });
  });

  it("trims what the merchant typed, drops a URL's trailing slashes and repeated tag parameters", () => {
    expect(
      accepted({
        clickServiceUrl: `  ${url}/base//  `,
        apiKey: "  sk_live_1  ",
        tagParams: [" tag ", "ref", "tag"],
        hijackTag: "  hijacked  ",
        commissionRate: " 7.5 ",
        creatorRates: { " cr_alice ": " 12.5 " },
      }),
    ).toMatchObject({
      clickServiceUrl: `${url}/base`,
      apiKey: "sk_live_1",
      tagParams: ["tag", "ref"],
      hijackTag: "hijacked",
      commissionRate: "7.5",
      creatorRates: { cr_alice: "12.5" },
    });
  });

  it("coerces the landing numbers a form sends as text", () => {
    expect(accepted({ attributionWindowDays: "1", landingLookupsPerHour: "100000" })).toMatchObject({
      attributionWindowDays: 1,
      landingLookupsPerHour: 100_000,
    });
    expect(accepted({ attributionWindowDays: 365, landingLookupsPerHour: 10, holdDays: 0 })).toMatchObject({
      attributionWindowDays: 365,
      landingLookupsPerHour: 10,
      holdDays: 0,
    });
    expect(accepted({ holdDays: 365 }).holdDays).toBe(365);
  });
});

describe("the service URL", () => {
  it("takes http and https, up to 2,048 characters", () => {
    expect(accepted({ clickServiceUrl: "http://clicks.example.com" }).clickServiceUrl).toBe(
      "http://clicks.example.com",
    );
    const longest = `${url}/${"p".repeat(2_048 - url.length - 1)}`;
    expect(accepted({ clickServiceUrl: longest }).clickServiceUrl).toBe(longest);
    // The limit counts what is left once the spaces around it are trimmed.
    expect(accepted({ clickServiceUrl: `  ${longest}  ` }).clickServiceUrl).toBe(longest);
    expect(refusal({ clickServiceUrl: `${longest}p` })).toEqual({
      field: "clickServiceUrl",
      message: "the URL is at most 2,048 characters",
    });
  });

  it("refuses what is not a URL at all, in words, without throwing", () => {
    expect(refusal({ clickServiceUrl: "clicks example" })).toEqual({
      field: "clickServiceUrl",
      message: "enter the service's base URL, such as https://clicks.example.com",
    });
    const parsed = SettingsInput.safeParse({ clickServiceUrl: "clicks example" });
    expect(parsed.success ? [] : parsed.error.issues.map((issue) => issue.message)).toEqual([
      "enter the service's base URL, such as https://clicks.example.com",
      "the URL must start with https:// or http://",
    ]);
  });

  it("refuses other schemes, credentials and control characters, each in its own words", () => {
    for (const other of ["ftp://clicks.example.com", "git+https://clicks.example.com"])
      expect(refusal({ clickServiceUrl: other }), other).toEqual({
        field: "clickServiceUrl",
        message: "the URL must start with https:// or http://",
      });
    expect(refusal({ clickServiceUrl: "https://user@clicks.example.com" })).toEqual({
      field: "clickServiceUrl",
      message: "the URL must not contain a user name or password; the API key goes in its own field",
    });
    expect(refusal({ clickServiceUrl: "https://:secret@clicks.example.com" })).toEqual({
      field: "clickServiceUrl",
      message: "the URL must not contain a user name or password; the API key goes in its own field",
    });
    expect(refusal({ clickServiceUrl: "https://clicks.example.com/a\u0007b" })).toEqual({
      field: "clickServiceUrl",
      message: "the URL cannot contain control characters",
    });
  });
});

describe("the API key", () => {
  it("takes visible ASCII from ! to ~, 8 to 512 characters, or nothing", () => {
    expect(accepted({ apiKey: "!~!~!~!~" }).apiKey).toBe("!~!~!~!~");
    // The page shows the last 4: a shorter key would be mostly on it.
    expect(refusal({ apiKey: "k3Y!x" })).toEqual({
      field: "apiKey",
      message: "the API key is too short to be a service key",
    });
    expect(accepted({ apiKey: "" }).apiKey).toBe("");
    expect(accepted({ apiKey: "k".repeat(512) }).apiKey).toBe("k".repeat(512));
    expect(refusal({ apiKey: "k".repeat(513) })).toEqual({ field: "apiKey", message: "the API key is too long" });
  });

  it("refuses spaces inside it and characters a header cannot carry", () => {
    for (const apiKey of ["sk live", "sk_\u007f", "sk_é", "sk\tx"])
      expect(refusal({ apiKey }), JSON.stringify(apiKey)).toEqual({
        field: "apiKey",
        message: "the API key contains spaces or characters an HTTP header cannot carry",
      });
  });
});

describe("tag parameters and the hijack tag", () => {
  it("take names of letters, digits, _ - and ., at most 64 characters, never lb_click", () => {
    expect(accepted({ tagParams: ["a.b-c_D9", "p".repeat(64)] }).tagParams).toEqual(["a.b-c_D9", "p".repeat(64)]);
    expect(refusal({ tagParams: ["p".repeat(65)] })).toEqual({
      field: "tagParams.0",
      message: "parameter names are at most 64 characters",
    });
    expect(refusal({ tagParams: ["ok", "a b"] })).toEqual({
      field: "tagParams.1",
      message: "parameter names use letters, digits, '_', '-' or '.'",
    });
    expect(refusal({ tagParams: ["lb_click"] })).toEqual({
      field: "tagParams.0",
      message: "lb_click carries the click id, not a tag",
    });
    expect(refusal({ tagParams: ["  "] }).field).toBe("tagParams.0");
  });

  it("are between one and ten", () => {
    expect(refusal({ tagParams: [] })).toEqual({
      field: "tagParams",
      message: "list at least one affiliate tag parameter",
    });
    const ten = Array.from({ length: 10 }, (_, i) => `p${i}`);
    expect(accepted({ tagParams: ten }).tagParams).toEqual(ten);
    expect(refusal({ tagParams: [...ten, "p10"] })).toEqual({
      field: "tagParams",
      message: "at most 10 tag parameters",
    });
  });

  it("takes a hijack tag of 1 to 40 printable characters without a comma", () => {
    expect(accepted({ hijackTag: "t".repeat(40) }).hijackTag).toBe("t".repeat(40));
    expect(refusal({ hijackTag: "t".repeat(41) })).toEqual({
      field: "hijackTag",
      message: "Shopify tags are at most 40 characters",
    });
    expect(refusal({ hijackTag: "  " })).toEqual({
      field: "hijackTag",
      message: "enter the tag to add to hijacked orders",
    });
    expect(refusal({ hijackTag: "a,b" })).toEqual({ field: "hijackTag", message: "a tag cannot contain a comma" });
    expect(refusal({ hijackTag: "a\u0000b" })).toEqual({
      field: "hijackTag",
      message: "a tag cannot contain control characters",
    });
  });
});

describe("rates", () => {
  it("take 0 to 100 with up to four decimals", () => {
    for (const rate of ["0", "100", "100.0000", "7.5", "99.9999"])
      expect(accepted({ commissionRate: rate }).commissionRate).toBe(rate);
  });

  it("say whether a rate is malformed or out of range", () => {
    expect(refusal({ commissionRate: "100.0001" })).toEqual({
      field: "commissionRate",
      message: "the rate is a percentage from 0 to 100",
    });
    for (const rate of ["", "ten", "-1", "1.23456", "1000", "1e2", "5%", "1.", ".5"])
      expect(refusal({ commissionRate: rate }), rate).toEqual({
        field: "commissionRate",
        message: "enter a percentage such as 10 or 7.5",
      });
  });

  it('keep a creator whatever its id, "__proto__" included', () => {
    const rates = parseCreatorRatesText("__proto__ = 50\ncr_a = 10");
    const saved = JSON.parse(JSON.stringify(accepted({ creatorRates: rates }).creatorRates)) as CreatorRates;
    expect(Object.keys(saved)).toEqual(["__proto__", "cr_a"]);
    expect(rateForCreator({ commissionRate: "5", creatorRates: saved }, "__proto__")).toBe("50");
    expect(rateForCreator({ commissionRate: "5", creatorRates: saved }, "cr_b")).toBe("5");
    expect(refusal({ creatorRates: ["cr_a = 10"] as never }).field).toBe("creatorRates");
  });

  it("check each creator's rate and id, naming the creator", () => {
    expect(refusal({ creatorRates: { cr_a: "12", cr_b: "101" } })).toEqual({
      field: "creatorRates",
      message: "cr_b: the rate is a percentage from 0 to 100",
    });
    expect(refusal({ creatorRates: { cr_a: "lots" } })).toEqual({
      field: "creatorRates",
      message: "cr_a: enter a percentage such as 10 or 7.5",
    });
    expect(refusal({ creatorRates: { cr_a: " 101 " } }).message).toBe("cr_a: the rate is a percentage from 0 to 100");
    expect(refusal({ creatorRates: { cr_a: "100.25" } }).message).toBe("cr_a: the rate is a percentage from 0 to 100");
    for (const rate of ["x5", "5x", "5.12345"])
      expect(refusal({ creatorRates: { cr_a: rate } }).message, rate).toBe(
        "cr_a: enter a percentage such as 10 or 7.5",
      );
    const idProblem = `each line starts with a creator id of 1 to ${MAX_CREATOR_ID} characters`;
    expect(refusal({ creatorRates: { "  ": "10" } })).toEqual({ field: "creatorRates", message: idProblem });
    expect(refusal({ creatorRates: { ["c".repeat(MAX_CREATOR_ID + 1)]: "10" } })).toEqual({
      field: "creatorRates",
      message: idProblem,
    });
    expect(accepted({ creatorRates: { ["c".repeat(MAX_CREATOR_ID)]: "10" } }).creatorRates).toEqual({
      ["c".repeat(MAX_CREATOR_ID)]: "10",
    });
  });

  it("are an object of ids to rates in text, said in words when they are anything else", () => {
    const shape = { field: "creatorRates", message: "creator rates are lines of a creator id and a rate" };
    // A string's characters, an array's items and a number's nothing would otherwise pass as rates.
    for (const creatorRates of ["cr_a = 10", 42, null, ["cr_a = 10"], { cr_a: 10 }, { cr_a: "10", cr_b: 5 }])
      expect([creatorRates, refusal({ creatorRates: creatorRates as never })]).toEqual([creatorRates, shape]);
    expect(accepted({ creatorRates: {} }).creatorRates).toEqual({});
  });

  it("refuse a creator id with control characters", () => {
    expect(refusal({ creatorRates: { "cr\u0007a": "10" } })).toEqual({
      field: "creatorRates",
      message: "a creator id cannot contain control characters",
    });
  });

  it("name only the first creator line that is wrong", () => {
    const parsed = SettingsInput.safeParse({ clickServiceUrl: url, creatorRates: { cr_a: "x", cr_b: "200" } });
    expect(parsed.success ? [] : parsed.error.issues.map((issue) => issue.message)).toEqual([
      "cr_a: enter a percentage such as 10 or 7.5",
    ]);
  });

  it("take at most MAX_CREATOR_RATES creators", () => {
    const rates = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`cr_${i}`, "5"]));
    expect(Object.keys(accepted({ creatorRates: rates(MAX_CREATOR_RATES) }).creatorRates!)).toHaveLength(
      MAX_CREATOR_RATES,
    );
    expect(refusal({ creatorRates: rates(MAX_CREATOR_RATES + 1) })).toEqual({
      field: "creatorRates",
      message: `at most ${MAX_CREATOR_RATES} creator rates`,
    });
  });
});

describe("the basis and the switch", () => {
  it("take only a known order-value basis and a real boolean", () => {
    expect(accepted({ orderValueBasis: "total_price", autoVerify: false })).toMatchObject({
      orderValueBasis: "total_price",
      autoVerify: false,
    });
    expect(refusal({ orderValueBasis: "gross" }).field).toBe("orderValueBasis");
    expect(refusal({ autoVerify: "yes" }).field).toBe("autoVerify");
  });
});

describe("the ledger and landing numbers", () => {
  it("refuse a hold outside 0 to 365 whole days", () => {
    const message = "the hold is a whole number of days from 0 to 365";
    for (const holdDays of [-1, 366, 1.5, "30"])
      expect(refusal({ holdDays }), String(holdDays)).toEqual({ field: "holdDays", message });
  });

  it("refuse a window outside 1 to 365 days and lookups outside 10 to 100000, in words", () => {
    expect(refusal({ attributionWindowDays: 0 })).toEqual({
      field: "attributionWindowDays",
      message: "the window is at least 1 day",
    });
    expect(refusal({ attributionWindowDays: 366 })).toEqual({
      field: "attributionWindowDays",
      message: "the window is at most 365 days",
    });
    expect(refusal({ attributionWindowDays: "1.5" })).toEqual({
      field: "attributionWindowDays",
      message: "enter a whole number of days",
    });
    expect(refusal({ attributionWindowDays: "soon" })).toEqual({
      field: "attributionWindowDays",
      message: "enter a number of days from 1 to 365",
    });
    expect(refusal({ landingLookupsPerHour: 9 })).toEqual({
      field: "landingLookupsPerHour",
      message: "allow at least 10 lookups an hour",
    });
    expect(refusal({ landingLookupsPerHour: 100_001 })).toEqual({
      field: "landingLookupsPerHour",
      message: "at most 100000 lookups an hour",
    });
    expect(refusal({ landingLookupsPerHour: "10.5" })).toEqual({
      field: "landingLookupsPerHour",
      message: "enter a whole number of lookups",
    });
    expect(refusal({ landingLookupsPerHour: "many" })).toEqual({
      field: "landingLookupsPerHour",
      message: "enter a number of lookups from 10 to 100000",
    });
  });
});

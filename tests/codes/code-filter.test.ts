import { describe, expect, it } from "vitest";
import { codeFilterParams, parseCodeFilter } from "../../app/codes/code-filter";
import { codeTotalsQuery } from "../../app/codes/code-totals.server";

// What the Codes page's URL asks for, and the same filter written back for its CSV link.

const parse = (query: string) => parseCodeFilter(new URLSearchParams(query));

describe("the Codes page's filter", () => {
  it("reads the period, the search, hijacked only and the sort from the URL", () => {
    expect(parse("days=7&code=LEAK&hijacked=1&sort=orders")).toEqual({
      period: 7,
      search: "LEAK",
      hijackedOnly: true,
      sort: "orders",
    });
    expect(parse("sort=code").sort).toBe("code");
    expect(parse("sort=harm").sort).toBe("harm");
  });

  it("falls back to the defaults for anything it does not know", () => {
    const defaults = { period: 30, search: "", hijackedOnly: false, sort: "harm" };
    expect(parse("")).toEqual(defaults);
    expect(parse("days=8&sort=price&hijacked=yes")).toEqual(defaults);
    expect(parse("hijacked=true").hijackedOnly).toBe(false);
  });

  it("trims the search and keeps at most 255 characters of it, after trimming", () => {
    expect(parse("code=%20%20leak%20").search).toBe("leak");
    const long = "x".repeat(300);
    expect(parse(`code=${long}`).search).toBe("x".repeat(255));
    // Spaces first are trimmed before the cut, so they do not take the code's place.
    expect(parse(`code=${encodeURIComponent(`   ${"y".repeat(255)}z`)}`).search).toBe("y".repeat(255));
  });

  it("is written back as the same URL parameters, leaving out what is at its default", () => {
    const full = { period: 90, search: "leak", hijackedOnly: true, sort: "code" } as const;
    expect(codeFilterParams(full).toString()).toBe("days=90&sort=code&code=leak&hijacked=1");
    expect(parseCodeFilter(codeFilterParams(full))).toEqual(full);
    expect(codeFilterParams(parse("")).toString()).toBe("days=30&sort=harm");
  });
});

describe("the Codes page's statement", () => {
  const now = new Date("2026-11-27T12:00:00.000Z");

  it("searches in lower case, with LIKE's own characters taken literally", () => {
    // LOWER("code") LIKE the pattern: on PostgreSQL LIKE is case-sensitive, so the pattern must
    // be in lower case as well.
    const values = (search: string) => codeTotalsQuery("s.myshopify.com", { ...parse(""), search }, now).values;
    expect(values("LeAk")).toContain("%leak%");
    expect(values("50%_OFF\\")).toContain("%50\\%\\_off\\\\%");
    // No search, no LIKE.
    expect(codeTotalsQuery("s.myshopify.com", parse(""), now).sql).not.toContain("LIKE");
  });
});

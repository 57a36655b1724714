import { parsePeriod, type Period } from "../units/periods";

// What the Codes page's URL asks for. Anything unknown falls back to the defaults, so a hand-
// edited URL shows the page rather than an error.

export const CODE_SORTS = ["harm", "orders", "code"] as const;
export type CodeSort = (typeof CODE_SORTS)[number];

export interface CodeFilter {
  period: Period;
  /** Part of a code, matched without regard to case; empty for every code. */
  search: string;
  /** Only codes seen on at least one hijacked order. */
  hijackedOnly: boolean;
  sort: CodeSort;
}

/** Longest search kept: Shopify's codes are at most 255 characters. */
const MAX_SEARCH = 255;

export function parseCodeFilter(params: URLSearchParams): CodeFilter {
  const sort = params.get("sort");
  return {
    period: parsePeriod(params.get("days")),
    search: (params.get("code") ?? "").trim().slice(0, MAX_SEARCH),
    hijackedOnly: params.get("hijacked") === "1",
    sort: (CODE_SORTS as readonly string[]).includes(
      // Stryker disable next-line StringLiteral: no sort is named by the empty text, nor by any other that is no sort
      sort ?? "",
    )
      ? (sort as CodeSort)
      : "harm",
  };
}

/** The filter as URL parameters (the CSV link carries the page's own filter). */
export function codeFilterParams(filter: CodeFilter): URLSearchParams {
  const params = new URLSearchParams({ days: String(filter.period), sort: filter.sort });
  if (filter.search) params.set("code", filter.search);
  if (filter.hijackedOnly) params.set("hijacked", "1");
  return params;
}

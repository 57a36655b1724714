// Shopify's visits (sessions), as its analytics and its orders define them: a browser is known
// by its visitor cookie (`_shopify_y`, which page scripts can read, and whose value the web pixel
// sees as the event's clientId); a visit starts with a page view and ends after 30 minutes
// without one, or at midnight UTC; its first page is its landing page. An order records the
// landing page of the visit that checked out (landing_site) and, in its customer journey, the
// browser's first visit within 30 days and its last one. Every time comes from `clock`, and the
// records can be aged, so "three days later" is played without waiting three days.

export const VISITOR_COOKIE = "_shopify_y";
/** A visit ends after this long without a page view. */
export const VISIT_IDLE_MS = 30 * 60 * 1000;
/** How far back an order's journey reaches for its first visit. */
export const JOURNEY_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface Visit {
  /** Path and query of the visit's first page. */
  landingPage: string;
  startedAt: number;
  lastViewAt: number;
}

export class VisitLog {
  private readonly visits = new Map<string, Visit[]>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** A page view of `visitor`: continues its visit, or starts one whose landing page it is. */
  pageView(visitor: string, pathAndQuery: string): Visit {
    const now = this.clock();
    const current = this.current(visitor);
    if (current) {
      current.lastViewAt = now;
      return current;
    }
    const visit: Visit = { landingPage: pathAndQuery, startedAt: now, lastViewAt: now };
    this.visits.set(visitor, [...(this.visits.get(visitor) ?? []), visit]);
    return visit;
  }

  /** The visit still under way now (a page view now continues it), or null. */
  current(visitor: string): Visit | null {
    const last = this.visits.get(visitor)?.at(-1);
    if (!last) return null;
    const now = this.clock();
    const idle = now - last.lastViewAt >= VISIT_IDLE_MS;
    const pastMidnight = Math.floor(now / DAY_MS) !== Math.floor(last.lastViewAt / DAY_MS);
    return idle || pastMidnight ? null : last;
  }

  /** Every visit of the browser, oldest first. */
  of(visitor: string): readonly Visit[] {
    return this.visits.get(visitor) ?? [];
  }

  /** An order's journey: the browser's first visit within 30 days and its last visit (one when they are the same). */
  journey(visitor: string): Visit[] {
    const now = this.clock();
    const recent = this.of(visitor).filter((visit) => visit.lastViewAt >= now - JOURNEY_WINDOW_MS);
    const first = recent[0];
    const last = recent.at(-1);
    if (!first || !last) return [];
    return first === last ? [first] : [first, last];
  }

  /** Every record moves `ms` into the past: what happened is that much older now. */
  age(ms: number): void {
    for (const visits of this.visits.values())
      for (const visit of visits) {
        visit.startedAt -= ms;
        visit.lastViewAt -= ms;
      }
  }
}

// How many webhook body bytes the process holds at once before a delivery's signature has been
// checked. The per-body cap alone lets anyone who can open connections hold cap × connections
// (a slow sender trickling bodies of 5 MB each): an unsigned stranger's share of memory must be
// bounded as a whole. Three rules make that bound one a stranger cannot take for themselves
// (decision 027):
// - bytes count only as they arrive: a declared Content-Length reserves nothing, so headers
//   that promise 32 MB and send none hold nothing;
// - a body has `deadlineMs` from the start of its reading to arrive whole (Shopify sends it at
//   once), or it is refused (408) and its bytes are released: no byte is held longer;
// - one source (a client address, an IPv6 /64) holds at most `sourceShare` of it, and one
//   connection reads one body at a time, at most the per-body cap.
// What does not fit is refused at once (429 with Retry-After), and Shopify delivers it again.
// The hold ends with the signature check, so an accepted delivery's record never waits on it.

/**
 * How long a webhook body has to arrive whole, from the start of its reading: Shopify gives a
 * whole delivery five seconds (connection, body and answer) before it counts it failed and
 * delivers it again, so a body still arriving after that is no delivery Shopify waits on.
 */
export const BODY_DEADLINE_MS = 5_000;

/** The part of the budget one source may hold, when the budget's owner sets no other (receive.server.ts). */
export const SOURCE_SHARE = 1 / 4;

/** Thrown by a body reader when the budget, or its source's share, cannot hold another byte of the body. */
export class BodyBudgetExhausted extends Error {
  constructor() {
    // Stryker disable next-line StringLiteral: never read, receive.server.ts answers 429 with words of its own
    super("too many webhook body bytes are being read at once");
  }
}

export interface BodyBudgetLimits {
  /** Bytes one source may hold at once (default: all of the budget). */
  sourceShare?: number;
  /** How long a body has to arrive whole (default BODY_DEADLINE_MS). */
  deadlineMs?: number;
}

export class BodyBudget {
  #free: number;
  /** Bytes held per source, for the sources holding any. */
  readonly #bySource = new Map<string, number>();
  readonly sourceShare: number;
  readonly deadlineMs: number;

  constructor(
    readonly capacity: number,
    limits: BodyBudgetLimits = {},
  ) {
    this.#free = capacity;
    this.sourceShare = limits.sourceShare ?? capacity;
    this.deadlineMs = limits.deadlineMs ?? BODY_DEADLINE_MS;
  }

  /** Bytes held now, across every open hold. */
  get held(): number {
    return this.capacity - this.#free;
  }

  /**
   * How many sources hold bytes now. A source is forgotten once its holds end: the addresses
   * that come and go (any peer can) leave nothing behind.
   */
  get sources(): number {
    return this.#bySource.size;
  }

  /** Bytes held now by `source`'s open holds. */
  heldBy(source: string): number {
    return this.#bySource.get(source) ?? 0;
  }

  /**
   * A hold for one body from `source` (sourceOf): take() as its bytes arrive, release() once,
   * when done with it; its body must be read whole within `deadlineMs`.
   */
  hold(source: string): BodyHold {
    let taken = 0;
    let open = true;
    return {
      deadlineMs: this.deadlineMs,
      take: (bytes) => {
        if (!open || bytes > this.#free) return false;
        const bySource = this.heldBy(source) + bytes;
        if (bySource > this.sourceShare) return false;
        this.#bySource.set(source, bySource);
        this.#free -= bytes;
        taken += bytes;
        return true;
      },
      release: () => {
        if (!open) return;
        open = false;
        // Stryker disable next-line ConditionalExpression: a shortcut, releasing 0 bytes leaves the counts as they are
        if (taken === 0) return;
        this.#free += taken;
        const left = this.heldBy(source) - taken;
        if (left === 0) this.#bySource.delete(source);
        else this.#bySource.set(source, left);
      },
    };
  }
}

export interface BodyHold {
  /** Reserves `bytes` more; false (and nothing reserved) when they do not fit. */
  take(bytes: number): boolean;
  release(): void;
  /** How long the body has to arrive whole, from the start of its reading. */
  readonly deadlineMs: number;
}

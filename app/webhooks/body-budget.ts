// How many webhook body bytes the process holds at once before a delivery's signature has been
// checked. The per-body cap alone lets anyone who can open connections hold cap × connections
// (a slow sender trickling bodies of 5 MB each): an unsigned stranger's share of memory must be
// bounded as a whole. A delivery reserves its declared length before reading, or its bytes as
// they come when it declares none; what does not fit is refused at once (429 with Retry-After),
// and Shopify delivers it again. The reservation ends with the signature check, so an accepted
// delivery's record never waits on it.

/** Thrown by a body reader when the budget cannot hold another byte of the body. */
export class BodyBudgetExhausted extends Error {
  constructor() {
    super("too many webhook body bytes are being read at once");
  }
}

export class BodyBudget {
  #free: number;

  constructor(readonly capacity: number) {
    this.#free = capacity;
  }

  /** Bytes reserved now, across every open hold. */
  get held(): number {
    return this.capacity - this.#free;
  }

  /** A reservation for one body: take() as bytes are counted, release() once, when done with it. */
  hold(): BodyHold {
    let taken = 0;
    let open = true;
    return {
      take: (bytes) => {
        if (!open || bytes > this.#free) return false;
        this.#free -= bytes;
        taken += bytes;
        return true;
      },
      release: () => {
        if (!open) return;
        open = false;
        this.#free += taken;
      },
    };
  }
}

export interface BodyHold {
  /** Reserves `bytes` more; false (and nothing reserved) when they do not fit. */
  take(bytes: number): boolean;
  release(): void;
}

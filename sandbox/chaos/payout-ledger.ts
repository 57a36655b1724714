// The chaos run's payout figures: what the providers paid, from their own records (the PayPal
// stand-in's items, the Shopify stand-in's store credit transactions and gift cards, the run's own
// list of what its merchant paid by hand), set against what the app's ledger says. Plain data in,
// figures out: payouts.ts gathers the snapshot.

export type PayoutMethod = "paypal" | "store_credit" | "gift_card" | "manual";

/** One payment a provider made (the money left for the creator and stayed with them). */
export interface ProviderPayment {
  method: PayoutMethod;
  shop: string;
  /** Whom it paid, by the receiver the provider holds (email, customer); null when no creator has it. */
  creatorId: string | null;
  currency: string;
  amountMinor: bigint;
  /** The provider's own id of it (PayPal's payout item, Shopify's transaction or gift card, the hand payment). */
  id: string;
  /**
   * What the provider's record says it was for: PayPal's sender_item_id and the gift card's note
   * carry the app's payout id; a hand payment, the form's token. Store credit carries nothing.
   */
  ref: string | null;
}

/** One line of a payout as the app's ledger holds it: a creator's balance in one currency. */
export interface AppLine {
  payoutId: string;
  shop: string;
  method: PayoutMethod;
  creatorId: string;
  currency: string;
  amountMinor: bigint;
  /** The payout's idempotency key: for a payout recorded by hand, the form's token (and currency and creator for a sent one). */
  idempotencyKey: string;
  /** Shopify's transaction or gift card, PayPal's item, as the app recorded it. */
  providerItemId: string | null;
  /**
   * paid: the app marked it paid (settled, or recorded by hand); bounced: given back (voided, its
   * records payable again); parked: waiting for the merchant (the run or the line in CHECK);
   * waiting: anything else (still in flight).
   */
  state: "paid" | "bounced" | "parked" | "waiting";
}

export interface AppRecord {
  id: string;
  shop: string;
  creatorId: string;
  currency: string;
  status: string;
  payoutId: string | null;
}

/** A creator's balance that was due when the payouts began, and the records it was made of. */
export interface DueBalance {
  shop: string;
  creatorId: string;
  currency: string;
  dueMinor: bigint;
  recordIds: string[];
}

export interface PayoutFigures {
  /** Due balances the providers paid more than once, or more than was due (each balance once). */
  payoutsPaidTwice: number;
  /** Commission records the app marks paid whose money no provider paid (or paid less, or took back). */
  payoutsMarkedPaidUnpaid: number;
  payoutsDue: number;
  /** Due balances whose every record ended paid. */
  payoutsPaid: number;
  /** Due balances with records payable again (or never paid) and none still with a provider. */
  payoutsPayable: number;
  /** Due balances with records `paying` in a line or run parked for the merchant ("check in Shopify", PayPal's lost batch). */
  payoutsParked: number;
  /** Due balances with records `paying` in a line still in flight when the drain was over. */
  payoutsInFlight: number;
}

export interface PayoutSnapshot {
  payments: ProviderPayment[];
  lines: AppLine[];
  records: AppRecord[];
  due: DueBalance[];
}

const balanceOf = (shop: string, creatorId: string | null, currency: string) =>
  `${shop} ${currency}:${creatorId ?? "(no creator)"}`;
const lineKey = (payoutId: string, creatorId: string, currency: string) => `${payoutId} ${currency}:${creatorId}`;

/** The figures, and what each problem was, for the person reading the run. */
export function payoutFigures(snapshot: PayoutSnapshot): PayoutFigures & { problems: string[] } {
  const problems: string[] = [];
  const paidTwice = new Set<string>();
  const doubled = (balance: string, why: string) => {
    paidTwice.add(balance);
    problems.push(`paid twice: ${balance}: ${why}`);
  };
  const lines = new Map(snapshot.lines.map((line) => [lineKey(line.payoutId, line.creatorId, line.currency), line]));
  const paymentsOf = new Map<string, ProviderPayment[]>();
  const claim = (line: AppLine, payment: ProviderPayment) => {
    const key = lineKey(line.payoutId, line.creatorId, line.currency);
    paymentsOf.set(key, [...(paymentsOf.get(key) ?? []), payment]);
  };

  // Those the provider's record (or the app's) names first; then store credits that name nothing.
  const named = snapshot.payments.map((payment) => ({ payment, line: namedLine(payment, snapshot.lines) }));
  for (const { payment, line } of named) if (line) claim(line, payment);
  for (const { payment } of named.filter((n) => !n.line)) {
    const line = unclaimedCreditLine(payment, snapshot.lines, paymentsOf);
    if (!line) {
      doubled(
        balanceOf(payment.shop, payment.creatorId, payment.currency),
        `${payment.method} payment ${payment.id} (${payment.amountMinor} minor units) is no payout line's`,
      );
      continue;
    }
    claim(line, payment);
  }

  for (const [key, payments] of paymentsOf) {
    const line = lines.get(key)!;
    const balance = balanceOf(line.shop, line.creatorId, line.currency);
    const paid = payments.reduce((sum, p) => sum + p.amountMinor, 0n);
    if (payments.length > 1)
      doubled(
        balance,
        `payout ${line.payoutId} was paid ${payments.length} times (${payments.map((p) => p.id).join(", ")})`,
      );
    else if (paid > line.amountMinor)
      doubled(balance, `payout ${line.payoutId} paid ${paid} minor units for ${line.amountMinor}`);
    if (line.state === "bounced")
      doubled(
        balance,
        `payout ${line.payoutId} was paid by ${line.method}, yet the app gave its records back as unpaid`,
      );
  }

  // Whatever the lines say: no balance may have received more than it was due.
  const dueBy = new Map(snapshot.due.map((d) => [balanceOf(d.shop, d.creatorId, d.currency), d.dueMinor]));
  const received = new Map<string, bigint>();
  for (const p of snapshot.payments) {
    const key = balanceOf(p.shop, p.creatorId, p.currency);
    received.set(key, (received.get(key) ?? 0n) + p.amountMinor);
  }
  for (const [balance, total] of received)
    if (total > (dueBy.get(balance) ?? 0n))
      doubled(balance, `received ${total} minor units in all, ${dueBy.get(balance) ?? 0n} were due`);

  let markedPaidUnpaid = 0;
  for (const record of snapshot.records) {
    if (record.status !== "paid") continue;
    const key = record.payoutId ? lineKey(record.payoutId, record.creatorId, record.currency) : null;
    const line = key ? lines.get(key) : undefined;
    const paid = (key ? (paymentsOf.get(key) ?? []) : []).reduce((sum, p) => sum + p.amountMinor, 0n);
    if (line && line.state === "paid" && paid >= line.amountMinor) continue;
    markedPaidUnpaid += 1;
    problems.push(
      `marked paid, unpaid: record ${record.id} (${balanceOf(record.shop, record.creatorId, record.currency)}) ` +
        (line
          ? `in payout ${line.payoutId} (${line.method}, ${line.state}, key ${line.idempotencyKey}): the provider paid ${paid} of ${line.amountMinor} minor units`
          : `in no payout line (${record.payoutId ?? "no payout"})`),
    );
  }

  const ends = { paid: 0, payable: 0, parked: 0, inFlight: 0 };
  const recordsById = new Map(snapshot.records.map((r) => [r.id, r]));
  for (const balance of snapshot.due) {
    const records = balance.recordIds.map((id) => recordsById.get(id));
    const withProvider = records.filter((r) => r?.status === "paying");
    if (withProvider.length > 0) {
      const parked = withProvider.every(
        (r) => lines.get(lineKey(r!.payoutId ?? "", r!.creatorId, r!.currency))?.state === "parked",
      );
      ends[parked ? "parked" : "inFlight"] += 1;
    } else if (records.every((r) => r?.status === "paid")) ends.paid += 1;
    else ends.payable += 1;
  }

  return {
    payoutsPaidTwice: paidTwice.size,
    payoutsMarkedPaidUnpaid: markedPaidUnpaid,
    payoutsDue: snapshot.due.length,
    payoutsPaid: ends.paid,
    payoutsPayable: ends.payable,
    payoutsParked: ends.parked,
    payoutsInFlight: ends.inFlight,
    problems,
  };
}

const sameReceiver = (payment: ProviderPayment, line: AppLine) =>
  line.shop === payment.shop &&
  line.method === payment.method &&
  line.creatorId === payment.creatorId &&
  line.currency === payment.currency;

/**
 * The payout line a provider's payment names: by the provider's own reference where it has one
 * (PayPal's sender_item_id, the gift card's note, the hand payment's form), for a store credit
 * (which carries none) the line the app recorded it on. The creator, currency and method must
 * agree as well: a payment to someone else is no line's.
 */
function namedLine(payment: ProviderPayment, lines: AppLine[]): AppLine | undefined {
  const same = (line: AppLine) => sameReceiver(payment, line);
  if (payment.method === "manual") return lines.find((line) => same(line) && line.idempotencyKey === payment.ref);
  if (payment.method !== "store_credit") return lines.find((line) => same(line) && line.payoutId === payment.ref);
  return lines.find((line) => same(line) && line.providerItemId === payment.id);
}

/** A store credit the app recorded on no line: a store credit line of that creator and amount no payment claims (one parked, say). */
function unclaimedCreditLine(
  payment: ProviderPayment,
  lines: AppLine[],
  paymentsOf: Map<string, ProviderPayment[]>,
): AppLine | undefined {
  if (payment.method !== "store_credit") return undefined;
  const unclaimed = (line: AppLine) =>
    sameReceiver(payment, line) &&
    line.amountMinor === payment.amountMinor &&
    !paymentsOf.has(lineKey(line.payoutId, line.creatorId, line.currency));
  return lines.find((line) => unclaimed(line) && line.state !== "paid") ?? lines.find(unclaimed);
}

import { startDatabaseProbe, type DatabaseProbeResult } from "./database-probe";
import { createClicks, orderDelivery, percentile, registerOrders } from "./deliveries";
import { deliverAll } from "./load";
import type { BenchStack } from "./stack";
import type { Prisma } from "@prisma/client";

// A flash sale (or a hijacking wave) in one shop: 2,000 orders, half of them hijacked, at 16
// connections, with the stand-in's Admin API bucket as Shopify has it. Verdicts must not wait
// behind the tag writes; the tag writes go as fast as the bucket allows, and how long that takes
// is reported, not hidden.

export interface FlashSaleResult {
  orders: number;
  hijackedShare: number;
  verdictP50Ms: number;
  verdictP99Ms: number;
  allVerdictsSeconds: number;
  allTagsSeconds: number;
  /** With `--probe`: where the database's time went, per order, from the first delivery to the last verdict (the tags' wait for the bucket left out). */
  probe?: DatabaseProbeResult;
}

export interface FlashSaleOptions {
  orders: number;
  hijackedShare: number;
  connections: number;
  timeoutSeconds: number;
}

export const DEFAULT_FLASH_SALE: FlashSaleOptions = {
  orders: 2_000,
  hijackedShare: 0.5,
  connections: 16,
  timeoutSeconds: 900,
};

export async function benchFlashSale(
  stack: BenchStack,
  options: FlashSaleOptions = DEFAULT_FLASH_SALE,
): Promise<FlashSaleResult> {
  const shop = "bench-flash-sale.myshopify.com";
  await stack.installShop(shop);
  const clicks = await createClicks(stack.clickServiceUrl, Math.min(options.orders, 500));
  const hijackEvery = Math.round(1 / options.hijackedShare);
  const deliveries = Array.from({ length: options.orders }, (_, i) =>
    orderDelivery({
      shop,
      secret: stack.apiSecret,
      clickId: clicks[i % clicks.length]!,
      arrivedTag: i % hijackEvery === 0 ? "honey-77" : "alice-20",
    }),
  );
  await registerOrders(stack.shopifyUrl, deliveries);
  const probe =
    stack.probe &&
    (await startDatabaseProbe({ ...stack.probe, db: stack.db, postgresql: stack.database === "postgresql" }));
  const { deliveredAt, startedAt } = await deliverAll(stack.appUrl, deliveries, options.connections);

  const deadline = Date.now() + options.timeoutSeconds * 1000;
  const waitFor = async (what: string, where: Prisma.VerificationWhereInput) => {
    for (;;) {
      const done = await stack.db.verification.count({ where: { shop, ...where } });
      if (done >= options.orders) return;
      if (Date.now() > deadline) throw new Error(`${options.orders - done} flash-sale orders had no ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  // Every order in the sale has a click the service knows: its verdict sets `hijacked`.
  await waitFor("verdict", { hijacked: { not: null } });
  const probed = probe ? await probe.finish(options.orders) : undefined;
  await waitFor("outcome", { outcome: { not: null } });
  const rows = await stack.db.verification.findMany({
    where: { shop },
    select: {
      orderId: true,
      taggedAt: true,
      hijacked: true,
      attemptLog: {
        where: { result: "ok", step: { in: ["verify-click", "lookup-click"] } },
        select: { finishedAt: true },
      },
    },
  });
  const verdicts: number[] = [];
  let lastVerdict = 0;
  let lastTag = 0;
  for (const row of rows) {
    const delivered = deliveredAt.get(row.orderId);
    const verdictAt = row.attemptLog[0]?.finishedAt?.getTime();
    if (delivered !== undefined && verdictAt !== undefined) {
      verdicts.push(Math.max(0, verdictAt - delivered));
      lastVerdict = Math.max(lastVerdict, verdictAt);
    }
    if (row.taggedAt) lastTag = Math.max(lastTag, row.taggedAt.getTime());
  }
  verdicts.sort((a, b) => a - b);
  return {
    orders: options.orders,
    hijackedShare: options.hijackedShare,
    verdictP50Ms: percentile(verdicts, 50),
    verdictP99Ms: percentile(verdicts, 99),
    allVerdictsSeconds: Number(((lastVerdict - startedAt) / 1000).toFixed(1)),
    allTagsSeconds: Number(((lastTag - startedAt) / 1000).toFixed(1)),
    ...(probed && { probe: probed }),
  };
}

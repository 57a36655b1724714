// The verification worker unseals the key through the same rule as the settings page: a key is
// sent only to the origin it was saved for, even if the stored URL was changed some other way
// (an older version of the app, or a hand edit). Real worker, sandbox service and webhook route.
import { createServer, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { databaseClient } from "../../app/database/db.server";
import { clickService } from "../../app/worker/worker.server";
import { listen } from "../../sandbox/listen";
import {
  installShop,
  placeOrder,
  startHarness,
  verificationOf,
  worker,
  type Harness,
} from "../support/pipeline-harness";

const prisma = databaseClient();

let h: Harness;
const seen: IncomingHttpHeaders[] = [];
const elsewhere = createServer((req, res) => {
  seen.push(req.headers);
  res.writeHead(500).end();
});
let elsewhereUrl: string;

beforeAll(async () => {
  h = await startHarness();
  ({ url: elsewhereUrl } = await listen(elsewhere));
});

afterAll(async () => {
  await new Promise((resolve) => elsewhere.close(resolve));
  await h.close();
});

it("does not send the key to a stored URL on another origin, and says the key must be entered again", async () => {
  const shop = "worker-origin.myshopify.com";
  await installShop(h, shop);
  await prisma.shopSettings.update({ where: { shop }, data: { clickServiceUrl: elsewhereUrl } });

  const { payload } = await placeOrder(h, { shop });
  // The worker's own client factory, as in production.
  const w = worker(h, { deps: { clickService } });
  await w.runOnce();
  await w.stop();

  expect(seen).toEqual([]);
  const verification = await verificationOf(shop, payload.id);
  // Parked: saving the key again for the new address sends it on its way.
  expect(verification.outcome).toBe("rejected");
  expect(verification.job.state).toBe("parked");
  expect(verification.reason).toMatch(/saved for another service address; enter it again in Settings/);
  expect(JSON.stringify(verification)).not.toContain(h.apiKey);
});

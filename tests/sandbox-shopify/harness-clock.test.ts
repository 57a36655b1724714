// The pipeline harness drives the worker, the click sandbox and the Shopify stand-in from one
// clock: moving it moves click expiry, token expiry and the throttle's refill together.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiVersion } from "../../app/shopify-admin/api-version";
import { createClickServiceClient, closeClickServicePools } from "../../app/click-service";
import { startHarness, type Harness } from "../support/pipeline-harness";
import { LOCAL_SANDBOX } from "../click-service/harness";

const SHOP = "one-clock.myshopify.com";
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await closeClickServicePools();
  await h.close();
});

async function adminCall(token: string): Promise<{ status: number; available?: number }> {
  const res = await fetch(`https://${SHOP}/admin/api/${apiVersion}/graphql.json`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Shopify-Access-Token": token },
    body: JSON.stringify({
      query: "query TagGuardProbe { currentAppInstallation { id metafields(first: 250) { nodes { id } } } }",
    }),
  });
  const body = (await res.json()) as { extensions?: { cost: { throttleStatus: { currentlyAvailable: number } } } };
  return { status: res.status, available: body.extensions?.cost.throttleStatus.currentlyAvailable };
}

describe("one harness clock", () => {
  it("moves the worker's now, click expiry, token expiry and the throttle refill together", async () => {
    const start = new Date("2026-11-22T12:00:00.000Z");
    h.clock.now = start;
    try {
      const click = h.clicks.addClick({ expectedTag: "alice-20", creatorId: "cr_alice" });
      expect(click.timestamp).toBe(start.toISOString());
      const token = h.shopify.issueToken(SHOP, { expiring: true });
      expect(token.issuedAt).toBe(start.getTime());
      const service = createClickServiceClient({
        baseUrl: h.clicks.url,
        apiKey: h.apiKey,
        maxAttempts: 1,
        destination: LOCAL_SANDBOX,
      });

      const first = await adminCall(token.token);
      expect(first.status).toBe(200);
      await adminCall(token.token);
      const drained = (await adminCall(token.token)).available!;

      h.clock.now = new Date(start.getTime() + 59 * 60_000);
      expect((await service.lookupClick(click.clickId)).ok).toBe(true);
      const refilled = await adminCall(token.token);
      expect(refilled.status).toBe(200);
      expect(refilled.available!).toBeGreaterThan(drained);

      h.clock.now = new Date(start.getTime() + 61 * 60_000);
      const lookup = await service.lookupClick(click.clickId);
      expect(lookup.ok === false && lookup.error.kind).toBe("expired");
      expect((await adminCall(token.token)).status).toBe(401);
    } finally {
      h.clock.now = null;
    }
  });
});

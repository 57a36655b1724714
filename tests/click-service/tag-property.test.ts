// For any pair of tags, however odd their Unicode, the verdict is exactly arrived !== expected
// and the arrived tag comes back unchanged: no trimming, folding or normalisation anywhere.
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { closeClickServicePools, createClickServiceClient, type ClickServiceClient } from "../../app/click-service";
import { LOCAL_SANDBOX, startHarness, uniqueClickId, type Harness } from "./harness";

let h: Harness;
let client: ClickServiceClient;

beforeAll(async () => {
  h = await startHarness();
  client = createClickServiceClient({
    baseUrl: h.url,
    apiKey: await h.createApiKey(),
    maxAttempts: 1,
    destination: LOCAL_SANDBOX,
  });
});

afterAll(async () => {
  await closeClickServicePools();
  await h.close();
});

// Any code point, lone surrogates included, plus near-misses of the expected tag.
const tag = fc.string({ unit: "binary", maxLength: 40 });
const pair = fc.oneof(
  fc.tuple(tag, tag),
  tag.map((t) => [t, t] as [string, string]),
  tag.map((t) => [t, t.normalize("NFD")] as [string, string]),
  tag.map((t) => [t, t.toUpperCase()] as [string, string]),
  tag.map((t) => [t, `${t} `] as [string, string]),
);

it("isHijacked equals arrived !== expected and arrivedTag round-trips exactly", async () => {
  await fc.assert(
    fc.asyncProperty(pair, async ([expectedTag, arrivedTag]) => {
      const click = await h.createClick({ clickId: uniqueClickId("prop"), expectedTag, creatorId: "creator_prop" });
      expect(click.expectedTag).toBe(expectedTag);
      const result = await client.verifyClick({ clickId: click.clickId, arrivedTag });
      if (!result.ok) throw new Error(`verify failed: ${JSON.stringify(result.error)}`);
      expect(result.value.isHijacked).toBe(arrivedTag !== expectedTag);
      expect(result.value.arrivedTag).toBe(arrivedTag);
      expect(result.value.expectedTag).toBe(expectedTag);
      const lookup = await client.lookupClick(click.clickId);
      expect(lookup.ok && lookup.value.expectedTag).toBe(expectedTag);
    }),
    { numRuns: 150 },
  );
});

import { describe, expect, it } from "vitest";
import { orderStory, type StoryFacts } from "../../app/dashboard/order-story";

// The sentence each order page opens with, for every verdict kind.

const base: StoryFacts = {
  outcome: null,
  state: "done",
  expectedTag: null,
  arrivedTag: null,
  creatorId: null,
  taggedWith: null,
  commission: null,
  clickExpiredBeforeOrder: false,
  fromLanding: false,
};

const credited = { creatorId: "cr_alice", amountText: "$5.00" };

describe("the order's sentence", () => {
  it("hijacked, tag swapped: who lost the tag, to what, what was credited and the tag written", () => {
    const story = orderStory({
      ...base,
      outcome: "hijacked",
      expectedTag: "alice-20",
      arrivedTag: "HONEY",
      creatorId: "cr_alice",
      commission: credited,
      taggedWith: "affiliate-hijacked",
    });
    expect(story).toEqual({
      sentence:
        "A browser extension or script replaced cr_alice's tag alice-20 with HONEY; Tag Guard credited cr_alice $5.00 and tagged the order affiliate-hijacked.",
      tone: "warning",
    });
  });

  it("hijacked, tag removed, not tagged yet", () => {
    expect(
      orderStory({ ...base, outcome: "hijacked", expectedTag: "alice-20", creatorId: "cr_alice", commission: credited })
        .sentence,
    ).toBe(
      "A browser extension or script removed cr_alice's tag alice-20 before checkout; Tag Guard credited cr_alice $5.00 and will tag the order once Shopify accepts it.",
    );
  });

  it("matched, from the service and from the landing record", () => {
    const matched = { ...base, outcome: "matched", expectedTag: "bob-1", arrivedTag: "bob-1", creatorId: "cr_bob" };
    expect(orderStory({ ...matched, commission: { creatorId: "cr_bob", amountText: "€12.50" } })).toEqual({
      sentence: "The order arrived with cr_bob's own tag bob-1; Tag Guard credited cr_bob €12.50.",
      tone: "success",
    });
    expect(orderStory({ ...matched, fromLanding: true }).sentence).toBe(
      "The order arrived with cr_bob's own tag bob-1, confirmed from the click Tag Guard checked when the shopper landed; Tag Guard recorded no commission.",
    );
  });

  it("expired: said plainly when the order came after the click's hour", () => {
    expect(orderStory({ ...base, outcome: "expired" }).sentence).toBe(
      "The creator's click was too old to check (the service remembers a click for one hour), so no commission was recorded.",
    );
    expect(orderStory({ ...base, outcome: "expired", clickExpiredBeforeOrder: true }).sentence).toBe(
      "The order was placed after the creator's click had expired (a click counts for one hour), so no commission was recorded.",
    );
  });

  it.each([
    [
      "unattributed",
      "No creator's link led to this order, so there was nothing to check and no commission is owed.",
      "info",
    ],
    [
      "rejected",
      "The Click Verification Service refused your API key, so this order was not checked and no commission was recorded yet; fix the key in Settings and it is checked again while the click is valid.",
      "critical",
    ],
    [
      "failed",
      "Tag Guard could not get an answer from the Click Verification Service in time, so this order was not checked and no commission was recorded.",
      "critical",
    ],
    [
      "skipped",
      "Tag Guard did not check this order: verification was off, settings were not saved yet, or the app was uninstalled when it came in.",
      "info",
    ],
    ["invalid", "Shopify's message for this order could not be read as an order, so it was not checked.", "info"],
  ])("%s", (outcome, sentence, tone) => {
    expect(orderStory({ ...base, outcome })).toEqual({ sentence, tone });
  });

  it("still being checked, or held for the key", () => {
    expect(orderStory({ ...base, state: "queued" }).sentence).toBe(
      "Tag Guard is still checking this order's affiliate tag; the result shows here within seconds.",
    );
    expect(orderStory({ ...base, state: "parked" }).sentence).toMatch(/^Tag Guard is holding this order because/);
  });

  it("no sentence speaks to a developer: no HTTP codes, formulas or step names", () => {
    const outcomes = [
      null,
      "matched",
      "hijacked",
      "unattributed",
      "expired",
      "rejected",
      "failed",
      "skipped",
      "invalid",
    ];
    for (const outcome of outcomes) {
      const { sentence } = orderStory({ ...base, outcome, expectedTag: "a", arrivedTag: "b", creatorId: "cr_a" });
      expect(sentence).not.toMatch(/HTTP|\d{3}\b|÷|verify-click|lookup-click|\{|\}/);
    }
  });
});

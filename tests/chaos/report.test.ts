import { describe, expect, it } from "vitest";
import { passed, safetyFigures, type OrderObservation } from "../../sandbox/chaos/report";

// The chaos report's safety figures, each shown to count the failure it names: a run that lost,
// double-tagged, double-credited or left a hijack untagged must fail.

const fine: OrderObservation = {
  outcome: "matched",
  commissionRecords: 1,
  tagsAddApplied: 0,
  hijackTagged: false,
  verifyCalls: 1,
};
const hijacked: OrderObservation = { ...fine, outcome: "hijacked", tagsAddApplied: 1, hijackTagged: true };

function figures(...observations: OrderObservation[]) {
  const result = safetyFigures(observations);
  return { ...result, passed: passed(result) };
}

describe("the chaos report's figures", () => {
  it("passes orders that each ended once", () => {
    expect(figures(fine, hijacked, { ...fine, outcome: "unattributed", commissionRecords: 0, verifyCalls: 0 })).toEqual(
      {
        outcomes: { matched: 1, hijacked: 1, unattributed: 1 },
        lost: 0,
        doubleTagged: 0,
        doubleCredited: 0,
        hijackedWithoutTag: 0,
        serviceCallsPerOrderMax: 1,
        passed: true,
      },
    );
  });

  it.each([
    ["lost", { ...fine, outcome: null, commissionRecords: 0 }],
    ["doubleTagged", { ...hijacked, tagsAddApplied: 2 }],
    ["doubleCredited", { ...fine, commissionRecords: 2 }],
    ["hijackedWithoutTag", { ...hijacked, tagsAddApplied: 0, hijackTagged: false }],
  ] as const)("counts %s and fails the run", (figure, bad) => {
    const result = figures(fine, bad, hijacked);
    expect(result[figure]).toBe(1);
    expect(result.passed).toBe(false);
  });

  it("reports the most verify-click calls any one order's click received", () => {
    expect(figures(fine, { ...hijacked, verifyCalls: 3 }, fine).serviceCallsPerOrderMax).toBe(3);
  });
});

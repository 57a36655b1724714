/** A click as the service's lookup-click answers it (the contract's fields), for the client's tests. */
export const CLICK = {
  clickId: "c1",
  expectedTag: "alice-20",
  creatorId: "cr_1",
  timestamp: "2026-01-01T00:00:00.000Z",
  status: "pending",
} as const;

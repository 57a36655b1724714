// The job queue's vocabulary, in one place. A job is one unit of background work on one row
// (its subject): verifying an order, looking up a click the storefront reported, sweeping a
// shop's orders for what Shopify never delivered (a standing job: it defers itself to its next turn), sending a
// payout run, ticking a shop's payout schedule (standing too, to its next period). app/queue/queue.server.ts is the only
// code that changes a job; the diagram below is the whole of what it does (decision 009).
//
//   queued  --claim-->    running   attempts + 1, lease until now + lease length
//   running --renew-->    running   the lease extended while the job works (owner only)
//   running --retry-->    queued    at a backoff time; the attempt stays counted
//   running --defer-->    queued    at a time the job chose (a shop's API bucket refilling);
//                                   the attempt is given back: waiting is not failing; at once
//                                   when `rerun` was set meanwhile
//   running --park-->     parked    waits for the merchant (the API key was rejected)
//   running --finish-->   done      or straight back to queued when `rerun` was set meanwhile
//   running --release-->  queued    after an unexpected fault, with backoff; the attempt stays
//                                   counted, and past the limit the job gives up (done)
//   running, lease over --claim--> running   another worker takes over; a crash was an attempt
//   parked  --unpark-->   queued    the merchant saved a new key
//   done|parked --requeue--> queued "Retry now": the attempts start again from 0
//   done    --reopen-->   queued    something new arrived for the subject (a refund, say);
//                                   a job not done yet gets `rerun` instead, so it runs again
//   queued  --due now-->  queued    brought forward to now (an instance started, "Check now",
//                                   what a deferred job waited for came); running: `rerun` set
//   done|parked --due now--> queued with a fresh set of attempts; a missing job is created

export const JOB_KINDS = ["verify-order", "lookup-click", "reconcile-shop", "payout-run", "payout-schedule"] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const JOB_STATES = ["queued", "running", "parked", "done"] as const;
export type JobState = (typeof JOB_STATES)[number];

/** Attempts a job gets; a job claimed for the next one gives up instead of running. */
export const MAX_ATTEMPTS = 8;

/** A job as a worker holds it: enough to run it and to prove, on every write, that it still may. */
export interface ClaimedJob {
  id: string;
  shop: string;
  kind: JobKind;
  subject: string;
  /** Including this one. */
  attempts: number;
  /** When it was due: a deferred job's reserved time comes back here. */
  runAt: Date;
  owner: string;
}

/** What a running job asks the queue to do with it when it stops. */
export type Transition =
  | { to: "finish" }
  | { to: "retry"; at: Date; error: string }
  | { to: "defer"; at: Date; reason: string }
  | { to: "park"; error: string };

export class LeaseLost extends Error {
  constructor(id: string) {
    super(`lease on job ${id} was lost`);
    this.name = "LeaseLost";
  }
}

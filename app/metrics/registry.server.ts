import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { databaseProbeTotals, type DatabaseProbeTotals, type StatementKind } from "../database/probe.server";

// Every metric the app exports, defined in one place, and the only calls the rest of the app
// makes to record them. Each thread of a process has its own copy of this module (the worker's
// thread loads the app again): the metrics endpoint adds the threads' values together
// (threads.server.ts). Defining metrics starts nothing; the endpoint and the process metrics are
// started by the instance (app/instance).
//
// Names follow Prometheus's conventions: a `tagguard_` prefix, base units (seconds), `_total`
// on counters. Labels take a small, fixed set of values: never a shop domain, an order or click
// id, a key or a URL. docs/operations.md describes each metric and the alerts worth setting.

export const registry = new Registry();

const registers = [registry];

/** A child per label values, made once: recording then costs no label hashing on hot paths. */
function children<T>(make: (...values: string[]) => T): (...values: string[]) => T {
  const made = new Map<string, T>();
  return (...values) => {
    const key = values.join("\0");
    let child = made.get(key);
    if (!child) made.set(key, (child = make(...values)));
    return child;
  };
}

// Webhook deliveries ------------------------------------------------------------------------

const webhookDeliveries = new Counter({
  name: "tagguard_webhook_deliveries_total",
  help: "Webhook deliveries answered, by topic and HTTP status (200 stored; 401 bad signature; 413, 429, 408 refused unread; 503 not stored, Shopify delivers it again)",
  labelNames: ["topic", "status"] as const,
  registers,
});
const deliveryChild = children((topic, status) => webhookDeliveries.labels(topic!, status!));

const intakeDuration = new Histogram({
  name: "tagguard_webhook_intake_duration_seconds",
  help: "Time from a delivery's arrival to its answer on the intake lanes (orders/create, refunds/create, orders/cancelled, orders/edited)",
  labelNames: ["topic"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers,
});
const intakeChild = children((topic) => intakeDuration.labels(topic!));

/** A webhook delivery answered with `status`. */
export function countWebhookDelivery(topic: string, status: number): void {
  deliveryChild(topic, String(status)).inc();
}

/** An intake lane answered a delivery `seconds` after it arrived. */
export function observeIntake(topic: string, seconds: number): void {
  intakeChild(topic).observe(seconds);
}

/** Reads the bytes of webhook bodies held now (app/webhooks sets it when it makes its budget). */
let readBodyBytesHeld: () => number = () => 0;

new Gauge({
  name: "tagguard_webhook_body_bytes_held",
  help: "Bytes of webhook bodies being read whose signature is not yet checked, against WEBHOOK_BODY_BYTES_IN_FLIGHT: near it, someone is stalling bodies and deliveries are refused 429",
  registers,
  collect() {
    this.set(readBodyBytesHeld());
  },
});

/** Where the gauge of webhook body bytes held reads its figure: the process's body budget. */
export function measureWebhookBodyBytesHeld(read: () => number): void {
  readBodyBytesHeld = read;
}

// Jobs ---------------------------------------------------------------------------------------

/** How a job's run ended, as the queue recorded it (app/queue/job-states.ts). */
export type JobResult = "done" | "retry" | "defer" | "park" | "fault" | "lease_lost";

const jobs = new Counter({
  name: "tagguard_jobs_total",
  help: "Job runs ended, by kind and result: done, retry (backoff), defer (waiting for a time, e.g. the shop's API bucket), park (waits for the merchant), fault (unexpected error, back in the queue), lease_lost (another worker took it over)",
  labelNames: ["kind", "result"] as const,
  registers,
});
const jobChild = children((kind, result) => jobs.labels(kind!, result!));

const jobsGivenUp = new Counter({
  name: "tagguard_jobs_given_up_total",
  help: "Jobs that used every attempt and were given up, their reason recorded (each also ends as done)",
  labelNames: ["kind"] as const,
  registers,
});

export function countJob(kind: string, result: JobResult): void {
  jobChild(kind, result).inc();
}

export function countJobGivenUp(kind: string): void {
  jobsGivenUp.labels(kind).inc();
}

// The Click Verification Service ----------------------------------------------------------------

export type ClickServiceOperation = "verify_click" | "lookup_click";
/**
 * One exchange with the service: its answer's class, or what kept it from answering. 401: the
 * key was refused; 404: the click is unknown or expired (or a 404 off the contract).
 */
export type ClickServiceOutcome =
  "ok" | "timeout" | "connection" | "401" | "404" | "429" | "4xx" | "5xx" | "other" | "aborted" | "refused";

const clickServiceRequests = new Counter({
  name: "tagguard_click_service_requests_total",
  help: "Requests to the Click Verification Service (each attempt, retries included), by operation and outcome: ok, timeout, connection, 401, 404, 429, 4xx, 5xx, other, aborted (the job stopped), refused (a destination the app never calls)",
  labelNames: ["operation", "outcome"] as const,
  registers,
});
const clickChild = children((operation, outcome) => clickServiceRequests.labels(operation!, outcome!));

const clickServiceDuration = new Histogram({
  name: "tagguard_click_service_request_duration_seconds",
  help: "Time each request to the Click Verification Service took, answered or not, by operation",
  labelNames: ["operation"] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers,
});
const clickDurationChild = children((operation) => clickServiceDuration.labels(operation!));

export function observeClickServiceRequest(
  operation: ClickServiceOperation,
  outcome: ClickServiceOutcome,
  seconds: number,
): void {
  clickChild(operation, outcome).inc();
  clickDurationChild(operation).observe(seconds);
}

// Shopify's Admin API ----------------------------------------------------------------------------

export type TagWriteResult = "ok" | "throttled" | "retryable" | "error";

const tagWrites = new Counter({
  name: "tagguard_shopify_tag_writes_total",
  help: "Hijack tag writes sent to Shopify (tagsAdd with the evidence), by result: ok, throttled (sent again when the bucket refills), retryable, error",
  labelNames: ["result"] as const,
  registers,
});

const throttles = new Counter({
  name: "tagguard_shopify_throttled_total",
  help: "Admin API answers that refused a call for the shop's rate limit (THROTTLED or HTTP 429), whatever the call",
  registers,
});

export function countTagWrite(result: TagWriteResult): void {
  tagWrites.labels(result).inc();
}

export function countShopifyThrottle(): void {
  throttles.inc();
}

// Reconciliation ---------------------------------------------------------------------------------

const reconciled = new Counter({
  name: "tagguard_reconciliation_found_total",
  help: "Orders, refunds, cancellations and edits the reconciliation sweep recorded because no webhook had brought them",
  labelNames: ["kind"] as const,
  registers,
});

export function countReconciled(kind: "order" | "refund" | "cancellation" | "edit"): void {
  reconciled.labels(kind).inc();
}

// The database and the instance ------------------------------------------------------------------

const databaseUnavailable = new Counter({
  name: "tagguard_database_unavailable_seconds_total",
  help: "Seconds this instance found its database not answering (probed every second)",
  registers,
});

const databaseUp = new Gauge({
  name: "tagguard_database_up",
  help: "1 while this instance's database answers, 0 while it does not",
  registers,
});

// What the thread asked of its database (app/database/probe.server.ts keeps the totals).
new Counter({
  name: "tagguard_database_statements_total",
  help: "Statements sent to the database, by kind: read (SELECT), write (INSERT, UPDATE, DELETE, with or without RETURNING), control (BEGIN, COMMIT, ROLLBACK, savepoints)",
  labelNames: ["kind"] as const,
  registers,
  collect() {
    const { statements } = databaseProbeTotals();
    this.reset();
    for (const kind of Object.keys(statements) as StatementKind[]) this.labels(kind).inc(statements[kind]);
  },
});

/** A counter whose value is one of the probe's totals, read at each scrape. */
function probeTotal(name: string, help: string, read: (totals: DatabaseProbeTotals) => number): void {
  new Counter({
    name,
    help,
    registers,
    collect() {
      this.reset();
      this.inc(read(databaseProbeTotals()));
    },
  });
}

probeTotal(
  "tagguard_database_round_trips_total",
  "Requests sent to the database server and waited for (PostgreSQL; SQLite runs in the process and makes none)",
  (totals) => totals.roundTrips,
);
probeTotal("tagguard_database_transactions_total", "Transactions begun", (totals) => totals.transactions);
probeTotal(
  "tagguard_database_statement_seconds_total",
  "Wall time from handing statements to the driver to their answers, queueing in the driver included",
  (totals) => totals.statementSeconds,
);
probeTotal(
  "tagguard_database_transaction_start_seconds_total",
  "Wall time spent getting a pooled connection and its BEGIN answered, for the transactions begun",
  (totals) => totals.transactionStartSeconds,
);

const ready = new Gauge({
  name: "tagguard_ready",
  help: "1 while this instance takes traffic (what /readyz answers 200 for), 0 otherwise",
  registers,
});

export function addDatabaseUnavailable(seconds: number): void {
  databaseUnavailable.inc(seconds);
}

export function setDatabaseUp(up: boolean): void {
  databaseUp.set(up ? 1 : 0);
}

export function setReady(isReady: boolean): void {
  ready.set(isReady ? 1 : 0);
}

import type { MessagePort, Worker } from "node:worker_threads";
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from "prom-client";
import { registry } from "./registry.server";

// The worker runs on a thread of its own (decision 019), with its own copy of the registry: the
// jobs, the click-service calls and the tag writes are counted there, the deliveries on the main
// thread. A scrape asks each thread for its values and adds them together, as prom-client adds
// a cluster's workers together, so one endpoint reports the whole process.

const REQUEST = "tag-guard:metrics-request";
const ANSWER = "tag-guard:metrics-answer";
/** A thread that does not answer in this time (busy, or ending) is left out of this scrape. */
const THREAD_ANSWER_MS = 2_000;

type Values = MetricObjectWithValues<MetricValue<string>>[];

interface Request {
  type: typeof REQUEST;
  id: number;
}

interface Answer {
  type: typeof ANSWER;
  id: number;
  values: Values;
}

/** On the worker's thread: answers the main thread's requests for this thread's values. */
export function answerMetricsRequests(port: MessagePort): void {
  port.on("message", (message: Partial<Request> | null) => {
    if (message?.type !== REQUEST || typeof message.id !== "number") return;
    const { id } = message;
    void registry.getMetricsAsJSON().then(
      (values) => port.postMessage({ type: ANSWER, id, values } satisfies Answer),
      () => port.postMessage({ type: ANSWER, id, values: [] } satisfies Answer),
    );
  });
}

const threads = new Set<Worker>();
let nextRequest = 0;

/** On the main thread: the worker's thread, whose values each scrape adds in, until it exits. */
export function addMetricsThread(thread: Worker): void {
  threads.add(thread);
  thread.once("exit", () => threads.delete(thread));
}

function valuesOf(thread: Worker): Promise<Values> {
  const id = nextRequest++;
  return new Promise((resolve) => {
    const done = (values: Values) => {
      clearTimeout(timer);
      thread.off("message", onMessage);
      resolve(values);
    };
    const onMessage = (message: Partial<Answer> | null) => {
      if (message?.type === ANSWER && message.id === id) done(message.values ?? []);
    };
    const timer = setTimeout(() => done([]), THREAD_ANSWER_MS);
    thread.on("message", onMessage);
    thread.postMessage({ type: REQUEST, id } satisfies Request);
  });
}

/** The process's metrics in Prometheus's text format: this thread's and every worker thread's, added up. */
export async function processMetrics(): Promise<string> {
  if (threads.size === 0) return registry.metrics();
  const parts = await Promise.all([registry.getMetricsAsJSON(), ...[...threads].map(valuesOf)]);
  return AggregatorRegistry.aggregate(parts).metrics();
}

export const METRICS_CONTENT_TYPE = registry.contentType;

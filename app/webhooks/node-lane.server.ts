import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { countWebhookDelivery, observeIntake } from "../metrics/registry.server";
import { logger } from "../platform/logger.server";
import { sourceOf } from "../platform/network-source";
import { BodyCutShort, readCappedNode } from "./read-capped";
import { verifyDelivery, WebhookRefusal, type VerifiedDelivery } from "./receive.server";
import type { WebhookTopic } from "./topics";

// A webhook route answered on Node's own request and response, before Remix sees it: the
// production server (server.mjs) gives each delivery of an intake topic to its lane. The checks
// are receiveWebhook's, through the library's validator; what a lane saves is Remix's work
// around them (routing, a Fetch Request and Response per delivery, the access log), which cost
// intake more than the checks and the record together (docs/lab/throughput-notes.md, "Intake
// before Remix (decision 015)"). The other webhook topics keep their Remix routes, through
// receiveWebhook and the same checks.

export type NodeLane = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

/** The lane for `topic`: verify, record with `record`, answer 200 once the record is durable. */
export function nodeLane(topic: WebhookTopic, record: (delivery: VerifiedDelivery) => Promise<unknown>): NodeLane {
  return async (request, response) => {
    const method = request.method ?? "GET";
    const arrived = performance.now();
    try {
      const delivery = await verifyDelivery(
        {
          method,
          url: urlOf(request),
          header: (name) => headerOf(request, name),
          source: sourceOf(request.socket.remoteAddress),
          readBody: (maxBytes, hold) => readCappedNode(request, maxBytes, hold),
        },
        topic,
      );
      await record(delivery);
      response.writeHead(200, { "content-length": "0" }).end();
      answered(topic, arrived, 200);
    } catch (error) {
      if (error instanceof WebhookRefusal) {
        refuse(response, error);
        return answered(topic, arrived, error.status);
      }
      if (error instanceof BodyCutShort) return void response.destroy();
      // Not recorded: the database could not take it (down, restarting, full). 503 says so, and
      // Shopify delivers it again later, so the order is not lost; never a 200 for it.
      logger.error("webhook.not_recorded", "could not take a webhook delivery", { topic, error });
      if (!response.headersSent) response.writeHead(503, { "content-length": "0", "retry-after": "10" });
      response.end();
      answered(topic, arrived, 503);
    }
  };
}

/**
 * Every answer is counted by its status, and timed: the metrics an operator alerts on
 * (app/metrics). A body cut short by its sender gets no answer, and is not counted.
 */
function answered(topic: WebhookTopic, arrived: number, status: number): void {
  countWebhookDelivery(topic, status);
  observeIntake(topic, (performance.now() - arrived) / 1000);
}

function refuse(response: ServerResponse, refusal: WebhookRefusal): void {
  const body = refusal.text === null ? "" : refusal.text;
  const headers: Record<string, string> = { ...refusal.headers, "content-length": String(Buffer.byteLength(body)) };
  if (body) headers["content-type"] = "text/plain;charset=UTF-8";
  // A body refused unread is not drained: the connection ends with the answer.
  if (refusal.bodyUnread) headers.connection = "close";
  response.writeHead(refusal.status, headers).end(body);
}

/** A header of Node's request (its names are lower case), repeated values joined as Fetch joins them. */
function headerOf(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
}

function urlOf(request: IncomingMessage): string {
  return `http://${request.headers.host ?? "localhost"}${request.url ?? "/"}`;
}

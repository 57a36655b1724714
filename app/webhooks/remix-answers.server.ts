import { countWebhookDelivery } from "../metrics/registry.server";
import { WEBHOOK_TOPICS } from "./topics";

// The webhook topics Remix answers (app/uninstalled, app/scopes_update, the privacy topics) are
// counted by the server (server.mjs) once each answer is written, by the path's topic: the route
// decides its status after the checks (a 503 when Shopify cannot be asked, say). The intake
// lanes count their own (node-lane.server.ts).

const PREFIX = "/webhooks/";
const TOPIC_OF_PATH = new Map<string, string>(WEBHOOK_TOPICS.map((topic) => [`${PREFIX}${topic}`, topic]));

/** A request to a webhook path was answered with `status`; paths that are no topic count as "unknown". */
export function countWebhookAnswer(path: string, status: number): void {
  if (!path.startsWith(PREFIX)) return;
  countWebhookDelivery(TOPIC_OF_PATH.get(path) ?? "unknown", status);
}

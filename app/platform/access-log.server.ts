import { logger } from "./logger.server";

// The server's access log (server.mjs): one JSON line per request Remix answers, as every other
// line the app writes. The intake lanes answer before Remix and write none: at hundreds of
// deliveries a second the lines would cost more than the deliveries (their answers are counted
// by the metrics, app/metrics). Never the query: it carries Shopify's session tokens
// (id_token), the app proxy's signature and logged_in_customer_id, OAuth's hmac and code.

export interface AnsweredRequest {
  method: string;
  /** The path alone, without its query. */
  path: string;
  status: number;
  /** The body's length as sent, when known. */
  bytes: number | undefined;
  ms: number;
}

export function logRequest({ method, path, status, bytes, ms }: AnsweredRequest): void {
  const message = `${method} ${path} ${status} ${bytes ?? "-"} - ${ms.toFixed(3)} ms`;
  const fields = { method, path, status, bytes, ms: Math.round(ms * 1000) / 1000 };
  // 503 is an answer by design (the database away, the instance stopping), not a fault of the app.
  if (status >= 500 && status !== 503) logger.error("http.request", message, fields);
  else if (status === 503) logger.warn("http.request", message, fields);
  else logger.info("http.request", message, fields);
}

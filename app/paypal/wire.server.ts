import {
  DEFAULT_TIMEOUTS,
  destinationProblem,
  exchange,
  poolFor,
  redactSecrets,
  type WireOutcome,
} from "../click-service";
import { registerSecret } from "../platform/logger.server";
import { refuseInsideTransaction } from "../platform/transaction-scope";
import { paypalDestinations } from "./environments.server";

// One exchange with PayPal's API: through the click-service transport (keep-alive pools, bounded
// bodies, timeouts, the destination guard), never from a database transaction, and with every
// secret it carries registered with the logger and cut from what it reports.

export interface PaypalRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** PayPal's answer as JSON (null when it is not JSON), or what went wrong on the wire. */
export type PaypalWire =
  | { kind: "response"; status: number; json: unknown; retryAfter: string | undefined }
  | Exclude<WireOutcome, { kind: "response" }>;

export async function paypalExchange(origin: string, request: PaypalRequest, secrets: string[]): Promise<PaypalWire> {
  refuseInsideTransaction("PayPal's API");
  for (const secret of secrets) registerSecret(secret);
  const refused = destinationProblem(new URL(origin), paypalDestinations());
  if (refused) return { kind: "destination", detail: refused };
  const pool = poolFor(origin, DEFAULT_TIMEOUTS.connectTimeoutMs, paypalDestinations());
  const outcome = await exchange(
    pool,
    { ...request, headers: { accept: "application/json", ...request.headers } },
    DEFAULT_TIMEOUTS,
  );
  if (outcome.kind !== "response") return { ...outcome, detail: redactSecrets(outcome.detail, secrets) } as PaypalWire;
  let json: unknown = null;
  try {
    json = JSON.parse(outcome.text);
  } catch {
    // Not JSON (a proxy's error page): the status alone decides.
  }
  return { kind: "response", status: outcome.status, json, retryAfter: outcome.retryAfter };
}

/** PayPal's error body's name and message, as its REST errors carry them, with the secrets cut out. */
export function paypalError(json: unknown, secrets: string[]): { name: string; message: string } {
  const body = (json ?? {}) as { name?: unknown; message?: unknown; error?: unknown; error_description?: unknown };
  const name = typeof body.name === "string" ? body.name : typeof body.error === "string" ? body.error : "";
  const message =
    typeof body.message === "string"
      ? body.message
      : typeof body.error_description === "string"
        ? body.error_description
        : "";
  return { name: redactSecrets(name, secrets).slice(0, 100), message: redactSecrets(message, secrets).slice(0, 300) };
}

import { randomUUID } from "node:crypto";
import { createClickServiceClient } from "../click-service";
import { CONTRACT_ERRORS } from "../click-service/contract";
import { registerSecret } from "../logger.server";
import { getServerSettings } from "./shop-settings.server";

// "Test connection": looks up a click id that cannot exist. The service checks the key before
// it looks for the click, so its own 404 ("Click not found or expired") proves the URL and the
// key work, 401 that the key is wrong, anything else that the service could not be reached. A
// 404 without that message comes from some other server (a mistyped base URL, say). One attempt, short timeouts: the
// merchant is waiting on the page. The key (entered or stored) never appears in the answer.

export type ConnectionResult =
  | { status: "connected" }
  | { status: "rejected" }
  | { status: "unreachable"; message: string }
  | { status: "incomplete"; field: "clickServiceUrl" | "apiKey" };

export interface ConnectionInput {
  clickServiceUrl?: string | null;
  apiKey?: string | null;
}

export async function testConnection(shop: string, input: ConnectionInput): Promise<ConnectionResult> {
  const enteredKey = input.apiKey?.trim() || null;
  const enteredUrl = input.clickServiceUrl?.trim() || null;
  const stored = !enteredKey || !enteredUrl ? await getServerSettings(shop).catch(() => null) : null;
  const baseUrl = enteredUrl ?? stored?.clickServiceUrl ?? null;
  const apiKey = enteredKey ?? stored?.apiKey ?? null;
  if (!baseUrl) return { status: "incomplete", field: "clickServiceUrl" };
  if (!apiKey) return { status: "incomplete", field: "apiKey" };
  registerSecret(apiKey);

  let client;
  try {
    client = createClickServiceClient({
      baseUrl,
      apiKey,
      maxAttempts: 1,
      connectTimeoutMs: 3_000,
      headersTimeoutMs: 5_000,
      bodyTimeoutMs: 5_000,
    });
  } catch (error) {
    // Construction fails for a malformed URL or key; the message never quotes the key.
    return { status: "unreachable", message: error instanceof Error ? error.message : String(error) };
  }
  const result = await client.lookupClick(`tag-guard-connection-test-${randomUUID()}`);
  if (result.ok) return { status: "connected" }; // a click by that id exists: the key works all the same
  switch (result.error.kind) {
    case "expired":
      if (result.error.message.toLowerCase().includes(CONTRACT_ERRORS.clickNotFound.toLowerCase()))
        return { status: "connected" };
      return {
        status: "unreachable",
        message: `${baseUrl} answered 404 but not as the Click Verification Service does; check the base URL`,
      };
    case "credentials":
      return { status: "rejected" };
    default:
      return { status: "unreachable", message: result.error.message };
  }
}

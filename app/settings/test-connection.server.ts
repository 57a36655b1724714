import { randomUUID } from "node:crypto";
import { createClickServiceClient } from "../click-service";
import { registerSecret } from "../platform/logger.server";
import { SealError } from "../platform/sealing.server";
import { serviceDestinations } from "./service-destinations.server";
import { SettingsInput } from "./settings-schema";
import { getPublicSettings, getServerSettings, serviceOrigin } from "./shop-settings.server";

// "Test connection": looks up a click id that cannot exist. The service checks the key before
// it looks for the click, so its own 404 ("Click not found or expired") proves the URL and the
// key work, 401 that the key is wrong, anything else that the service could not be reached. A
// 404 without that message comes from some other server (a mistyped base URL, say). One
// attempt, short timeouts and a connection of its own that is closed once answered: the
// merchant is waiting on the page, and the URL is not trusted yet. The stored key is only
// sent to the origin it was saved for. The answer says what happened in the app's words: the
// key and the other server's answer never appear in it.

export type ConnectionResult =
  | { status: "connected" }
  | { status: "rejected" }
  | { status: "unreachable"; message: string }
  | { status: "invalid"; field: "clickServiceUrl"; message: string }
  | { status: "incomplete"; field: "clickServiceUrl" }
  /** new-origin: the stored key belongs to another origin; unreadable: it no longer opens. */
  | { status: "incomplete"; field: "apiKey"; reason?: "new-origin" | "unreadable" };

export interface ConnectionInput {
  clickServiceUrl?: string | null;
  apiKey?: string | null;
}

export async function testConnection(shop: string, input: ConnectionInput): Promise<ConnectionResult> {
  const destination = serviceDestinations();
  const enteredKey = input.apiKey?.trim() || null;
  const enteredUrl = input.clickServiceUrl?.trim() || null;
  if (enteredUrl) {
    // The same rules as Save, so Test never reaches a URL that Save would refuse.
    const checked = SettingsInput.shape.clickServiceUrl.safeParse(enteredUrl);
    if (!checked.success)
      return { status: "invalid", field: "clickServiceUrl", message: checked.error.issues[0]?.message ?? "" };
  }

  const baseUrl = enteredUrl ?? (await getPublicSettings(shop))?.clickServiceUrl ?? null;
  if (!baseUrl) return { status: "incomplete", field: "clickServiceUrl" };
  let apiKey = enteredKey;
  if (!apiKey) {
    let stored;
    try {
      stored = await getServerSettings(shop);
    } catch (error) {
      if (error instanceof SealError) return { status: "incomplete", field: "apiKey", reason: "unreadable" };
      throw error;
    }
    if (!stored) return { status: "incomplete", field: "apiKey" };
    if (serviceOrigin(baseUrl) !== serviceOrigin(stored.clickServiceUrl))
      return { status: "incomplete", field: "apiKey", reason: "new-origin" };
    apiKey = stored.apiKey;
  }
  registerSecret(apiKey);

  let client;
  try {
    client = createClickServiceClient({
      baseUrl,
      apiKey,
      destination,
      singleUse: true,
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
      return { status: "connected" };
    case "credentials":
      return { status: "rejected" };
    case "retryable":
      if (result.error.status !== 404) return { status: "unreachable", message: result.error.message };
      return {
        status: "unreachable",
        message: `${baseUrl} answered 404 but not as the Click Verification Service does; check the base URL`,
      };
    default:
      return { status: "unreachable", message: result.error.message };
  }
}

// Connects the app's web pixel (extensions/tag-guard-pixel) for a shop, with no merchant step:
// webPixelCreate at install, webPixelUpdate when the tag parameters change, and create again
// when the app finds it missing (a merchant who disconnected it, a store restored from backup).
// Shopify checks the settings against the extension's definition: one field, tagParams, the
// JSON array of the URL parameters that carry the tag, as the embed reads them.
import { requestAdmin, type AdminGraphql, type AdminVariables, type RetryOptions } from "./admin-client.server";
import { WEB_PIXEL, WEB_PIXEL_CREATE, WEB_PIXEL_UPDATE } from "./documents";

export type { AdminGraphql } from "./admin-client.server";

export type PixelConnection =
  { connected: true; change: "none" | "created" | "updated" } | { connected: false; message: string };

/** The pixel's settings as webPixelCreate takes them: a JSON object, sent as its JSON text. */
export function pixelSettings(tagParams: readonly string[]): string {
  return JSON.stringify({ tagParams: JSON.stringify(tagParams) });
}

/** Shopify hands the JSON scalar back as text or as the object: either reads the same. */
function sameSettings(current: unknown, wanted: string): boolean {
  try {
    const value: unknown = typeof current === "string" ? JSON.parse(current) : current;
    return JSON.stringify(value) === wanted;
  } catch {
    return false;
  }
}

export async function connectWebPixel(
  graphql: AdminGraphql,
  tagParams: readonly string[],
  options?: RetryOptions,
): Promise<PixelConnection> {
  const settings = pixelSettings(tagParams);
  const current = await requestAdmin(graphql, WEB_PIXEL, {}, options);
  // No pixel yet: null, or (as Shopify has answered) an error saying none was found.
  if (!current.ok && !/not found|no web pixel/i.test(current.message))
    return { connected: false, message: current.message };
  const pixel = current.ok ? current.data.webPixel : null;
  if (pixel) {
    if (sameSettings(pixel.settings, settings)) return { connected: true, change: "none" };
    const variables: AdminVariables<typeof WEB_PIXEL_UPDATE> = { id: pixel.id, webPixel: { settings } };
    const updated = await requestAdmin(graphql, WEB_PIXEL_UPDATE, variables, options);
    if (!updated.ok) return { connected: false, message: updated.message };
    const errors = updated.data.webPixelUpdate?.userErrors ?? [];
    if (errors.length > 0) return { connected: false, message: describe("webPixelUpdate", errors) };
    return { connected: true, change: "updated" };
  }
  const created = await requestAdmin(graphql, WEB_PIXEL_CREATE, { webPixel: { settings } }, options);
  if (!created.ok) return { connected: false, message: created.message };
  const errors = created.data.webPixelCreate?.userErrors ?? [];
  // TAKEN: another request connected it meanwhile.
  if (errors.some((e) => e.code === "TAKEN")) return { connected: true, change: "none" };
  if (errors.length > 0 || !created.data.webPixelCreate?.webPixel)
    return { connected: false, message: describe("webPixelCreate", errors) };
  return { connected: true, change: "created" };
}

function describe(field: string, errors: { message: string; code?: string | null }[]): string {
  if (errors.length === 0) return `${field}: no web pixel returned`;
  return errors.map((e) => `${field}: ${e.message}${e.code ? ` [${e.code}]` : ""}`).join("; ");
}

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Worker } from "playwright-core";
import { assertChromiumInstalled, CHROMIUM_ARGS, CHROMIUM_PATH } from "../storefront/chromium";

// The shopper's browser: Debian's Chromium with a profile of its own (extensions need a
// persistent one when driven through playwright-core), in the new headless mode, which loads
// unpacked Manifest V3 extensions. An extension is loaded the way a coupon extension sits in a
// shopper's browser: from a scratch copy of its folder, with arena-config.json written into it
// first (the extension reads it from its own folder), and no other extension.

/** The file the arena writes into the extension's copy before each launch. */
export const ARENA_CONFIG_FILE = "arena-config.json";

export interface ExtensionToLoad {
  dir: string;
  /** clickServiceUrl, storefrontOrigin, attackerCreatorId, and for the built-in attacker its strategy. */
  config: Record<string, unknown>;
}

export interface ShopperBrowser {
  context: BrowserContext;
  /** The extension's service worker, when it has one. */
  extensionWorker: Worker | null;
  close(): Promise<void>;
}

const WORKER_WAIT_MS = 15_000;

/**
 * `userAgent`: the browser's own, on every request it makes (pages, workers, extensions): the
 * stand-in shop knows the shopper's network address by it.
 */
export async function launchShopperBrowser(
  extension: ExtensionToLoad | null,
  userAgent: string,
): Promise<ShopperBrowser> {
  assertChromiumInstalled();
  const scratch = mkdtempSync(path.join(tmpdir(), "tag-guard-shopper-"));
  const profile = path.join(scratch, "profile");
  const args = [...CHROMIUM_ARGS.filter((arg) => arg !== "--headless"), "--headless=new", `--user-agent=${userAgent}`];
  let hasWorker = false;
  if (extension) {
    const copy = path.join(scratch, "extension");
    cpSync(extension.dir, copy, { recursive: true });
    writeFileSync(path.join(copy, ARENA_CONFIG_FILE), `${JSON.stringify(extension.config, null, 2)}\n`);
    hasWorker = declaresServiceWorker(copy);
    args.push(`--disable-extensions-except=${copy}`, `--load-extension=${copy}`);
  }
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: false, args });
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  const close = async () => {
    await context.close().catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    const extensionWorker = hasWorker
      ? (context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker", { timeout: WORKER_WAIT_MS })))
      : null;
    return { context, extensionWorker, close };
  } catch (error) {
    await close();
    throw new Error(`the extension's service worker did not start: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** A Manifest V3 extension folder: its manifest names a background service worker. */
function declaresServiceWorker(dir: string): boolean {
  const file = path.join(dir, "manifest.json");
  if (!existsSync(file)) throw new Error(`${dir} has no manifest.json: not an unpacked extension`);
  const manifest = JSON.parse(readFileSync(file, "utf8")) as { background?: { service_worker?: unknown } };
  return typeof manifest.background?.service_worker === "string";
}

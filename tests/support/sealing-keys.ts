import { createHash } from "node:crypto";
import { vi } from "vitest";

// The sealing keys are read from the environment once per process: a test "restarts" under
// other keys by setting them and loading the app's modules afresh.

/** The key id the sealed format names (see app/platform/sealing.server.ts). */
export function keyId(base64: string): string {
  return createHash("sha256").update(Buffer.from(base64, "base64")).digest("hex").slice(0, 8);
}

/** Sets SETTINGS_ENCRYPTION_KEY (and _PREVIOUS, or none) and forgets every loaded module. */
export function restartUnderKeys(current: string, previous?: string): void {
  process.env.SETTINGS_ENCRYPTION_KEY = current;
  if (previous) process.env.SETTINGS_ENCRYPTION_KEY_PREVIOUS = previous;
  else delete process.env.SETTINGS_ENCRYPTION_KEY_PREVIOUS;
  vi.resetModules();
}

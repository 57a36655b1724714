import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { env } from "./env.server";

// Secrets at rest (the click-service API key, Shopify's access and refresh tokens) are sealed
// with AES-256-GCM under SETTINGS_ENCRYPTION_KEY. Each caller binds what the secret belongs to
// as associated data (the shop and the service origin for an API key, the session id for a
// token), so a sealed value copied onto another row, or pointed elsewhere, does not open.
// Format: v1.<key id>.<iv>.<auth tag>.<ciphertext> (base64url parts).
// Rotation: set the new key, move the old one to SETTINGS_ENCRYPTION_KEY_PREVIOUS; values
// sealed under the old key still open, report `stale`, and their owner re-seals them.

interface SealingKey {
  id: string;
  bytes: Buffer;
}

function keyFrom(base64: string): SealingKey {
  const bytes = Buffer.from(base64, "base64");
  return { id: createHash("sha256").update(bytes).digest("hex").slice(0, 8), bytes };
}

interface SealingKeys {
  current: SealingKey;
  previous?: SealingKey;
}

let derived: SealingKeys | undefined;

/** The keys, derived once: the environment is read once per process (env.server.ts). */
function keys(): SealingKeys {
  const config = env();
  derived ??= {
    current: keyFrom(config.SETTINGS_ENCRYPTION_KEY),
    previous: config.SETTINGS_ENCRYPTION_KEY_PREVIOUS ? keyFrom(config.SETTINGS_ENCRYPTION_KEY_PREVIOUS) : undefined,
  };
  return derived;
}

export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SealError";
  }
}

const FORMAT = "v1";

/** Whether a stored value is in the sealed format (anything else predates sealing). */
export function isSealed(value: string): boolean {
  return value.startsWith(`${FORMAT}.`);
}

export function seal(plaintext: string, boundTo: string): string {
  const { current } = keys();
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", current.bytes, iv);
  cipher.setAAD(Buffer.from(boundTo, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [
    FORMAT,
    current.id,
    iv.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
    body.toString("base64url"),
  ].join(".");
}

export interface Unsealed {
  plaintext: string;
  /** True when it was sealed under the previous key and should be sealed again. */
  stale: boolean;
}

/**
 * Values opened lately, by the binding and the sealed text: the worker opens the same
 * shop's API key and Shopify token for every order, and each opening cost a decipher and two
 * key hashes, about 2% of its thread (docs/lab/throughput-notes.md, "A drain that stopped
 * early, and sessions without the ORM"). Only successes are kept, a bounded number, in memory
 * the secrets pass through anyway.
 */
const opened = new Map<string, Unsealed>();
const OPENED_MAX = 1_000;

export function unseal(sealed: string, boundTo: string): Unsealed {
  const memo = `${boundTo}\n${sealed}`;
  const known = opened.get(memo);
  if (known) return { ...known };
  const result = open(sealed, boundTo);
  if (opened.size >= OPENED_MAX) opened.delete(opened.keys().next().value!);
  opened.set(memo, result);
  return { ...result };
}

function open(sealed: string, boundTo: string): Unsealed {
  const [version, keyId, iv, tag, body] = sealed.split(".");
  if (version !== FORMAT || !keyId || !iv || !tag || body === undefined)
    throw new SealError("sealed value is malformed");
  const { current, previous } = keys();
  const key = [current, previous].find((candidate) => candidate?.id === keyId);
  if (!key) throw new SealError("sealed under a key that is no longer configured");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key.bytes, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(boundTo, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    const plaintext = Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
      "utf8",
    );
    return { plaintext, stale: key !== current };
  } catch {
    throw new SealError("sealed value failed authentication");
  }
}

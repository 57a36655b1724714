// sealing.server.ts on its own: the format, what each malformed or foreign value fails with,
// what it keeps of the values it opened, and which key opens what during a rotation. The environment is read once per process, so each
// step loads the module afresh under the keys it names, as a restart would.
import type * as NodeCrypto from "node:crypto";
import { afterAll, describe, expect, it, vi } from "vitest";
import { keyId, restartUnderKeys } from "../support/sealing-keys";

const original = { ...process.env };
const KEY_A = process.env.SETTINGS_ENCRYPTION_KEY!;
const KEY_B = Buffer.alloc(32, 21).toString("base64");
const KEY_C = Buffer.alloc(32, 22).toString("base64");

// Each decipher counted, so that what the module keeps in memory can be seen.
vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof NodeCrypto>();
  return { ...crypto, createDecipheriv: vi.fn(crypto.createDecipheriv) };
});

async function restartWith(current: string, previous?: string) {
  restartUnderKeys(current, previous);
  return import("../../app/platform/sealing.server");
}

afterAll(() => {
  process.env = original;
  vi.resetModules();
});

describe("the sealed format", () => {
  it("is v1, the key id, a 12-byte iv, a 16-byte tag and the ciphertext, in base64url", async () => {
    const { seal, unseal, isSealed } = await restartWith(KEY_A);
    const sealed = seal("sk_live_secret", "shop-a.myshopify.com");
    const [version, id, iv, tag, body, ...rest] = sealed.split(".");
    expect(rest).toEqual([]);
    expect(version).toBe("v1");
    expect(id).toBe(keyId(KEY_A));
    expect(Buffer.from(iv!, "base64url")).toHaveLength(12);
    expect(Buffer.from(tag!, "base64url")).toHaveLength(16);
    expect(Buffer.from(body!, "base64url")).toHaveLength("sk_live_secret".length);
    expect(sealed).not.toContain("secret");
    expect(isSealed(sealed)).toBe(true);
    expect(unseal(sealed, "shop-a.myshopify.com")).toEqual({ plaintext: "sk_live_secret", stale: false });
  });

  it("seals the same text differently each time, and an empty text too", async () => {
    const { seal, unseal } = await restartWith(KEY_A);
    expect(seal("same", "x")).not.toBe(seal("same", "x"));
    const empty = seal("", "x");
    expect(empty.endsWith(".")).toBe(true);
    expect(unseal(empty, "x")).toEqual({ plaintext: "", stale: false });
    expect(unseal(seal("ünïcode ✓", "x"), "x").plaintext).toBe("ünïcode ✓");
  });

  it("tells a sealed value from one stored before sealing", async () => {
    const { isSealed } = await restartWith(KEY_A);
    expect(isSealed("shpat_0123")).toBe(false);
    expect(isSealed("v1")).toBe(false);
    expect(isSealed("v10.abc")).toBe(false);
    expect(isSealed("v2.abc")).toBe(false);
    expect(isSealed("v1.")).toBe(true);
  });
});

describe("unsealing", () => {
  it("refuses a malformed value as malformed, whichever part is missing", async () => {
    const { seal, unseal } = await restartWith(KEY_A);
    const parts = seal("secret", "x").split(".");
    const variants = [
      "",
      "shpat_0123",
      ["v2", ...parts.slice(1)].join("."),
      parts.slice(0, 4).join("."),
      [parts[0], "", ...parts.slice(2)].join("."),
      [...parts.slice(0, 2), "", ...parts.slice(3)].join("."),
      [...parts.slice(0, 3), "", parts[4]].join("."),
    ];
    for (const variant of variants)
      expect(() => unseal(variant, "x"), variant).toThrow(
        expect.objectContaining({ name: "SealError", message: "sealed value is malformed" }),
      );
  });

  it("refuses a value bound to something else, or tampered with, as failing authentication", async () => {
    const { seal, unseal, SealError } = await restartWith(KEY_A);
    const sealed = seal("secret", "shop-a.myshopify.com");
    const failed = expect.objectContaining({ name: "SealError", message: "sealed value failed authentication" });
    expect(() => unseal(sealed, "shop-b.myshopify.com")).toThrow(failed);
    const parts = sealed.split(".");
    const flipped = (part: string) => {
      const bytes = Buffer.from(part, "base64url");
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString("base64url");
    };
    for (const index of [2, 3, 4]) {
      const tampered = parts.map((part, i) => (i === index ? flipped(part) : part)).join(".");
      expect(() => unseal(tampered, "shop-a.myshopify.com"), `part ${index}`).toThrow(failed);
    }
    expect(() => unseal(sealed, "shop-b.myshopify.com")).toThrow(SealError);
  });
  it("opens a value again from memory only under the binding it was opened with", async () => {
    const { seal, unseal } = await restartWith(KEY_A);
    const sealed = seal("secret", "shop-a.myshopify.com");
    const failed = expect.objectContaining({ name: "SealError", message: "sealed value failed authentication" });
    const first = unseal(sealed, "shop-a.myshopify.com");
    expect(first).toEqual({ plaintext: "secret", stale: false });
    first.plaintext = "changed by its caller";
    expect(unseal(sealed, "shop-a.myshopify.com")).toEqual({ plaintext: "secret", stale: false });
    expect(() => unseal(sealed, "shop-b.myshopify.com")).toThrow(failed);
    const [version, id, iv, tag, body] = sealed.split(".");
    const otherTag = Buffer.from(tag!, "base64url");
    otherTag[0] = otherTag[0]! ^ 1;
    expect(() =>
      unseal([version, id, iv, otherTag.toString("base64url"), body].join("."), "shop-a.myshopify.com"),
    ).toThrow(failed);
  });
});

describe("values opened lately", () => {
  it("are deciphered once, and the last 1,000 of them kept", async () => {
    const { seal, unseal } = await restartWith(KEY_A);
    // The module's own node:crypto, loaded afresh with it.
    const { createDecipheriv } = await import("node:crypto");
    const values = Array.from({ length: 1_001 }, (_, i) => seal(`secret-${i}`, "x"));
    const deciphers = (value: string) => {
      const before = vi.mocked(createDecipheriv).mock.calls.length;
      expect(unseal(value, "x").plaintext).toBe(`secret-${values.indexOf(value)}`);
      return vi.mocked(createDecipheriv).mock.calls.length - before;
    };
    expect([deciphers(values[0]!), deciphers(values[1]!)]).toEqual([1, 1]);
    expect([deciphers(values[0]!), deciphers(values[1]!)]).toEqual([0, 0]);
    for (const value of values.slice(2)) expect(deciphers(value)).toBe(1);
    // The 1,001st value opened let the oldest go.
    expect([deciphers(values[1_000]!), deciphers(values[1]!), deciphers(values[0]!)]).toEqual([0, 0, 1]);
  });
});

describe("rotation", () => {
  it("opens a value sealed under the previous key as stale, and seals anew under the current one", async () => {
    const before = await restartWith(KEY_A);
    const underA = before.seal("secret", "x");

    const rotating = await restartWith(KEY_B, KEY_A);
    expect(rotating.unseal(underA, "x")).toEqual({ plaintext: "secret", stale: true });
    const underB = rotating.seal("secret", "x");
    expect(underB.split(".")[1]).toBe(keyId(KEY_B));
    expect(rotating.unseal(underB, "x")).toEqual({ plaintext: "secret", stale: false });

    const after = await restartWith(KEY_B);
    expect(after.unseal(underB, "x")).toEqual({ plaintext: "secret", stale: false });
    expect(() => after.unseal(underA, "x")).toThrow(
      expect.objectContaining({ name: "SealError", message: "sealed under a key that is no longer configured" }),
    );
  });

  it("opens nothing sealed under a key that is neither current nor previous", async () => {
    const underC = (await restartWith(KEY_C)).seal("secret", "x");
    const other = await restartWith(KEY_B, KEY_A);
    expect(() => other.unseal(underC, "x")).toThrow(
      expect.objectContaining({ name: "SealError", message: "sealed under a key that is no longer configured" }),
    );
  });

  it("refuses a value whose key id names the current key but was sealed under another", async () => {
    const underA = (await restartWith(KEY_A)).seal("secret", "x").split(".");
    const current = await restartWith(KEY_B);
    const relabelled = [underA[0], keyId(KEY_B), ...underA.slice(2)].join(".");
    expect(() => current.unseal(relabelled, "x")).toThrow(
      expect.objectContaining({ name: "SealError", message: "sealed value failed authentication" }),
    );
  });
});

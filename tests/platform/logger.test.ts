import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { logger, registerSecret, registeredSecrets, SECRET_RETENTION_MS } from "../../app/platform/logger.server";

// The logger redacts registered secrets with the same redactor as the click-service client:
// every spelling, and only the keys of shops active lately.

beforeAll(() => {
  // Read once, on the first line written: this file's lines must be written, not dropped.
  process.env.LOG_LEVEL = "error";
});

function written(write: () => void): string {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    write();
  } finally {
    spy.mockRestore();
  }
  return lines.join("");
}

afterEach(() => vi.restoreAllMocks());

describe("logger redaction", () => {
  it("removes a registered key raw, JSON-escaped inside the line, and URL-encoded", () => {
    const key = 'sk_"live"/key+1ü';
    registerSecret(key);
    const line = written(() =>
      logger.error(`the service echoed ${key}`, {
        body: JSON.stringify({ apiKey: key }),
        url: `https://clicks.example.com/v1?key=${encodeURIComponent(key)}`,
      }),
    );
    expect(line).toContain("[redacted]");
    for (const spelling of [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key), "live"]) {
      expect(line).not.toContain(spelling);
    }
    expect(JSON.parse(line)).toMatchObject({ level: "error" });
  });

  it("holds a key only while its shop is active, not every key since the start", () => {
    const start = Date.now();
    registerSecret("key-of-an-idle-shop", start);
    registerSecret("key-of-a-busy-shop", start);
    expect(registeredSecrets(start + SECRET_RETENTION_MS - 1)).toEqual(
      expect.arrayContaining(["key-of-an-idle-shop", "key-of-a-busy-shop"]),
    );
    // The busy shop's key is unsealed again for its next order; the idle shop's is not.
    registerSecret("key-of-a-busy-shop", start + SECRET_RETENTION_MS - 1);
    const later = registeredSecrets(start + SECRET_RETENTION_MS);
    expect(later).toContain("key-of-a-busy-shop");
    expect(later).not.toContain("key-of-an-idle-shop");
  });

  it("ignores secrets too short to redact without mangling ordinary words", () => {
    registerSecret("abc");
    expect(written(() => logger.error("abc stays"))).toContain("abc stays");
  });
});

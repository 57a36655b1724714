import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  flushFoldedLogs,
  FOLD_INTERVAL_MS,
  logger,
  registerSecret,
  registeredSecrets,
  SECRET_RETENTION_MS,
} from "../../app/platform/logger.server";

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
      logger.error("job.failed", `the service echoed ${key}`, {
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
    expect(written(() => logger.error("job.failed", "abc stays"))).toContain("abc stays");
  });
});

/** The JSON lines written to stderr (where errors go) while `write` runs. */
function lines(write: () => void): Record<string, unknown>[] {
  return written(write)
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("log lines", () => {
  afterEach(() => {
    flushFoldedLogs();
    flushFoldedLogs();
    vi.useRealTimers();
  });

  it("carry a stable event name beside the message, which no field can overwrite", () => {
    const [line] = lines(() =>
      logger.error("webhook.not_recorded", "could not take a webhook delivery", {
        topic: "orders/create",
        event: "forged",
        message: "forged",
        level: "info",
      }),
    );
    expect(line).toMatchObject({
      level: "error",
      event: "webhook.not_recorded",
      message: "could not take a webhook delivery",
      topic: "orders/create",
    });
    expect(Object.keys(line!).slice(0, 4)).toEqual(["time", "level", "event", "message"]);
  });

  it("fold identical failures into one line per interval with their count", () => {
    vi.useFakeTimers();
    const refused = new Error("connect ECONNREFUSED 127.0.0.1:5432");
    const first = lines(() => {
      for (let i = 0; i < 50; i++)
        logger.error("job.failed", "job failed; will retry", { jobId: `job-${i}`, error: refused });
      // Another failure is written apart, at once.
      logger.error("job.failed", "job failed; will retry", { jobId: "other", error: new Error("a bug") });
    });
    expect(first.map((line) => [line.jobId, line.repeated])).toEqual([
      ["job-0", undefined],
      ["other", undefined],
    ]);
    // At the end of the interval: one line for the other 49, with the latest one's fields.
    const summary = lines(() => vi.advanceTimersByTime(FOLD_INTERVAL_MS));
    expect(summary).toEqual([
      expect.objectContaining({
        event: "job.failed",
        jobId: "job-49",
        error: { name: "Error", message: refused.message },
        repeated: 49,
        intervalSeconds: FOLD_INTERVAL_MS / 1000,
      }),
    ]);
    // While it goes on, one line an interval; nothing new is written at once.
    const during = lines(() => {
      for (let i = 0; i < 5; i++) logger.error("job.failed", "job failed; will retry", { error: refused });
    });
    expect(during).toEqual([]);
    expect(lines(() => vi.advanceTimersByTime(FOLD_INTERVAL_MS))).toEqual([
      expect.objectContaining({ event: "job.failed", repeated: 5 }),
    ]);
    // A quiet interval ends the fold: the next occurrence is written at once, as new.
    expect(lines(() => vi.advanceTimersByTime(FOLD_INTERVAL_MS))).toEqual([]);
    const again = lines(() => logger.error("job.failed", "job failed; will retry", { error: refused }));
    expect(again).toEqual([expect.not.objectContaining({ repeated: expect.anything() })]);
  });
});

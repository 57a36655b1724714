// Everything the sandbox remembers, in memory: keys, clicks, what merchants sent, and the
// pending faults. One instance per running server, so parallel test files never share it.
import { randomBytes } from "node:crypto";
import { CLICK_LIFETIME_MS, type ClickGeo, type ClickRecord, type ClickStatus } from "../../app/click-service/contract";
import type { ChaosFaults } from "./chaos";
import type { Fault } from "./faults";

export interface StoredClick {
  clickId: string;
  expectedTag: string;
  creatorId: string;
  /** Normalised ISO 8601. */
  timestamp: string;
  status: ClickStatus;
  referrer: string | null;
  geo: ClickGeo | null;
}

export interface VerificationRecord {
  clickId: string;
  arrivedTag: string;
  conversion?: boolean;
  orderId?: string;
  orderValue?: number;
  /** The body exactly as received, so tests can see e.g. that 120.10 arrived as 120.10. */
  rawBody: string;
  isHijacked: boolean;
  receivedAt: string;
}

export interface RequestRecord {
  method: string;
  path: string;
  /** The click the call was about (query or body `click_id`), null when it named none. */
  clickId: string | null;
  receivedAt: string;
  /** 0 while in flight or when the connection was dropped on purpose. */
  status: number;
  fault: boolean;
}

// Logs grow with traffic; a benchmark must not turn the sandbox into a memory leak.
const MAX_LOG_ENTRIES = 10_000;

export class SandboxState {
  readonly activeKeys = new Set<string>();
  /** Every key ever issued, revoked ones too: log lines are scrubbed of all of them. */
  readonly issuedKeys = new Set<string>();
  readonly clicks = new Map<string, StoredClick>();
  readonly verifications: VerificationRecord[] = [];
  readonly requests: RequestRecord[] = [];
  faults: Fault[] = [];
  /** Probabilistic faults of a chaos run; none unless one was started. */
  chaos: ChaosFaults | null = null;
  /** Calls per path and click, faulted ones included; never trimmed like the request log. */
  readonly callsPerClick = new Map<string, Map<string, number>>();

  constructor(readonly clock: () => Date) {}

  createApiKey(): string {
    const key = `sk_sandbox_${randomBytes(18).toString("base64url")}`;
    this.activeKeys.add(key);
    this.issuedKeys.add(key);
    return key;
  }

  revokeApiKey(key: string): boolean {
    return this.activeKeys.delete(key);
  }

  newClickId(): string {
    return `clk_${randomBytes(12).toString("base64url")}`;
  }

  /** Moves a click's timestamp into the past, as if it had been made that much earlier. */
  ageClick(clickId: string, minutes: number): StoredClick | undefined {
    const click = this.clicks.get(clickId);
    if (!click) return undefined;
    click.timestamp = new Date(Date.parse(click.timestamp) - Math.round(minutes * 60_000)).toISOString();
    return click;
  }

  /**
   * Says which click a merchant call was about, and counts it for that click. A body's click id
   * wins over the query's: the call is then counted for the body's click only.
   */
  noteClick(record: RequestRecord, clickId: string): void {
    if (record.clickId === clickId) return;
    let counts = this.callsPerClick.get(record.path);
    if (!counts) this.callsPerClick.set(record.path, (counts = new Map()));
    if (record.clickId !== null) counts.set(record.clickId, (counts.get(record.clickId) ?? 1) - 1);
    record.clickId = clickId;
    counts.set(clickId, (counts.get(clickId) ?? 0) + 1);
  }

  /** Calls to `path` per click id, faulted ones included. */
  callCounts(path: string): Record<string, number> {
    return Object.fromEntries([...(this.callsPerClick.get(path) ?? [])].filter(([, count]) => count > 0));
  }

  /** Merchant calls, optionally only those to one path and about one click. */
  requestsFor(filter: { path?: string | null; clickId?: string | null } = {}): RequestRecord[] {
    return this.requests.filter(
      (r) =>
        (filter.path == null || r.path === filter.path) && (filter.clickId == null || r.clickId === filter.clickId),
    );
  }

  /** Alive until its age exceeds the lifetime: exactly 60 minutes old still counts as alive. */
  liveClick(clickId: string): StoredClick | undefined {
    const click = this.clicks.get(clickId);
    if (!click) return undefined;
    const age = this.clock().getTime() - Date.parse(click.timestamp);
    return age <= CLICK_LIFETIME_MS ? click : undefined;
  }

  record<T>(log: T[], entry: T): void {
    log.push(entry);
    if (log.length > MAX_LOG_ENTRIES) log.splice(0, log.length - MAX_LOG_ENTRIES);
  }
}

export function toClickRecord(click: StoredClick): ClickRecord {
  return { ...click };
}

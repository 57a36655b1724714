import { Prisma, type Verification } from "@prisma/client";
import { findClick } from "../attribution/find-click";
import type { ClickServiceClient } from "../click-service";
import { creditCommission } from "../commissions/credit.server";
import prisma from "../db.server";
import { markOrderHijacked, type AdminGraphql } from "../shopify-orders/orders.server";
import { SealError } from "../settings/sealing.server";
import { flagCredentialsRejected, getServerSettings, type ServerSettings } from "../settings/shop-settings.server";
import type { OrderFacts } from "./order-facts";
import { clickDeadline, nextAttempt } from "./retry-policy";

// Takes one order from "queued" to an outcome. Each step records what it learned on the row
// before the next begins, so a retry (or another worker after a crash) resumes where the last
// one stopped: the service is asked once per order, the tag is added once, the commission is
// credited once. Every write is fenced by the lease owner, so a worker whose lease expired
// cannot overwrite the one that took over.

export type Outcome =
  "matched" | "hijacked" | "unattributed" | "expired" | "rejected" | "failed" | "skipped" | "invalid";

export interface PipelineDeps {
  now(): Date;
  random(): number;
  clickService(settings: ServerSettings): ClickServiceClient;
  /** The shop's Admin GraphQL client, or null when the shop has no offline session. */
  adminGraphql(shop: string): Promise<AdminGraphql | null>;
}

export class LeaseLost extends Error {
  constructor(id: string) {
    super(`lease on verification ${id} was lost`);
    this.name = "LeaseLost";
  }
}

export async function verifyOrder(id: string, owner: string, deps: PipelineDeps): Promise<void> {
  const run = new Run(id, owner, deps);
  await run.execute();
}

class Run {
  constructor(
    private readonly id: string,
    private readonly owner: string,
    private readonly deps: PipelineDeps,
  ) {}

  async execute(): Promise<void> {
    let row = await prisma.verification.findUniqueOrThrow({ where: { id: this.id } });
    const settings = await this.settings(row.shop);
    if (typeof settings === "string")
      return this.finish(settings === "unreadable" ? "rejected" : "skipped", reasonFor(settings));

    if (row.outcome === null && row.captureSource === null) {
      const attributed = await this.attribute(row, settings);
      if (!attributed) return;
      row = attributed;
    }
    if (row.expectedTag === null) {
      const verdict = await this.askService(row, settings);
      if (!verdict) return;
      row = verdict;
    }
    // The verdict comes from the stored answer, not from `outcome`, which a fault or a manual
    // retry may have overwritten since the service was asked.
    const verdict: Outcome = row.hijacked ? "hijacked" : "matched";
    if (verdict === "hijacked" && row.taggedAt === null) {
      const tagged = await this.tagOrder(row, settings);
      if (!tagged) return;
      row = tagged;
    }
    await this.credit(row, verdict, settings);
    await this.finish(verdict, row.reason);
  }

  private async settings(shop: string): Promise<ServerSettings | "missing" | "uninstalled" | "off" | "unreadable"> {
    try {
      const settings = await getServerSettings(shop);
      if (!settings) return "missing";
      if (settings.uninstalledAt) return "uninstalled";
      if (!settings.autoVerify) return "off";
      return settings;
    } catch (error) {
      if (error instanceof SealError) return "unreadable";
      throw error;
    }
  }

  /** Step 1: where the click id and the arrived tag came from. No click id, no service call. */
  private async attribute(row: Verification, settings: ServerSettings): Promise<Verification | null> {
    const facts = JSON.parse(row.payload) as OrderFacts;
    const search = findClick(facts, settings.tagParams);
    if (!search.found) {
      await this.finish("unattributed", search.reason);
      return null;
    }
    const { evidence } = search;
    const orderValue =
      facts.amounts[settings.orderValueBasis] ??
      facts.amounts.subtotal_after_discounts ??
      facts.amounts.total_price ??
      "0";
    return this.update({
      captureSource: evidence.source,
      clickId: evidence.clickId,
      arrivedTag: evidence.arrivedTag,
      capturedAt: evidence.capturedAt,
      orderValue,
      deadlineAt: clickDeadline(evidence.capturedAt, row.orderCreatedAt),
    });
  }

  /** Step 2: verify-click, once per order; retryable failures are rescheduled within the click's life. */
  private async askService(row: Verification, settings: ServerSettings): Promise<Verification | null> {
    const number = row.attempts + 1;
    const attempt = await this.startAttempt(number, "verify-click");
    const result = await this.deps.clickService(settings).verifyClick(
      {
        clickId: row.clickId ?? "",
        // A stripped tag is sent as "": it cannot match, so the service reports the hijack.
        arrivedTag: row.arrivedTag ?? "",
        conversion: true,
        orderId: row.orderId,
        orderValue: row.orderValue ?? undefined,
      },
      { deadline: row.deadlineAt ?? undefined },
    );
    if (result.ok) {
      const verdict = result.value;
      await this.endAttempt(attempt, "ok", null);
      return this.update({
        attempts: number,
        expectedTag: verdict.expectedTag,
        creatorId: verdict.creatorId,
        verdict: verdict.verdict,
        recorded: verdict.recorded,
        hijacked: verdict.isHijacked,
        outcome: verdict.isHijacked ? "hijacked" : "matched",
        lastError: null,
      });
    }
    const error = result.error;
    await this.endAttempt(attempt, error.kind, error.message);
    await this.update({ attempts: number, lastError: `${error.kind}: ${error.message}` });
    switch (error.kind) {
      case "expired":
        await this.finish("expired", "the click is unknown to the service or past its one-hour life");
        return null;
      case "credentials":
        await flagCredentialsRejected(row.shop, this.deps.now());
        await this.park(
          "the Click Verification Service rejected the API key; fix it in Settings and the order is retried while its click is alive",
        );
        return null;
      case "retryable":
      case "invalid-response":
      case "unexpected-status":
        await this.reschedule(number, row.deadlineAt, error.message);
        return null;
      default:
        await this.finish("failed", `the service refused the request: ${error.message}`);
        return null;
    }
  }

  /** Step 3: tag the order and store the evidence in Shopify. Both writes are idempotent. */
  private async tagOrder(row: Verification, settings: ServerSettings): Promise<Verification | null> {
    const number = row.attempts + 1;
    const attempt = await this.startAttempt(number, "tag-order");
    const graphql = await this.deps.adminGraphql(row.shop);
    if (!graphql) {
      // The hijack stands and the creator is still credited; the order page explains the tag.
      const message = "the app has no access to the shop, so the order could not be tagged";
      await this.endAttempt(attempt, "error", message);
      return this.update({ attempts: number, lastError: message, reason: `hijack detected; ${message}` });
    }
    const result = await markOrderHijacked(graphql, {
      orderGid: row.orderGid,
      tag: settings.hijackTag,
      evidence: {
        expectedTag: row.expectedTag ?? "",
        arrivedTag: row.arrivedTag,
        creatorId: row.creatorId ?? "",
        verdict: row.verdict ?? "hijacked",
        decidedAt: this.deps.now().toISOString(),
        clickId: row.clickId,
      },
    });
    if (result.ok) {
      await this.endAttempt(attempt, "ok", null);
      return this.update({ attempts: number, taggedAt: this.deps.now(), evidenceAt: this.deps.now(), lastError: null });
    }
    await this.endAttempt(attempt, result.retryable ? "retryable" : "error", result.message);
    await this.update({ attempts: number, lastError: `tag-order: ${result.message}` });
    if (result.retryable) {
      // The verdict is already known; tagging is not bound by the click's life, only by attempts.
      const scheduled = await this.reschedule(number, null, result.message, false);
      if (scheduled) return null;
    }
    return this.update({ reason: `hijack detected; tagging the order failed: ${result.message}` });
  }

  /** Step 4: one commission record, credited to the creator of the expected tag. */
  private async credit(row: Verification, verdict: Outcome, settings: ServerSettings): Promise<void> {
    await creditCommission({
      shop: row.shop,
      verificationId: row.id,
      orderId: row.orderId,
      orderName: row.orderName,
      creatorId: row.creatorId ?? "",
      expectedTag: row.expectedTag ?? "",
      arrivedTag: row.arrivedTag ?? "",
      orderValue: row.orderValue ?? "0",
      currency: row.currency ?? "USD",
      ratePercent: settings.commissionRate,
      hijacked: verdict === "hijacked",
    });
  }

  private async reschedule(
    attempts: number,
    deadline: Date | null,
    message: string,
    finalOnGiveUp = true,
  ): Promise<boolean> {
    const step = nextAttempt(attempts, this.deps.now(), deadline, this.deps.random);
    if ("retryAt" in step) {
      await this.update({ state: "queued", nextAttemptAt: step.retryAt, leaseOwner: null, leaseExpiresAt: null });
      return true;
    }
    if (finalOnGiveUp) await this.finish("failed", `${step.giveUp} (last error: ${message})`);
    return false;
  }

  private async park(reason: string): Promise<void> {
    await this.update({ state: "parked", outcome: "rejected", reason, leaseOwner: null, leaseExpiresAt: null });
  }

  private async finish(outcome: Outcome, reason: string | null): Promise<void> {
    await this.update({
      state: "done",
      outcome,
      reason,
      completedAt: this.deps.now(),
      leaseOwner: null,
      leaseExpiresAt: null,
    });
  }

  /** One fenced write that returns the row: it only lands while this worker holds the lease. */
  private async update(data: Partial<Verification>): Promise<Verification> {
    try {
      return await prisma.verification.update({ where: { id: this.id, leaseOwner: this.owner }, data });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025") throw new LeaseLost(this.id);
      throw error;
    }
  }

  private async startAttempt(number: number, step: string): Promise<string> {
    const row = await prisma.verificationAttempt.create({
      data: { verificationId: this.id, number, step, result: "started", startedAt: this.deps.now() },
      select: { id: true },
    });
    return row.id;
  }

  private async endAttempt(id: string, result: string, error: string | null): Promise<void> {
    await prisma.verificationAttempt.update({ where: { id }, data: { result, error, finishedAt: this.deps.now() } });
  }
}

function reasonFor(state: "missing" | "uninstalled" | "off" | "unreadable"): string {
  switch (state) {
    case "missing":
      return "the shop has not configured the app";
    case "uninstalled":
      return "the app was uninstalled";
    case "off":
      return "automatic verification is switched off";
    case "unreadable":
      return "the stored API key cannot be opened with the configured encryption key; save it again in Settings";
  }
}

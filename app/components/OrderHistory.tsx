import { List, Text } from "@shopify/polaris";
import type { OrderDetail } from "../dashboard/order-detail.server";
import { t, worded } from "../i18n";
import { DetailRow } from "./DetailRow";
import { EmptyNote } from "./EmptyNote";
import { SectionCard } from "./SectionCard";

// The order page's trail, after its evidence: each attempt at verifying it, the commission
// record's ledger entries, and the refunds, edits and cancellation Shopify sent for it.

/** A time as the page shows it: the shop's zone, formatted by the loader. */
type Time = (iso: string | null | undefined) => string;

export function AuditTrailCard({ order, time }: { order: OrderDetail; time: Time }) {
  return (
    <SectionCard title={t("order.auditTrail")}>
      {order.reason ? <DetailRow label={t("order.reason")}>{order.reason}</DetailRow> : null}
      {order.attempts.length === 0 ? (
        <EmptyNote>{t("order.attemptsEmpty")}</EmptyNote>
      ) : (
        <List type="bullet">
          {order.attempts.map((a) => (
            <List.Item key={`${a.number}-${a.step}-${a.startedAt}`}>
              {t("order.attemptRow", {
                time: time(a.startedAt),
                step: worded("order.attemptStep", a.step),
                result: worded("order.attemptResult", a.result),
              })}
              {a.error ? (
                <details>
                  <summary>{t("order.technicalDetail")}</summary>
                  <Text as="span" tone="subdued" breakWord>
                    {a.error}
                  </Text>
                </details>
              ) : null}
            </List.Item>
          ))}
        </List>
      )}
      {order.lastError ? (
        <details>
          <summary>{t("order.lastError")}</summary>
          <Text as="span" tone="subdued" breakWord>
            {order.lastError}
          </Text>
        </details>
      ) : null}
    </SectionCard>
  );
}

export function LedgerEntriesCard({
  entries,
  time,
}: {
  entries: NonNullable<OrderDetail["commission"]>["entries"];
  time: Time;
}) {
  return (
    <SectionCard title={t("order.entries")}>
      {entries.length === 0 ? (
        <EmptyNote>{t("order.entriesEmpty")}</EmptyNote>
      ) : (
        <List>
          {entries.map((e, index) => (
            <List.Item key={`${e.kind}-${e.createdAt}-${index}`}>
              {t(e.edit ? "order.entryRowEdit" : "order.entryRow", {
                kind: worded("order.entryKind", e.kind),
                amount: e.amountText,
                time: time(e.createdAt),
                edit: e.edit ? t("order.editMoved", { ...e.edit }) : "",
              })}
            </List.Item>
          ))}
        </List>
      )}
    </SectionCard>
  );
}

export function OrderEventsCard({ events, time }: { events: OrderDetail["events"]; time: Time }) {
  return (
    <SectionCard title={t("order.events")}>
      <List>
        {events.map((e, index) => (
          <List.Item key={`${e.kind}-${e.receivedAt}-${index}`}>
            {t("order.eventRow", {
              kind: worded("order.eventKind", e.kind),
              time: time(e.receivedAt),
              result: e.result ?? t("order.eventWaiting"),
            })}
          </List.Item>
        ))}
      </List>
    </SectionCard>
  );
}

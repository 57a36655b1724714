import { Form, useNavigation } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Button,
  Checkbox,
  FormLayout,
  InlineStack,
  Select,
  Text,
  TextField,
} from "@shopify/polaris";
import { useState } from "react";
import type { PublicSchedule } from "../payouts/schedule-settings.server";
import type { Plan } from "../payouts/schedule-plan";
import type { ScheduleActionResult } from "../payouts/schedule-page.server";
import { t } from "../i18n";
import { SectionCard } from "./SectionCard";

type Names = Record<string, string | undefined>;

export interface SchedulePreview extends Plan {
  period: string;
  time: string;
}

export interface LastScheduledRun {
  period: string;
  time: string;
  state: string;
  paid: number;
  error: string | null;
}

const nameOf = (names: Names, creatorId: string) => names[creatorId] || creatorId;

/** The next run as it would go with today's balances: who is sent, who is paid by hand, who not and why. */
function Preview({ preview, paused, names }: { preview: SchedulePreview; paused: boolean; names: Names }) {
  const list = (title: string, lines: string[], testId: string) =>
    lines.length > 0 ? (
      <BlockStack gap="100" data-testid={testId}>
        <Text as="h3" variant="headingSm">
          {title}
        </Text>
        <ul>
          {lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </BlockStack>
    ) : null;
  const line = (l: { creatorId: string; amount: string }) =>
    t("payouts.schedule.line", { creator: nameOf(names, l.creatorId), amount: l.amount });
  return (
    <BlockStack gap="200" data-testid="schedule-preview">
      <Text as="p" fontWeight="semibold">
        {t(paused ? "payouts.schedule.nextRunPaused" : "payouts.schedule.nextRun", { time: preview.time })}
      </Text>
      <Text as="p" tone="subdued">
        {t("payouts.schedule.previewHelp")}
      </Text>
      {preview.pay.length + preview.byHand.length === 0 ? <Text as="p">{t("payouts.schedule.nobody")}</Text> : null}
      {list(
        t("payouts.schedule.pay"),
        preview.pay.map((l) =>
          t("payouts.schedule.payLine", {
            creator: nameOf(names, l.creatorId),
            amount: l.amount,
            method: t(`payouts.methods.${l.method}`),
          }),
        ),
        "schedule-pay",
      )}
      {list(t("payouts.schedule.byHand"), preview.byHand.map(line), "schedule-by-hand")}
      {list(
        t("payouts.schedule.excluded"),
        preview.excluded.map((l) =>
          t("payouts.schedule.excludedLine", {
            creator: nameOf(names, l.creatorId),
            amount: l.amount,
            reason: t(`payouts.schedule.reasons.${l.reason}`),
          }),
        ),
        "schedule-excluded",
      )}
    </BlockStack>
  );
}

function lastRunText(last: LastScheduledRun): string {
  const paid =
    last.paid > 0 ? t("payouts.schedule.lastRunPaid", { count: last.paid }) : t("payouts.schedule.lastRunNone");
  // A period can pay by one method while another is refused (PayPal's account unreadable, say).
  const outcome =
    last.state === "failed"
      ? t("payouts.schedule.lastRunFailed", { error: last.error ?? "" })
      : last.error
        ? t("payouts.schedule.lastRunPartly", { paid, error: last.error })
        : paid;
  return `${t("payouts.schedule.lastRun", { period: last.period, time: last.time })}: ${outcome}`;
}

/** The schedule (off by default), its minimum and currency, pause and resume, and the next run's preview. */
export function PayoutScheduleCard({
  part: { schedule, preview, lastRun, currencies },
  names,
  answer,
}: {
  part: {
    schedule: PublicSchedule;
    preview: SchedulePreview | null;
    lastRun: LastScheduledRun | null;
    currencies: string[];
  };
  names: Names;
  answer: ScheduleActionResult | undefined;
}) {
  const navigation = useNavigation();
  const [enabled, setEnabled] = useState(schedule.enabled);
  const [cadence, setCadence] = useState<string>(schedule.cadence);
  const [weekday, setWeekday] = useState(String(schedule.weekday));
  const [monthDay, setMonthDay] = useState(String(schedule.monthDay));
  const [currency, setCurrency] = useState(schedule.currency);
  const [minimum, setMinimum] = useState(schedule.minimum);
  const errors = answer && !answer.ok ? answer.errors : {};
  const saving = navigation.state === "submitting" && navigation.formData?.get("intent") === "schedule";
  const done = answer?.ok
    ? { schedule: "saved", "schedule-pause": "pausedDone", "schedule-resume": "resumedDone" }[answer.intent]
    : null;
  return (
    <SectionCard title={t("payouts.schedule.title")}>
      <Text as="p" tone="subdued">
        {t("payouts.schedule.help")}
      </Text>
      {done ? <Banner tone="success">{t(`payouts.schedule.${done}`)}</Banner> : null}
      {errors.schedule ? <Banner tone="critical">{errors.schedule}</Banner> : null}
      <Form method="post" data-testid="schedule-form">
        <input type="hidden" name="intent" value="schedule" />
        <input type="hidden" name="enabled" value={enabled ? "on" : "off"} />
        <FormLayout>
          <Checkbox label={t("payouts.schedule.enabled")} checked={enabled} onChange={setEnabled} />
          <FormLayout.Group>
            <Select
              label={t("payouts.schedule.cadence")}
              name="cadence"
              value={cadence}
              onChange={setCadence}
              options={[
                { label: t("payouts.schedule.weekly"), value: "weekly" },
                { label: t("payouts.schedule.monthly"), value: "monthly" },
              ]}
              error={errors.cadence}
            />
            {cadence === "weekly" ? (
              <Select
                label={t("payouts.schedule.weekday")}
                name="weekday"
                value={weekday}
                onChange={setWeekday}
                options={["1", "2", "3", "4", "5", "6", "7"].map((d) => ({
                  label: t(`payouts.schedule.weekdays.${d}`),
                  value: d,
                }))}
                error={errors.weekday}
              />
            ) : (
              <Select
                label={t("payouts.schedule.monthDay")}
                name="monthDay"
                value={monthDay}
                onChange={setMonthDay}
                options={Array.from({ length: 31 }, (_, i) => String(i + 1))}
                helpText={t("payouts.schedule.monthDayHelp")}
                error={errors.monthDay}
              />
            )}
          </FormLayout.Group>
          {/* The day not shown keeps its value: switching cadence and back loses nothing. */}
          {cadence === "weekly" ? (
            <input type="hidden" name="monthDay" value={monthDay} />
          ) : (
            <input type="hidden" name="weekday" value={weekday} />
          )}
          <FormLayout.Group>
            <Select
              label={t("payouts.schedule.currency")}
              name="currency"
              value={currency}
              onChange={setCurrency}
              options={[...new Set([currency, ...currencies])]}
              helpText={t("payouts.schedule.currencyHelp")}
              error={errors.currency}
            />
            <TextField
              label={t("payouts.schedule.minimum")}
              name="minimum"
              value={minimum}
              onChange={setMinimum}
              autoComplete="off"
              inputMode="decimal"
              helpText={t("payouts.schedule.minimumHelp")}
              error={errors.minimum}
            />
          </FormLayout.Group>
          <InlineStack align="end">
            <Button submit variant="primary" loading={saving}>
              {t("payouts.schedule.save")}
            </Button>
          </InlineStack>
        </FormLayout>
      </Form>
      {schedule.enabled ? (
        <Form method="post">
          <input type="hidden" name="intent" value={schedule.paused ? "schedule-resume" : "schedule-pause"} />
          <InlineStack align="end">
            <Button submit>{t(schedule.paused ? "payouts.schedule.resume" : "payouts.schedule.pause")}</Button>
          </InlineStack>
        </Form>
      ) : (
        <Text as="p">{t("payouts.schedule.off")}</Text>
      )}
      {schedule.paused && schedule.enabled ? <Banner tone="warning">{t("payouts.schedule.paused")}</Banner> : null}
      {preview ? <Preview preview={preview} paused={schedule.paused} names={names} /> : null}
      {lastRun ? <Text as="p">{lastRunText(lastRun)}</Text> : null}
    </SectionCard>
  );
}

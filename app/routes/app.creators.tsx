import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useActionData, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import { Banner, Card, Text } from "@shopify/polaris";
import type { BannerHandles } from "@shopify/polaris";
import { useState } from "react";
import { AdminPage } from "../components/AdminPage";
import { CreatorAnswer } from "../components/CreatorAnswer";
import { CreatorDecisionsCard } from "../components/CreatorDecisionsCard";
import { CreatorEvidenceCard } from "../components/CreatorEvidenceCard";
import { PayoutHistoryCard } from "../components/PayoutHistoryCard";
import { CreatorProfileModal } from "../components/CreatorProfileModal";
import { CreatorsFilters } from "../components/CreatorsFilters";
import { CreatorsTable } from "../components/CreatorsTable";
import { CreatorStandingBadge } from "../components/CreatorStandingBadge";
import { SuspectedCreatorsCard } from "../components/SuspectedCreatorsCard";
import { adminMeta } from "../components/documentTitle";
import { EmptyNote } from "../components/EmptyNote";
import { PageError } from "../components/PageError";
import { useFocusOnAnswer } from "../components/useFocusOnAnswer";
import { creatorsAction, type CreatorsAnswer } from "../creators/creators-action.server";
import { creatorsPageFor } from "../creators/creators-page.server";
import { localePath, t } from "../i18n";
import { staffIdOf } from "../sessions/staff-member";
import { authenticate } from "../shopify.server";
import { requestLocale, shownTime } from "../units/shop-format";

// Per creator and currency: where their commissions stand, from pending to paid, and what is
// due, with each creator's standing (suspected creators first); the name, email and note the
// merchant keeps for each creator id; and one creator's page (?creator=): the evidence against
// them in the period, why the rule suspects them, and the merchant's decision on them.

export const meta = adminMeta(({ data }) => {
  const creator = (data as { filter?: { creator: string | null } } | undefined)?.filter?.creator;
  return creator ? t("creators.creatorTitle", { creator }) : t("creators.title");
});

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  return json(await creatorsPageFor(session.shop, new URL(request.url).searchParams, requestLocale(request)));
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const context = await authenticate.admin(request);
  const { answer, status } = await creatorsAction(context.session.shop, await request.formData(), staffIdOf(context));
  return json<CreatorsAnswer>(answer, { status });
};

export default function CreatorsPage() {
  const { filter, rows, profiles, limit, standing, suspected, view, payouts, times } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as CreatorsAnswer | undefined;
  const answerRef = useFocusOnAnswer<BannerHandles>(answer);
  const navigation = useNavigation();
  const submit = useSubmit();
  const [editing, setEditing] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const creator = filter.creator;
  const creatorName = creator ? profiles[creator]?.name || creator : "";
  return (
    <AdminPage
      title={creator ? t("creators.creatorTitle", { creator: creatorName }) : t("creators.title")}
      titleMetadata={creator ? <CreatorStandingBadge state={standing[creator]} /> : undefined}
      backAction={creator ? { content: t("creators.backToCreators"), url: localePath("/app/creators") } : undefined}
    >
      <CreatorAnswer answer={answer} answerRef={answerRef} names={profiles} />
      {saved ? (
        <Banner tone="success" onDismiss={() => setSaved(null)}>
          {t("creators.profileSaved", { creator: saved })}
        </Banner>
      ) : null}
      <CreatorsFilters creator={creator} standing={filter.standing} />
      {creator ? null : <SuspectedCreatorsCard suspected={suspected} names={profiles} />}
      {view ? (
        <>
          <CreatorDecisionsCard
            view={view}
            creatorName={creatorName}
            time={(iso) => shownTime(times, iso)}
            submitting={navigation.state === "submitting"}
            onDecide={(kind, version) =>
              submit(
                { intent: "decide", creatorId: view.creatorId, kind, version: String(version) },
                { method: "post" },
              )
            }
            onUndo={(decisionId) => submit({ intent: "undo", decisionId }, { method: "post" })}
          />
          <CreatorEvidenceCard view={view} />
          <PayoutHistoryCard payouts={payouts} times={times} creatorName={creatorName} />
        </>
      ) : null}
      <Card padding="0">
        {rows.length === 0 ? (
          <div style={{ padding: 16 }}>
            <EmptyNote>{creator ? t("creators.notInList") : t("creators.empty")}</EmptyNote>
          </div>
        ) : (
          <CreatorsTable rows={rows} profiles={profiles} standing={standing} onEdit={setEditing} />
        )}
      </Card>
      <Text as="p" tone="subdued">
        {t("creators.help")}
      </Text>
      {rows.length >= limit ? (
        <Text as="p" tone="subdued">
          {t("creators.limited", { count: limit })}
        </Text>
      ) : null}
      {editing ? (
        <CreatorProfileModal
          creatorId={editing}
          profile={profiles[editing]}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setSaved(editing);
            setEditing(null);
          }}
        />
      ) : null}
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <PageError />;
}

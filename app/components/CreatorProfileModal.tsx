import { useFetcher } from "@remix-run/react";
import { Banner, BlockStack, FormLayout, Modal, TextField } from "@shopify/polaris";
import { useEffect, useState } from "react";
import type { CreatorProfileView, SaveProfileResult } from "../commissions/creator-profiles.server";
import { t } from "../i18n";

/** Edits one creator's details; the page's data reloads after the save, so the table shows them. */
export function CreatorProfileModal({
  creatorId,
  profile,
  onClose,
  onSaved,
}: {
  creatorId: string;
  /** What the merchant keeps for the creator id, when anything. */
  profile: Omit<CreatorProfileView, "creatorId"> | undefined;
  onClose(): void;
  onSaved(): void;
}) {
  const fetcher = useFetcher<SaveProfileResult>();
  const [name, setName] = useState(profile?.name ?? "");
  const [email, setEmail] = useState(profile?.email ?? "");
  const [note, setNote] = useState(profile?.note ?? "");
  const result = fetcher.data as SaveProfileResult | undefined;
  const errors = result && !result.ok ? result.errors : {};
  useEffect(() => {
    if (fetcher.state === "idle" && result?.ok) onSaved();
  }, [fetcher.state, result, onSaved]);
  const save = () => fetcher.submit({ creatorId, name, email, note }, { method: "post" });
  return (
    <Modal
      open
      onClose={onClose}
      title={t("creators.editTitle", { creator: creatorId })}
      primaryAction={{ content: t("creators.profileSave"), onAction: save, loading: fetcher.state !== "idle" }}
      secondaryActions={[{ content: t("creators.profileCancel"), onAction: onClose }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          {result && !result.ok ? <Banner tone="critical">{t("creators.profileNotSaved")}</Banner> : null}
          <FormLayout>
            <TextField
              label={t("creators.profileName")}
              value={name}
              onChange={setName}
              autoComplete="off"
              helpText={t("creators.profileNameHelp")}
              error={errors.name}
            />
            <TextField
              label={t("creators.profileEmail")}
              type="email"
              value={email}
              onChange={setEmail}
              autoComplete="off"
              error={errors.email}
            />
            <TextField
              label={t("creators.profileNote")}
              value={note}
              onChange={setNote}
              autoComplete="off"
              multiline={3}
              helpText={t("creators.profileNoteHelp")}
              error={errors.note ?? errors.creatorId}
            />
          </FormLayout>
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}

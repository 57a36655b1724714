import { Link as RemixLink } from "@remix-run/react";
import { Text } from "@shopify/polaris";
import { localePath, t } from "../i18n";

// A creator as the merchant knows them: their display name (CreatorProfile) with the id beside
// it, linking to their records in the commission ledger. Names come from `creatorNames()` in
// app/commissions/creator-profiles.server.ts, loaded once per page.

export function creatorLedgerUrl(creatorId: string): string {
  return localePath(`/app/commissions?${new URLSearchParams({ creator: creatorId }).toString()}`);
}

export function CreatorName({ creatorId, name }: { creatorId: string; name?: string | null }) {
  return (
    <RemixLink to={creatorLedgerUrl(creatorId)} title={t("creators.viewLedger", { creator: name || creatorId })}>
      {name ? (
        <>
          {name}{" "}
          <Text as="span" tone="subdued">
            {t("common.parenthesized", { text: creatorId })}
          </Text>
        </>
      ) : (
        creatorId
      )}
    </RemixLink>
  );
}

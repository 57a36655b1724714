import { Badge, Banner, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";
import { useEffect, useState } from "react";
import type { SetupStatus } from "../dashboard/setup.server";
import { localePath, t } from "../i18n";
import { SectionCard } from "./SectionCard";

// The home page's setup guide and the embed's banner. The embed's status on the published theme
// comes from App Bridge (`shopify.app.extensions()`), asked in the browser at every visit; where
// App Bridge cannot answer (an older admin, the call failing), the order-based guess stands in.

/** The theme app extension's handle and its embed block's file name (extensions/click-capture). */
const EMBED_EXTENSION = "click-capture";
const EMBED_BLOCK = "click-capture";

export type EmbedStatus = "checking" | "active" | "available" | "unavailable" | "unknown";

interface ThemeActivation {
  handle?: string;
  status?: string;
}
interface ExtensionInfo {
  handle?: string;
  type?: string;
  activations?: ThemeActivation[];
}

/** Reads the embed's status from what app.extensions() resolved with. */
export function embedStatusOf(extensions: unknown): EmbedStatus {
  if (!Array.isArray(extensions)) return "unknown";
  const extension = (extensions as ExtensionInfo[]).find(
    (e) => e?.handle === EMBED_EXTENSION && e.type === "theme_app_extension",
  );
  // Not listed: the published theme cannot show it (or the extension is not released).
  const status = extension?.activations?.find((a) => a?.handle === EMBED_BLOCK)?.status;
  return status === "active" || status === "available" || status === "unavailable" ? status : "unavailable";
}

export function useEmbedStatus(): EmbedStatus {
  const [status, setStatus] = useState<EmbedStatus>("checking");
  useEffect(() => {
    let current = true;
    const app = (window as { shopify?: { app?: { extensions?: () => Promise<unknown> } } }).shopify?.app;
    if (typeof app?.extensions !== "function") {
      setStatus("unknown");
      return;
    }
    Promise.resolve()
      .then(() => app.extensions!())
      .then(
        (extensions) => current && setStatus(embedStatusOf(extensions)),
        () => current && setStatus("unknown"),
      );
    return () => {
      current = false;
    };
  }, []);
  return status;
}

/** Says at once when the embed is not active; falls back to the guess from orders when App Bridge cannot tell. */
export function EmbedBanner(props: {
  status: EmbedStatus;
  captureNotSeen: boolean;
  themeEditorUrl: string;
  days: number;
}) {
  const { status, themeEditorUrl } = props;
  const action = { content: t("setup.embedAction"), url: themeEditorUrl, target: "_top" as const };
  if (status === "available" || status === "unavailable")
    return (
      <Banner tone="critical" title={t("setup.embedOffTitle")} action={action}>
        <Text as="p" id="embed-banner">
          {status === "available" ? t("setup.embedAvailable") : t("setup.embedUnavailable")}
        </Text>
      </Banner>
    );
  if (status === "unknown" && props.captureNotSeen)
    return (
      <Banner tone="info" title={t("dashboard.bannerEmbedTitle")} action={action}>
        <Text as="p" id="embed-banner">
          {t("dashboard.bannerEmbedBody", { days: props.days })}
        </Text>
      </Banner>
    );
  return null;
}

type StepState = "done" | "todo" | "checking";

function Step(props: {
  id: string;
  title: string;
  state: StepState;
  body: string;
  action?: { content: string; url: string; external?: boolean };
}) {
  const badge =
    props.state === "done" ? (
      <Badge tone="success">{t("setup.done")}</Badge>
    ) : props.state === "checking" ? (
      <Badge>{t("setup.checking")}</Badge>
    ) : (
      <Badge tone="attention">{t("setup.todo")}</Badge>
    );
  return (
    <BlockStack gap="100" id={`setup-${props.id}`} data-state={props.state}>
      <InlineStack gap="200" blockAlign="center">
        <Text as="h3" variant="headingSm">
          {props.title}
        </Text>
        {badge}
      </InlineStack>
      <Text as="p" tone={props.state === "done" ? "subdued" : undefined}>
        {props.body}
      </Text>
      {props.action && props.state === "todo" ? (
        <InlineStack>
          <Button url={props.action.url} target={props.action.external ? "_top" : undefined}>
            {props.action.content}
          </Button>
        </InlineStack>
      ) : null}
    </BlockStack>
  );
}

export function SetupGuide(props: {
  status: SetupStatus;
  embed: EmbedStatus;
  themeEditorUrl: string;
  captureNotSeen: boolean;
}) {
  const { status, embed } = props;
  const embedStep: { state: StepState; body: string } =
    embed === "active"
      ? { state: "done", body: t("setup.embedActive") }
      : embed === "checking"
        ? { state: "checking", body: t("setup.embedChecking") }
        : embed === "available"
          ? { state: "todo", body: t("setup.embedAvailable") }
          : embed === "unavailable"
            ? { state: "todo", body: t("setup.embedUnavailable") }
            : { state: props.captureNotSeen ? "todo" : "done", body: t("setup.embedUnknown") };
  const key = status.key;
  const keyStep: { state: StepState; body: string } =
    key.state === "connected"
      ? { state: "done", body: t("setup.keyConnected") }
      : key.state === "missing"
        ? { state: "todo", body: t("setup.keyMissing") }
        : key.state === "rejected"
          ? { state: "todo", body: t("setup.keyRejected") }
          : key.state === "unreachable"
            ? { state: "todo", body: t("setup.keyUnreachable", { message: key.message }) }
            : { state: "todo", body: t("setup.keyUnusable") };
  return (
    <SectionCard title={t("setup.title")} gap="400">
      <Step
        id="embed"
        title={t("setup.embedTitle")}
        {...embedStep}
        action={{ content: t("setup.embedAction"), url: props.themeEditorUrl, external: true }}
      />
      <Step
        id="key"
        title={t("setup.keyTitle")}
        {...keyStep}
        action={{ content: t("setup.keyAction"), url: localePath("/app/settings") }}
      />
      <Step
        id="pixel"
        title={t("setup.pixelTitle")}
        state={status.pixel.connected ? "done" : "todo"}
        body={
          status.pixel.connected
            ? t("setup.pixelConnected")
            : t("setup.pixelNotConnected", { message: status.pixel.message })
        }
      />
      <Step
        id="order"
        title={t("setup.orderTitle")}
        state={status.firstOrderVerified ? "done" : "todo"}
        body={status.firstOrderVerified ? t("setup.orderVerified") : t("setup.orderWaiting")}
      />
    </SectionCard>
  );
}

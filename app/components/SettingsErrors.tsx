import { Banner, BlockStack, Text } from "@shopify/polaris";
import type { Ref } from "react";
import { t } from "../i18n";
import { SETTINGS_FIELD_LABELS, settingsFieldId } from "../settings/form-values";

/**
 * A refused save: the fields to fix, each a link that focuses its input, in the form's order.
 * The page moves the focus here (`bannerRef`), so a keyboard or screen reader user starts here.
 */
export function SettingsErrors({
  errors,
  bannerRef,
}: {
  errors: Partial<Record<string, string>>;
  bannerRef: Ref<HTMLDivElement>;
}) {
  const wrongFields = SETTINGS_FIELD_LABELS.filter(([name]) => errors[name]);
  // An error about no single field (should the server ever send one) is listed without a link.
  const otherErrors = Object.entries(errors).filter(
    ([name]) => !SETTINGS_FIELD_LABELS.some(([known]) => known === name),
  );
  return (
    <div ref={bannerRef} tabIndex={-1} data-testid="settings-errors">
      <Banner tone="critical" title={t("settings.fixErrors")}>
        <BlockStack gap="100">
          <Text as="p">{t("settings.fixErrorsIntro")}</Text>
          <ul>
            {wrongFields.map(([name, label]) => (
              <li key={name}>
                <a
                  href={`#${settingsFieldId(name)}`}
                  onClick={(event) => {
                    event.preventDefault();
                    document.getElementById(settingsFieldId(name))?.focus();
                  }}
                >
                  {t(label)}
                </a>
                {t("settings.fieldErrorDetail", { message: errors[name] ?? "" })}
              </li>
            ))}
            {otherErrors.map(([name, message]) => (
              <li key={name}>{message}</li>
            ))}
          </ul>
        </BlockStack>
      </Banner>
    </div>
  );
}

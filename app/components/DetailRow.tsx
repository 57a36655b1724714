import { InlineStack, Text } from "@shopify/polaris";
import type { ReactNode } from "react";

/** A label/value line of a details card: the subdued label in a fixed column, the value beside it. */
export function DetailRow({ label, children }: { label: string; children: ReactNode }) {
  return (
    <InlineStack gap="200" wrap={false}>
      <div style={{ minWidth: 200 }}>
        <Text as="span" tone="subdued">
          {label}
        </Text>
      </div>
      <Text as="span" breakWord>
        {children}
      </Text>
    </InlineStack>
  );
}

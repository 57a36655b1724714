import { InlineStack, Text, type TextProps } from "@shopify/polaris";
import type { ReactNode } from "react";

/** A summary line: the value at the start, a subdued note at the far end. */
export function SplitRow({
  children,
  note,
  variant,
}: {
  children: ReactNode;
  note: ReactNode;
  variant?: TextProps["variant"];
}) {
  return (
    <InlineStack align="space-between">
      <Text as="span" variant={variant}>
        {children}
      </Text>
      <Text as="span" tone="subdued">
        {note}
      </Text>
    </InlineStack>
  );
}

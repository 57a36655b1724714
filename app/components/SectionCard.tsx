import { BlockStack, Card, Text, type BlockStackProps } from "@shopify/polaris";
import type { ReactNode } from "react";

/** A card that opens with a section heading: settings sections, dashboard and order-detail cards. */
export function SectionCard({
  title,
  gap = "200",
  children,
}: {
  title: ReactNode;
  gap?: BlockStackProps["gap"];
  children: ReactNode;
}) {
  return (
    <Card>
      <BlockStack gap={gap}>
        <Text as="h2" variant="headingMd">
          {title}
        </Text>
        {children}
      </BlockStack>
    </Card>
  );
}

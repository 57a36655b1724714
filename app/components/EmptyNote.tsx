import { Text } from "@shopify/polaris";
import type { ReactNode } from "react";

/** The quiet line a section shows in place of an empty list. */
export function EmptyNote({ children }: { children: ReactNode }) {
  return (
    <Text as="p" tone="subdued">
      {children}
    </Text>
  );
}

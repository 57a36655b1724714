import { BlockStack, Layout, Page, type PageProps } from "@shopify/polaris";

/** The admin routes' page frame: one layout section holding a stack of cards. */
export function AdminPage({ children, ...page }: PageProps) {
  return (
    <Page {...page}>
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">{children}</BlockStack>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

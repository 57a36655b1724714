import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { AppProvider as PolarisAppProvider, Button, Card, FormLayout, Page, Text, TextField } from "@shopify/polaris";
import polarisEnglish from "@shopify/polaris/locales/en.json";
import polarisStyles from "@shopify/polaris/build/esm/styles.css?url";
import { useEffect, useState } from "react";
import { documentTitle } from "../components/documentTitle";
import { localePath, polarisTranslations, t } from "../i18n";
import { login } from "../shopify.server";
import { LoginErrorType } from "@shopify/shopify-app-remix/server";

export const meta = () => documentTitle(t("meta.login"));

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

function messageFor(errors: Awaited<ReturnType<typeof login>> | undefined): string | undefined {
  if (!errors || errors instanceof Response || !("shop" in errors)) return undefined;
  if (errors.shop === LoginErrorType.MissingShop) return t("login.missingShop");
  if (errors.shop === LoginErrorType.InvalidShop) return t("login.invalidShop", { example: "my-shop.myshopify.com" });
  return undefined;
}

/**
 * The library's login, whose redirect is thrown; a body that is no form (a client posting JSON,
 * or nothing) makes its formData() throw, which is a login without a shop, not a server failure.
 */
async function loginError(request: Request): Promise<string | undefined> {
  try {
    return messageFor(await login(request));
  } catch (thrown) {
    if (thrown instanceof Response) throw thrown;
    return messageFor({ shop: LoginErrorType.MissingShop });
  }
}

export const loader = async ({ request }: LoaderFunctionArgs) => ({ error: await loginError(request) });
export const action = async ({ request }: ActionFunctionArgs) => ({ error: await loginError(request) });

const SHOP_FIELD = "shop";

// The page is in the request's language: Shopify admin's `?locale=` when it sent one, else the
// browser's (server.mjs), its errors and Polaris's own strings too; the form keeps `?locale=`.
export default function Auth() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [shop, setShop] = useState("");
  // The page hydrates only once its language has loaded (entry.client.tsx), which on a slow line
  // is after the merchant has typed into the server's page: React keeps that text in the field
  // while hydrating, but the field is controlled, and its next render (leaving it to press Log in)
  // would put back the empty state and send no shop. What was typed becomes the state instead.
  useEffect(() => {
    const typed = (document.getElementById(SHOP_FIELD) as HTMLInputElement | null)?.value;
    if (typed) setShop(typed);
  }, []);
  const error = actionData?.error ?? loaderData.error;
  return (
    <PolarisAppProvider i18n={polarisTranslations() ?? polarisEnglish}>
      <main>
        <Page narrowWidth>
          <Card>
            <Form method="post" action={localePath("/auth/login")}>
              <FormLayout>
                <Text variant="headingMd" as="h2">
                  {t("login.title")}
                </Text>
                <TextField
                  type="text"
                  id={SHOP_FIELD}
                  name="shop"
                  label={t("login.shopLabel")}
                  helpText="example.myshopify.com"
                  value={shop}
                  onChange={setShop}
                  autoComplete="on"
                  error={error}
                />
                <Button submit>{t("login.submit")}</Button>
              </FormLayout>
            </Form>
          </Card>
        </Page>
      </main>
    </PolarisAppProvider>
  );
}

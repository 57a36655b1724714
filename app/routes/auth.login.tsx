import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { AppProvider as PolarisAppProvider, Button, Card, FormLayout, Page, Text, TextField } from "@shopify/polaris";
import polarisTranslations from "@shopify/polaris/locales/en.json";
import polarisStyles from "@shopify/polaris/build/esm/styles.css?url";
import { useState } from "react";
import { documentTitle } from "../components/documentTitle";
import { t } from "../i18n";
import { login } from "../shopify.server";
import { LoginErrorType } from "@shopify/shopify-app-remix/server";

export const meta = () => documentTitle(t("meta.login"));

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

function messageFor(errors: Awaited<ReturnType<typeof login>> | undefined): string | undefined {
  if (!errors || errors instanceof Response || !("shop" in errors)) return undefined;
  if (errors.shop === LoginErrorType.MissingShop) return "Enter your shop domain to log in.";
  if (errors.shop === LoginErrorType.InvalidShop) return "Enter a valid shop domain, such as my-shop.myshopify.com.";
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

export default function Auth() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [shop, setShop] = useState("");
  const error = actionData?.error ?? loaderData.error;
  return (
    <PolarisAppProvider i18n={polarisTranslations}>
      <main>
        <Page narrowWidth>
          <Card>
            <Form method="post">
              <FormLayout>
                <Text variant="headingMd" as="h2">
                  Log in
                </Text>
                <TextField
                  type="text"
                  name="shop"
                  label="Shop domain"
                  helpText="example.myshopify.com"
                  value={shop}
                  onChange={setShop}
                  autoComplete="on"
                  error={error}
                />
                <Button submit>Log in</Button>
              </FormLayout>
            </Form>
          </Card>
        </Page>
      </main>
    </PolarisAppProvider>
  );
}

import type { MetaArgs, MetaDescriptor } from "@remix-run/node";
import { isRouteErrorResponse } from "@remix-run/react";
import { t } from "../i18n";

// Remix uses only the deepest matching route's meta, so every page names itself; a screen
// reader announces the title first and a merchant with several tabs open tells them apart by it.

export function documentTitle(page: string): MetaDescriptor[] {
  return [{ title: t("meta.title", { page }) }];
}

/**
 * An admin route's `meta`: its own name (a function: the words are looked up when the page is
 * named, in the request's language, not when the module loads), or, when the route rendered its error state instead,
 * the same words that state's heading uses (PageError), so the tab never claims a page that
 * did not load.
 */
export function adminMeta(page: (args: MetaArgs) => string) {
  return (args: MetaArgs): MetaDescriptor[] => {
    if (args.error)
      return documentTitle(
        isRouteErrorResponse(args.error) && args.error.status === 404
          ? t("common.notFoundTitle")
          : t("common.errorTitle"),
      );
    return documentTitle(page(args));
  };
}

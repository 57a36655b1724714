import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { startClientLocale } from "./i18n/client";

// Remix's own browser entry, but the page's language is loaded first: hydration must render the
// very strings the server wrote.
void startClientLocale(document.documentElement).then(() =>
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <RemixBrowser />
      </StrictMode>,
    );
  }),
);

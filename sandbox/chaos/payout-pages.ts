import { signSessionToken } from "../shopify/session-token";
import { embeddedRequest } from "../demo/embedded-request";

// The admin pages a chaos run's merchant uses to pay creators (Payouts, Creators), over HTTP with
// a session token as App Bridge sends it, on whichever instance is up. A form whose answer never
// came (the instance killed mid-request, or not up) is sent again, the same form with the same
// token, to a live instance, as a merchant's browser retrying would: the app must find what the
// first one did rather than do it twice.

export interface PageAnswer {
  status: number;
  body: { ok?: boolean; errors?: Record<string, string>; [field: string]: unknown } | null;
}

export interface Pages {
  /** GET the page's data, or POST `form` to its action; on `instance` when given, else on any live one. */
  call(shop: string, page: "payouts" | "creators", form?: URLSearchParams, instance?: string): Promise<PageAnswer>;
}

/** How long a form is sent again while no instance answers it, before the run gives up on it. */
const ANSWER_WITHIN_MS = 120_000;

export function payoutPages(parts: { pickInstance: () => string | null; apiKey: string; apiSecret: string }): Pages {
  return {
    async call(shop, page, form, instance) {
      const deadline = Date.now() + ANSWER_WITHIN_MS;
      let target = instance ?? null;
      for (;;) {
        const base = target ?? parts.pickInstance();
        try {
          if (!base) throw new Error("no instance is up");
          const response = await embeddedRequest(
            base,
            page,
            signSessionToken({ shop, apiKey: parts.apiKey, secret: parts.apiSecret }),
            form,
            AbortSignal.timeout(30_000),
          );
          const body = (await response.json().catch(() => undefined)) as PageAnswer["body"] | undefined;
          // 5xx: the instance could not do it now (its database away, shutting down): again. A
          // success whose body was cut off (the instance killed while it answered) is no answer
          // either: the action may have been done, and only the same form sent again can say.
          if (response.status < 500 && (body !== undefined || !response.ok))
            return { status: response.status, body: body ?? null };
        } catch {
          // No answer: the request may or may not have been acted on; the same form goes again.
        }
        if (Date.now() > deadline)
          throw new Error(`no instance answered ${page} for ${shop} within ${ANSWER_WITHIN_MS / 1000} s`);
        target = null;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}

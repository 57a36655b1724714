import { randomUUID } from "node:crypto";
import { PIXEL_PATH } from "../../app/attribution/pixel-report";
import type { Creator } from "./cast";
import type { OutsideAction } from "./entry";

// An attacker outside the page: a script on the attacker's own machine (node here) posting
// pixel reports to the shop's public app proxy, which signs and forwards them as it does the
// real pixel's. It knows what an extension in the shopper's browser could have sent it: the
// order's id and, for the "-token" variant, the checkout token from the thank-you page's URL.
// Its click is a real one of its own, made at the click service for the attacker's account.

export interface OutsideTarget {
  /** The account it claims the order for: its creator id and tag at the click service. */
  attacker: Creator;
  storefrontOrigin: string;
  clickServiceUrl: string;
  orderId: string;
  checkoutToken: string;
}

export async function postFromOutside(action: OutsideAction, target: OutsideTarget): Promise<void> {
  const created = await fetch(`${target.clickServiceUrl}/sandbox/clicks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ expectedTag: target.attacker.tag, creatorId: target.attacker.creatorId }),
  });
  if (created.status !== 201) throw new Error(`the click service answered ${created.status} to the attacker's click`);
  const { clickId } = (await created.json()) as { clickId: string };
  // A visitor id of its own: it has never been the shopper's browser.
  const clientId = randomUUID();
  const report = { clientId, clickId, tag: target.attacker.tag };
  await send(target, { ...report, eventId: `sh-${randomUUID()}`, kind: "landing", orderId: null, checkoutToken: null });
  await send(target, {
    ...report,
    eventId: `sh-${randomUUID()}`,
    kind: "checkout",
    orderId: target.orderId,
    checkoutToken: action === "forge-pixel-own-token" ? target.checkoutToken : null,
  });
}

async function send(target: OutsideTarget, report: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${target.storefrontOrigin}${PIXEL_PATH}`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: JSON.stringify(report),
  });
  if (response.status !== 202) throw new Error(`the app proxy answered ${response.status} to the attacker's report`);
}

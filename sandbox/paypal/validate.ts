// What the stand-in accepts as a payout batch, checked as PayPal documents it (POST
// /v1/payments/payouts): a sender_batch_header with a sender_batch_id of at most 256 characters,
// 1 to 15,000 items, each with an amount (value as decimal text in the currency's minor unit,
// a three-letter currency), a receiver, a known recipient type and a sender_item_id of at most
// 63 characters, unique in the batch; an item's note at most 4,000 characters and the batch's
// email_subject at most 255. Anything else is VALIDATION_ERROR with its details.

export interface Detail {
  field: string;
  location: "body";
  issue: string;
}

type Checked =
  | {
      ok: true;
      senderBatchId: string;
      emailSubject: string;
      items: { senderItemId: string; receiver: string; value: string; currency: string; note: string }[];
    }
  | { ok: false; details: Detail[] };

const RECIPIENT_TYPES = new Set(["EMAIL", "PHONE", "PAYPAL_ID"]);

export function validatePayout(text: string): Checked {
  let body: { sender_batch_header?: { sender_batch_id?: unknown; email_subject?: unknown }; items?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return { ok: false, details: [{ field: "/", location: "body", issue: "MALFORMED_REQUEST_JSON" }] };
  }
  const details: Detail[] = [];
  const fail = (field: string, issue: string) => details.push({ field, location: "body", issue });
  const senderBatchId = body.sender_batch_header?.sender_batch_id;
  if (typeof senderBatchId !== "string" || senderBatchId.length === 0 || senderBatchId.length > 256)
    fail("sender_batch_header.sender_batch_id", "Sender batch id is required, at most 256 characters");
  const emailSubject = body.sender_batch_header?.email_subject ?? "";
  if (typeof emailSubject !== "string" || emailSubject.length > 255)
    fail("sender_batch_header.email_subject", "Email subject is at most 255 characters");
  const items = Array.isArray(body.items) ? (body.items as Record<string, unknown>[]) : [];
  if (items.length === 0 || items.length > 15_000) fail("items", "Items must hold 1 to 15000 payouts");
  const seen = new Set<string>();
  const out = items.map((item, i) => {
    const amount = (item.amount ?? {}) as { value?: unknown; currency?: unknown };
    const currency = typeof amount.currency === "string" ? amount.currency : "";
    const digits = currency === "JPY" || currency === "HUF" || currency === "TWD" ? 0 : 2;
    const pattern = digits === 0 ? /^\d{1,10}$/ : /^\d{1,10}\.\d{2}$/;
    if (!/^[A-Z]{3}$/.test(currency)) fail(`items[${i}].amount.currency`, "Currency code is invalid");
    if (typeof amount.value !== "string" || !pattern.test(amount.value) || Number(amount.value) <= 0)
      fail(`items[${i}].amount.value`, "Amount is invalid for the currency");
    if (typeof item.receiver !== "string" || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(item.receiver))
      fail(`items[${i}].receiver`, "Receiver is invalid or does not match with type");
    if (!RECIPIENT_TYPES.has(String(item.recipient_type)))
      fail(`items[${i}].recipient_type`, "Recipient type is invalid");
    const senderItemId = typeof item.sender_item_id === "string" ? item.sender_item_id : "";
    if (senderItemId.length > 63) fail(`items[${i}].sender_item_id`, "Sender item id is at most 63 characters");
    if (senderItemId && seen.has(senderItemId)) fail(`items[${i}].sender_item_id`, "DUPLICATE_ITEM");
    seen.add(senderItemId);
    const note = item.note ?? "";
    if (typeof note !== "string" || note.length > 4_000) fail(`items[${i}].note`, "Note is at most 4000 characters");
    return { senderItemId, receiver: String(item.receiver), value: String(amount.value), currency, note: String(note) };
  });
  return details.length > 0
    ? { ok: false, details }
    : { ok: true, senderBatchId: String(senderBatchId), emailSubject: String(emailSubject), items: out };
}

// Builds the verify-click JSON text by hand so the order value reaches the wire exactly as
// the merchant's books have it: "120.10" must not become the float 120.1 on the way.

export interface VerifyClickInput {
  clickId: string;
  arrivedTag: string;
  conversion?: boolean;
  orderId?: string;
  /** Decimal string, e.g. "120.10"; sent as a JSON number with its digits untouched. */
  orderValue?: string;
}

export type BodyResult = { ok: true; text: string } | { ok: false; field: string; message: string };

const DECIMAL = /^-?\d+(\.\d+)?$/;

export function buildVerifyBody(input: VerifyClickInput): BodyResult {
  // Callers in plain JS (or with `any`) can still hand us anything, so check at run time.
  if (typeof input.clickId !== "string") return invalid("clickId", "must be a string");
  if (typeof input.arrivedTag !== "string") return invalid("arrivedTag", "must be a string");
  const members = [`"click_id":${JSON.stringify(input.clickId)}`, `"arrived_tag":${JSON.stringify(input.arrivedTag)}`];
  if (input.conversion !== undefined) {
    if (typeof input.conversion !== "boolean") return invalid("conversion", "must be a boolean");
    members.push(`"conversion":${input.conversion ? "true" : "false"}`);
  }
  if (input.orderId !== undefined) {
    if (typeof input.orderId !== "string") return invalid("orderId", "must be a string");
    members.push(`"order_id":${JSON.stringify(input.orderId)}`);
  }
  if (input.orderValue !== undefined) {
    if (typeof input.orderValue !== "string" || !DECIMAL.test(input.orderValue)) {
      return invalid("orderValue", 'must be a decimal string such as "120.10"');
    }
    members.push(`"order_value":${jsonNumberText(input.orderValue)}`);
  }
  return { ok: true, text: `{${members.join(",")}}` };
}

// JSON forbids leading zeros ("007.5"); dropping them keeps the value and every other digit.
function jsonNumberText(decimal: string): string {
  return decimal.replace(/^(-?)0+(?=\d)/, "$1");
}

function invalid(field: string, message: string): BodyResult {
  return { ok: false, field, message: `${field} ${message}` };
}

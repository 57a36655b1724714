// Values as both databases can store them. Prisma's engine refuses a string holding half of a
// UTF-16 surrogate pair (a "\ud800" escape in a payload, an emoji cut in two by a length limit,
// V8's own JSON error messages) and fails the whole write; PostgreSQL's text type refuses NUL,
// and its timestamps begin in 4713 BC, long after JavaScript's earliest date. Values from
// outside (webhook payloads, the storefront) pass through here before they are stored.

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text with lone surrogates and NUL replaced by U+FFFD: neither can be part of a real id, tag, name or URL. */
export function storableText(text: string): string {
  return text.replace(LONE_SURROGATE, "\ufffd").replaceAll("\u0000", "\ufffd");
}

const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A time an order or a click can really have had (1970 to 9999): stored alike by both databases. */
export function storableTime(ms: number): boolean {
  return ms >= EARLIEST && ms <= LATEST;
}

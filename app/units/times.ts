/** A stored ISO time as the merchant reads it: UTC, minute precision, no locale surprises between server and browser. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * Who on the merchant's staff made an embedded admin request: the session token's `sub` (a
 * staff member's id), null when the request carried no token or the token names nobody.
 */
export function staffIdOf(context: { sessionToken?: { sub?: unknown } }): string | null {
  return context.sessionToken?.sub ? String(context.sessionToken.sub) : null;
}

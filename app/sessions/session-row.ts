import { Session } from "@shopify/shopify-api";

/** A row of the Session table (prisma/schema.prisma), as the Prisma session storage writes it. */
export interface SessionRow {
  id: string;
  shop: string;
  state: string;
  isOnline: boolean;
  scope: string | null;
  expires: Date | null;
  accessToken: string;
  userId: bigint | number | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  accountOwner: boolean | null;
  locale: string | null;
  collaborator: boolean | null;
  emailVerified: boolean | null;
  refreshToken: string | null;
  refreshTokenExpires: Date | null;
}

/**
 * The Session a row holds, through the library's public Session.fromPropertyArray and read as
 * the Prisma session storage reads its own rows (its conversion is private);
 * tests/admin/session-storage.test.ts holds the two readings equal.
 */
export function sessionFromRow(row: SessionRow): Session {
  const properties: [string, string | number | boolean][] = [
    ["id", row.id],
    ["shop", row.shop],
    ["state", row.state],
    ["isOnline", row.isOnline],
    // The storage writes String() of each, "null" included; fromPropertyArray reads them so.
    ["userId", String(row.userId)],
    ["firstName", String(row.firstName)],
    ["lastName", String(row.lastName)],
    ["email", String(row.email)],
    ["locale", String(row.locale)],
  ];
  if (row.accountOwner !== null) properties.push(["accountOwner", row.accountOwner]);
  if (row.collaborator !== null) properties.push(["collaborator", row.collaborator]);
  if (row.emailVerified !== null) properties.push(["emailVerified", row.emailVerified]);
  if (row.expires) properties.push(["expires", row.expires.getTime()]);
  if (row.scope) properties.push(["scope", row.scope]);
  if (row.accessToken) properties.push(["accessToken", row.accessToken]);
  if (row.refreshToken) properties.push(["refreshToken", row.refreshToken]);
  if (row.refreshTokenExpires) properties.push(["refreshTokenExpires", row.refreshTokenExpires.getTime()]);
  return Session.fromPropertyArray(properties, true);
}

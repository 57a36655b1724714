import { Session } from "@shopify/shopify-api";
import { databaseClient } from "../../app/database/db.server";
import { sessionStorage } from "../../app/shopify.server";
import { signSessionToken } from "../../sandbox/shopify";

const prisma = databaseClient();

// Requests as App Bridge sends them to the embedded admin: a session token (HS256 JWT signed
// with the app's secret) in the Authorization header, against the real route modules, so
// every call goes through authenticate.admin exactly as in production.

export const APP_URL = "https://tag-guard.test";

export function sessionToken(
  shop: string,
  options: { secret?: string; apiKey?: string; ttlSeconds?: number } = {},
): string {
  return signSessionToken({
    shop,
    apiKey: options.apiKey ?? process.env.SHOPIFY_API_KEY!,
    secret: options.secret ?? process.env.SHOPIFY_API_SECRET!,
    ttlSeconds: options.ttlSeconds ?? 300,
  });
}

/** An offline session in the app's session table: authenticate.admin then needs no token exchange. */
export async function storeOfflineSession(shop: string, accessToken = "shpat_admin_test"): Promise<void> {
  await sessionStorage.storeSession(
    new Session({
      id: `offline_${shop}`,
      shop,
      state: "",
      isOnline: false,
      accessToken,
      scope: "read_orders,write_orders",
    }),
  );
}

export function adminRequest(
  path: string,
  shop: string,
  init: { method?: string; form?: Record<string, string>; token?: string | null } = {},
): Request {
  const headers = new Headers();
  const token = init.token === undefined ? sessionToken(shop) : init.token;
  if (token) headers.set("authorization", `Bearer ${token}`);
  let body: URLSearchParams | undefined;
  if (init.form) {
    body = new URLSearchParams(init.form);
    headers.set("content-type", "application/x-www-form-urlencoded");
  }
  return new Request(new URL(path, APP_URL), { method: init.method ?? (init.form ? "POST" : "GET"), headers, body });
}

type RouteFn = (args: {
  request: Request;
  params: Record<string, string | undefined>;
  context: Record<string, unknown>;
}) => unknown;

/** Runs a loader or action; a thrown Response (auth redirects, 401, 404) is returned like a returned one. */
export async function call(
  fn: RouteFn | undefined,
  request: Request,
  params: Record<string, string> = {},
): Promise<Response> {
  if (!fn) throw new Error("route has no such function");
  try {
    const result = await fn({ request, params, context: {} });
    if (result instanceof Response) return result;
    return new Response(JSON.stringify(result), { headers: { "content-type": "application/json" } });
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

export async function resetTables(): Promise<void> {
  await prisma.$transaction([
    prisma.commission.deleteMany(),
    prisma.verificationAttempt.deleteMany(),
    prisma.verification.deleteMany(),
    prisma.dataRequest.deleteMany(),
    prisma.shopSettings.deleteMany(),
  ]);
}

let orderSeq = 5_000_000_000_000;

export interface SeedVerification {
  shop: string;
  outcome?: string | null;
  state?: string;
  createdAt?: Date;
  captureSource?: string | null;
  arrivedTag?: string | null;
  expectedTag?: string | null;
  creatorId?: string | null;
  deadlineAt?: Date | null;
  hijacked?: boolean | null;
  orderFacts?: unknown;
  orderName?: string;
  commission?: {
    amountMinor: bigint;
    amount: string;
    currency: string;
    redirected?: boolean;
    status?: string;
    creatorId?: string;
    createdAt?: Date;
  };
}

export async function seedVerification(seed: SeedVerification) {
  orderSeq += 1;
  const orderId = String(orderSeq);
  const createdAt = seed.createdAt ?? new Date();
  const row = await prisma.verification.create({
    data: {
      shop: seed.shop,
      orderId,
      orderGid: `gid://shopify/Order/${orderId}`,
      orderName: seed.orderName ?? `#${orderSeq % 100_000}`,
      orderCreatedAt: createdAt,
      createdAt,
      outcome: seed.outcome ?? null,
      captureSource: seed.captureSource === undefined ? "cart_attributes" : seed.captureSource,
      clickId: "click-1",
      arrivedTag: seed.arrivedTag === undefined ? "creator-tag" : seed.arrivedTag,
      expectedTag:
        seed.expectedTag === undefined
          ? seed.outcome === "matched" || seed.outcome === "hijacked"
            ? "creator-tag"
            : null
          : seed.expectedTag,
      creatorId: seed.creatorId === undefined ? "creator-1" : seed.creatorId,
      deadlineAt: seed.deadlineAt === undefined ? null : seed.deadlineAt,
      hijacked: seed.hijacked ?? null,
      currency: seed.commission?.currency ?? "USD",
      orderFacts: JSON.stringify(seed.orderFacts ?? { cartAttributes: [] }),
    },
  });
  await prisma.job.create({
    data: {
      id: `job-${row.id}`,
      shop: seed.shop,
      kind: "verify-order",
      subject: row.id,
      state: seed.state ?? (seed.outcome === "rejected" ? "parked" : seed.outcome ? "done" : "queued"),
      runAt: createdAt,
    },
  });
  if (seed.commission) {
    const c = seed.commission;
    await prisma.commission.create({
      data: {
        shop: seed.shop,
        verificationId: row.id,
        orderId,
        orderName: row.orderName,
        creatorId: c.creatorId ?? row.creatorId ?? "creator-1",
        expectedTag: row.expectedTag ?? "creator-tag",
        arrivedTag: row.arrivedTag ?? "",
        orderValue: "100.00",
        currency: c.currency,
        rate: "10",
        amount: c.amount,
        amountMinor: c.amountMinor,
        status: c.status ?? "pending",
        redirected: c.redirected ?? false,
        createdAt: c.createdAt ?? createdAt,
      },
    });
  }
  return row;
}

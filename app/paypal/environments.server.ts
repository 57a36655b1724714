import type { DestinationPolicy } from "../click-service";
import { env } from "../platform/env.server";

// PayPal's REST API has one origin per environment, and the app's PayPal credentials are only
// ever sent to the origin of the environment they were saved for. PAYPAL_API_ORIGIN (development
// and tests only, refused in production by env.server.ts) points both at the PayPal stand-in.

export const PAYPAL_ENVIRONMENTS = ["sandbox", "live"] as const;
export type PaypalEnvironment = (typeof PAYPAL_ENVIRONMENTS)[number];

export const PAYPAL_ORIGINS: Record<PaypalEnvironment, string> = {
  sandbox: "https://api-m.sandbox.paypal.com",
  live: "https://api-m.paypal.com",
};

export function isPaypalEnvironment(value: unknown): value is PaypalEnvironment {
  return (PAYPAL_ENVIRONMENTS as readonly unknown[]).includes(value);
}

/** The origin PayPal's API answers at for `environment`, as this process is configured. */
export function paypalOrigin(environment: PaypalEnvironment): string {
  const override = env().PAYPAL_API_ORIGIN;
  return override ? new URL(override).origin : PAYPAL_ORIGINS[environment];
}

let policy: DestinationPolicy | undefined;

/** Where the PayPal client may connect: https in production, loopback only for the stand-in's origin. */
export function paypalDestinations(): DestinationPolicy {
  const config = env();
  policy ??= {
    requireHttps: config.NODE_ENV === "production",
    loopbackOrigins: new Set(config.PAYPAL_API_ORIGIN ? [new URL(config.PAYPAL_API_ORIGIN).origin] : []),
  };
  return policy;
}

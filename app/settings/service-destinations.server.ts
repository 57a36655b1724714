import { setDefaultDestinationPolicy, type DestinationPolicy } from "../click-service";
import { env } from "../platform/env.server";

// Where the click-service client may connect, from the environment: https only in production,
// and loopback only for the exact origins a developer allowed (CLICK_SERVICE_ALLOW_ORIGINS,
// refused in production). Private, link-local and metadata addresses are refused everywhere.

let policy: DestinationPolicy | undefined;

export function serviceDestinations(): DestinationPolicy {
  if (!policy) {
    const config = env();
    policy = { requireHttps: config.NODE_ENV === "production", loopbackOrigins: config.CLICK_SERVICE_ALLOW_ORIGINS };
    // Clients created without a policy of their own (the verification worker's, which builds
    // one from getServerSettings' answer) follow the same rules: installed before any key
    // leaves this folder.
    setDefaultDestinationPolicy(policy);
  }
  return policy;
}

import { describe, expect, it } from "vitest";
import { interpolate, readCompose, serviceEnvironment } from "../support/compose";

// compose.yaml's promises for the arrangement docs/operations.md documents (a TLS-terminating
// load balancer in front of the web replicas): the shopper's address found behind that one proxy,
// and the app's plain HTTP published on the loopback address unless the operator says otherwise.

const compose = readCompose();
const web = compose.services.web!;

describe("compose.yaml", () => {
  it("tells the web instances there is one proxy of the operator's in front of them, unless told otherwise", () => {
    // The file asks .env for a database password; any will do here.
    const env = { POSTGRES_PASSWORD: "from-env-file" };
    expect(serviceEnvironment(web, env).TRUSTED_PROXY_HOPS).toBe("1");
    expect(serviceEnvironment(web, { ...env, TRUSTED_PROXY_HOPS: "0" }).TRUSTED_PROXY_HOPS).toBe("0");
  });

  it("publishes every port on the loopback address unless WEB_BIND names another", () => {
    const published = Object.values(compose.services).flatMap((service) => service.ports ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) {
      expect(interpolate(port, {})).toMatch(/^127\.0\.0\.1:/);
      expect(interpolate(port, { WEB_BIND: "10.0.0.5" })).toMatch(/^10\.0\.0\.5:/);
    }
  });
});

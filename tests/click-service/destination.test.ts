// Server-side request forgery: the service URL is typed by a merchant, so the client must not
// reach this machine, the private network or the cloud's metadata service, however the address
// is spelled or resolved. Real sockets on 127.0.0.1 show whether a request got through.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { LookupAddress } from "node:dns";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  classifyAddress,
  closeClickServicePools,
  createClickServiceClient,
  STRICT_DESTINATIONS,
  type DestinationPolicy,
} from "../../app/click-service";
import { listen } from "../../sandbox/listen";
import { CLICK } from "../support/click-fixture";

const apiKey = "sk_live_destination_test";
const click = CLICK;

interface Local {
  server: Server;
  port: number;
  seen: IncomingHttpHeaders[];
}

async function startLocal(): Promise<Local> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(click));
  });
  const { port } = await listen(server);
  return { server, port, seen };
}

let local: Local;
let other: Local;

beforeAll(async () => {
  local = await startLocal();
  other = await startLocal();
});

afterAll(async () => {
  await closeClickServicePools();
  for (const { server } of [local, other]) await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  local.seen.length = 0;
  other.seen.length = 0;
});

// Plain http allowed, so that only the address rules are under test.
const noLocalAddresses: DestinationPolicy = { requireHttps: false, loopbackOrigins: new Set() };

function lookup(baseUrl: string, destination: DestinationPolicy) {
  return createClickServiceClient({
    baseUrl,
    apiKey,
    destination,
    maxAttempts: 1,
    connectTimeoutMs: 2_000,
  }).lookupClick("c1");
}

function resolvingTo(...addresses: string[]): DestinationPolicy["resolve"] {
  return (_hostname, callback) =>
    callback(
      null,
      addresses.map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
}

describe("address classes", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["0.0.0.0", "forbidden"],
    ["::", "forbidden"],
    ["10.1.2.3", "forbidden"],
    ["172.16.0.1", "forbidden"],
    ["172.31.255.255", "forbidden"],
    ["192.168.1.1", "forbidden"],
    ["169.254.169.254", "forbidden"],
    ["100.100.100.200", "forbidden"],
    ["::ffff:169.254.169.254", "forbidden"],
    ["::ffff:a9fe:a9fe", "forbidden"],
    ["::10.0.0.1", "forbidden"],
    ["64:ff9b::a9fe:a9fe", "forbidden"],
    ["64:ff9b::7f00:1", "loopback"],
    ["::ffff:0:a9fe:a9fe", "forbidden"],
    ["::ffff:0:169.254.169.254", "forbidden"],
    ["::ffff:0:7f00:1", "loopback"],
    ["fd00:ec2::254", "forbidden"],
    ["fc00::1", "forbidden"],
    ["fe80::1", "forbidden"],
    ["ff02::1", "forbidden"],
    ["224.0.0.1", "forbidden"],
    ["255.255.255.255", "forbidden"],
    ["not-an-address", "forbidden"],
    ["93.184.216.34", "public"],
    ["172.32.0.1", "public"],
    ["2606:4700::1111", "public"],
    ["64:ff9b::5db8:d822", "public"],
    ["::ffff:93.184.216.34", "public"],
    ["::ffff:0:5db8:d822", "public"],
  ])("%s is %s", (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe("the client refuses local and private destinations before sending anything", () => {
  it.each([
    (port: number) => `http://127.0.0.1:${port}`,
    (port: number) => `http://0x7f000001:${port}`,
    (port: number) => `http://2130706433:${port}`,
    (port: number) => `http://127.1:${port}`,
    (port: number) => `http://0177.0.0.1:${port}`,
    (port: number) => `http://[::ffff:127.0.0.1]:${port}`,
    (port: number) => `http://0.0.0.0:${port}`,
    (port: number) => `http://localhost:${port}`,
    (port: number) => `http://api.localhost:${port}`,
  ])("refuses %s", async (spell) => {
    const result = await lookup(spell(local.port), noLocalAddresses);
    expect(result).toEqual({
      ok: false,
      error: { kind: "destination", message: expect.stringMatching(/local or private/) },
    });
    expect(local.seen).toEqual([]);
  });

  it.each(["http://169.254.169.254", "http://10.0.0.1:8080", "http://[fd00:ec2::254]", "http://192.168.0.1"])(
    "refuses %s without connecting",
    async (baseUrl) => {
      const result = await lookup(baseUrl, { ...noLocalAddresses, loopbackOrigins: "any" });
      expect(result.ok === false && result.error.kind).toBe("destination");
    },
  );

  it("refuses plain http when https is required", async () => {
    const result = await lookup(`http://127.0.0.1:${local.port}`, { ...STRICT_DESTINATIONS, loopbackOrigins: "any" });
    expect(result).toEqual({ ok: false, error: { kind: "destination", message: expect.stringMatching(/https/) } });
    expect(local.seen).toEqual([]);
  });
});

describe("loopback origins allowed for a local sandbox", () => {
  it("reaches exactly the allowed origin, and no other port of the machine", async () => {
    const policy: DestinationPolicy = {
      requireHttps: false,
      loopbackOrigins: new Set([`http://127.0.0.1:${local.port}`]),
    };
    expect((await lookup(`http://127.0.0.1:${local.port}`, policy)).ok).toBe(true);
    expect(local.seen).toHaveLength(1);
    const probe = await lookup(`http://127.0.0.1:${other.port}`, policy);
    expect(probe.ok === false && probe.error.kind).toBe("destination");
    expect(other.seen).toEqual([]);
  });

  it("still refuses private addresses however an allowed origin resolves", async () => {
    const origin = `http://sandbox.test:${local.port}`;
    const mixed = await lookup(origin, {
      requireHttps: false,
      loopbackOrigins: new Set([origin]),
      resolve: resolvingTo("127.0.0.1", "10.0.0.7"),
    });
    expect(mixed.ok === false && mixed.error.kind).toBe("destination");
    expect(local.seen).toEqual([]);
  });
});

describe("host names are checked as they are resolved for the connection", () => {
  it("connects to the very address the check saw", async () => {
    // sandbox.test exists in no DNS: the request can only arrive through the checked answer.
    const origin = `http://sandbox.test:${local.port}`;
    const asked: string[] = [];
    const result = await lookup(origin, {
      requireHttps: false,
      loopbackOrigins: new Set([origin]),
      resolve: (hostname, callback) => {
        asked.push(hostname);
        resolvingTo("127.0.0.1")!(hostname, callback);
      },
    });
    expect(result.ok).toBe(true);
    expect(asked).toEqual(["sandbox.test"]);
    expect(local.seen.map((headers) => headers.host)).toEqual([`sandbox.test:${local.port}`]);
  });

  it.each([["169.254.169.254"], ["127.0.0.1"], ["93.184.216.34", "192.168.1.20"]])(
    "refuses a public-looking name that resolves to %s",
    async (...addresses) => {
      const result = await lookup(`http://clicks.example.com:${local.port}`, {
        ...noLocalAddresses,
        resolve: resolvingTo(...addresses),
      });
      expect(result.ok === false && result.error).toMatchObject({ kind: "destination" });
      expect(local.seen).toEqual([]);
    },
  );
});

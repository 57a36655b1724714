// Where the client may connect. The service URL is typed by a merchant, so without these rules
// the app would fetch from its own network on their behalf (server-side request forgery):
// loopback, private, link-local (cloud metadata) and similar addresses are refused, and a host
// name is checked as it is resolved for the connection itself, so the address that was checked
// is the address connected to and a second DNS answer (rebinding) cannot swap it.
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { BlockList, isIP } from "node:net";

export interface DestinationPolicy {
  /** Refuse plain http (production). */
  requireHttps: boolean;
  /**
   * Origins (scheme://host:port) that may resolve to a loopback address: a local sandbox in
   * development or a demo. "any" lets every loopback origin through (test suites, whose
   * sandboxes listen on random ports). Private and link-local ranges stay refused regardless.
   */
  loopbackOrigins: ReadonlySet<string> | "any";
  /** Resolves a host name to all its addresses; the system resolver unless a test stands in. */
  resolve?: (hostname: string, callback: (error: Error | null, addresses: LookupAddress[]) => void) => void;
}

/** Until the app says otherwise: https only, nothing local. */
export const STRICT_DESTINATIONS: DestinationPolicy = { requireHttps: true, loopbackOrigins: new Set() };

let processDefault: DestinationPolicy = STRICT_DESTINATIONS;

/** The policy of clients created without one (the app sets it from its environment). */
export function setDefaultDestinationPolicy(policy: DestinationPolicy): void {
  processDefault = policy;
}

export function defaultDestinationPolicy(): DestinationPolicy {
  return processDefault;
}

export class DestinationRefused extends Error {
  readonly code = "ERR_CLICK_SERVICE_DESTINATION_REFUSED";
  constructor(message: string) {
    super(message);
    this.name = "DestinationRefused";
  }
}

export const REFUSED_ADDRESS =
  "the service URL points to a local or private network address, which the app never calls";
export const REFUSED_HTTP = "the service URL must start with https://";

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

// Never a public service: "this network", private (RFC 1918), shared/carrier NAT (where some
// clouds put metadata, e.g. 100.100.100.200), link-local (169.254.169.254 metadata), IETF,
// documentation and benchmarking ranges, multicast, reserved and broadcast; for IPv6 the
// unspecified address, discard, IETF protocol (Teredo), documentation, 6to4, local-use NAT64,
// unique local (fd00:ec2::254 metadata), link-local, site-local and multicast.
const forbidden = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  forbidden.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20],
  ["64:ff9b:1::", 48],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  forbidden.addSubnet(network, prefix, "ipv6");

export type AddressClass = "public" | "loopback" | "forbidden";

/** Classifies a literal IPv4 or IPv6 address; anything else is forbidden. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(bare);
  if (family === 0) return "forbidden";
  const type = family === 4 ? "ipv4" : "ipv6";
  // IPv4-mapped (::ffff:a.b.c.d) addresses match the IPv4 rules too (Node's BlockList does that).
  if (loopback.check(bare, type)) return "loopback";
  if (forbidden.check(bare, type)) return "forbidden";
  if (family === 6) {
    // IPv4-compatible (::a.b.c.d, deprecated), IPv4-translated (::ffff:0:a.b.c.d, SIIT) and
    // NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address that decides where the packet goes.
    const words = ipv6Words(bare);
    if (!words) return "forbidden";
    const zeros = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
    const embedsIpv4 =
      zeros(0, 6) ||
      (zeros(0, 4) && words[4] === 0xffff && words[5] === 0) ||
      (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6));
    if (embedsIpv4) {
      const [high = 0, low = 0] = words.slice(6);
      return classifyAddress([high >> 8, high & 255, low >> 8, low & 255].join("."));
    }
  }
  return "public";
}

function ipv6Words(address: string): number[] | null {
  let text = address.replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string | undefined) => (part ? part.split(":").map((word) => parseInt(word, 16)) : []);
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const words = halves.length === 2 ? [...head, ...Array(8 - head.length - tail.length).fill(0), ...tail] : head;
  return words.length === 8 && words.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff)
    ? words
    : null;
}

function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

function loopbackAllowed(origin: string, policy: DestinationPolicy): boolean {
  return policy.loopbackOrigins === "any" || policy.loopbackOrigins.has(origin);
}

function addressProblem(address: string, origin: string, policy: DestinationPolicy): string | null {
  const kind = classifyAddress(address);
  if (kind === "forbidden") return REFUSED_ADDRESS;
  if (kind === "loopback" && !loopbackAllowed(origin, policy)) return REFUSED_ADDRESS;
  return null;
}

/**
 * What can be refused before any DNS: the scheme, a literal IP address in the URL (which the
 * socket connects to without resolving; the URL parser has already turned 0x7f000001,
 * 2130706433 and 127.1 into 127.0.0.1), and the names that always mean this machine.
 */
export function destinationProblem(url: URL, policy: DestinationPolicy): string | null {
  if (url.protocol !== "https:" && url.protocol !== "http:") return REFUSED_HTTP;
  if (policy.requireHttps && url.protocol !== "https:") return REFUSED_HTTP;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host) !== 0) return addressProblem(host, url.origin, policy);
  if (isLoopbackName(host) && !loopbackAllowed(url.origin, policy)) return REFUSED_ADDRESS;
  return null;
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the socket of one origin: resolves every address, refuses the connection if
 * any of them is refused (an answer mixing a public and a private address is an attack, not a
 * fallback), and hands the socket exactly the addresses it checked.
 */
export function guardedLookup(origin: string, policy: DestinationPolicy) {
  const resolve = policy.resolve ?? resolveAll;
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, (error, resolved) => {
      if (error) return callback(error, []);
      const family = String(options.family ?? 0);
      const wanted = family === "4" || family === "IPv4" ? 4 : family === "6" || family === "IPv6" ? 6 : 0;
      const addresses = resolved.filter((entry) => wanted === 0 || entry.family === wanted);
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error("no address for the service host"), { code: "ENOTFOUND" }), []);
      for (const entry of resolved) {
        const problem = addressProblem(entry.address, origin, policy);
        if (problem) return callback(new DestinationRefused(problem), []);
      }
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function resolveAll(hostname: string, callback: (error: Error | null, addresses: LookupAddress[]) => void): void {
  systemLookup(hostname, { all: true }, (error, addresses) => callback(error, addresses ?? []));
}

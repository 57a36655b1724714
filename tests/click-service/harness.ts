// Drives a sandbox click service for the tests: in-process on a free port by default, or any
// running instance named by CLICK_SERVICE_URL. Everything goes over HTTP (the management API
// included), so the same tests hold against an out-of-process service.
import type { Readable } from "node:stream";
import { request } from "undici";
import type { ClickRecord, DestinationPolicy } from "../../app/click-service";
import { startClickService, type ClickServiceOptions } from "../../sandbox/click-service/server";

/** Sandboxes listen on random loopback ports over plain http; the app's default refuses both. */
export const LOCAL_SANDBOX: DestinationPolicy = { requireHttps: false, loopbackOrigins: "any" };

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface Harness {
  url: string;
  external: boolean;
  close(): Promise<void>;
  raw(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: string | Buffer | Readable },
  ): Promise<RawResponse>;
  createApiKey(): Promise<string>;
  revokeApiKey(apiKey: string): Promise<number>;
  createClick(input: Record<string, unknown>): Promise<ClickRecord>;
  verifications(clickId: string): Promise<Array<Record<string, unknown>>>;
  /** How many merchant calls to `path` the sandbox has received so far (faulted ones too). */
  callCount(path: string): Promise<number>;
  addFault(fault: Record<string, unknown>): Promise<void>;
  clearFaults(): Promise<void>;
}

export async function startHarness(options: ClickServiceOptions & { inProcess?: boolean } = {}): Promise<Harness> {
  const externalUrl = options.inProcess ? undefined : process.env.CLICK_SERVICE_URL;
  const service = externalUrl ? undefined : await startClickService({ ...options, port: 0 });
  const url = (externalUrl ?? service!.url).replace(/\/+$/, "");

  async function raw(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: string | Buffer | Readable } = {},
  ) {
    const response = await request(url + path, { method: method as "GET", headers: init.headers, body: init.body });
    const text = await response.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, text, json };
  }

  async function manage(method: string, path: string, body?: unknown, expected = 200): Promise<any> {
    const response = await raw(method, path, {
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
    return response.json;
  }

  return {
    url,
    external: externalUrl !== undefined,
    close: async () => service?.close(),
    raw,
    createApiKey: async () => (await manage("POST", "/sandbox/api-keys", undefined, 201)).apiKey,
    revokeApiKey: async (apiKey) => (await raw("DELETE", `/sandbox/api-keys/${encodeURIComponent(apiKey)}`)).status,
    createClick: (input) => manage("POST", "/sandbox/clicks", input, 201),
    verifications: async (clickId) =>
      (await manage("GET", `/sandbox/verifications?click_id=${encodeURIComponent(clickId)}`)).verifications,
    callCount: async (path) =>
      (await manage("GET", `/sandbox/requests?path=${encodeURIComponent(path)}`)).requests.length,
    addFault: (fault) => manage("POST", "/sandbox/faults", fault, 201),
    clearFaults: () => manage("DELETE", "/sandbox/faults", undefined, 204),
  };
}

export const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

let counter = 0;
/** Click ids unique across runs, so a shared external sandbox never answers 409. */
export const uniqueClickId = (label = "t") => `clk_${label}_${process.pid}_${Date.now().toString(36)}_${++counter}`;

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Starts a local stand-in server (port 0 picks a free one) and tells its base URL. */
export async function listen(server: Server, port = 0, host = "127.0.0.1"): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { url: `http://${hostForUrl}:${address.port}`, port: address.port };
}

/** A port free right now, for a server started in another process (which must bind it itself). */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const probe = createServer();
  const { port } = await listen(probe, 0, host);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

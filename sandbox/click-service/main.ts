// `npm run click-service`: the sandbox as a standalone process for local dev and the demo.
import { startClickService } from "./server";

const port = Number(process.env.PORT ?? 4010);
const host = process.env.HOST ?? "127.0.0.1";
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be an integer between 0 and 65535, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}

const service = await startClickService({ port, host, log: (line) => console.log(line) }).catch((error: unknown) => {
  // e.g. EADDRINUSE: one readable line beats a stack trace for "the port is taken".
  console.error(`Could not listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
const apiKey = service.createApiKey();
// The one deliberate print of a key: a sandbox key, for pasting into the app's settings.
console.log(`Click service sandbox listening on ${service.url}`);
console.log(`API key: ${apiKey}`);
console.log(`Management API: ${service.url}/sandbox (see sandbox/click-service/README.md)`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal} received, shutting down`);
  await service.close();
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));

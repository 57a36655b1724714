import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// Importing the production build (as server.mjs does, and its worker's thread, before either
// starts anything) opens nothing: no database connection, no SQLite file, no timer. The
// database client and the session storage's look at the Session table begin on first use, and
// the instance's start (app/instance/start.server.ts) starts the rest. A module that opened its
// database at import would make a process that only imports the app (a tool, a test, the build
// checked in an image) reach for a database it may not have, and stay alive on a retry timer.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SERVER_BUILD = path.join(ROOT, "build/server/index.js");
const scratch = mkdtempSync(path.join(tmpdir(), "tag-guard-import-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Imports the build in a process of its own, then lists what keeps that process alive (Node's
 * active resources: sockets, timers, file requests), and lets it end on its own.
 */
async function importBuild(databaseUrl: string): Promise<{ code: number | null; resources: string[]; output: string }> {
  const script = `
    await import(${JSON.stringify(pathToFileURL(SERVER_BUILD).href)});
    // A turn of the event loop, for anything the import set going.
    await new Promise((resolve) => setImmediate(resolve));
    console.log("resources " + JSON.stringify(process.getActiveResourcesInfo()));
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    // A host's environment, complete and valid, and nothing of the test runner's.
    env: {
      PATH: process.env.PATH,
      NODE_ENV: "production",
      NODE_OPTIONS: "",
      DATABASE_URL: databaseUrl,
      SHOPIFY_API_KEY: "import-api-key",
      SHOPIFY_API_SECRET: "import-api-secret",
      SHOPIFY_APP_URL: "https://tag-guard.test",
      SETTINGS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // Before the session storage looked at its table on first use, an import on a database that
  // did not answer stayed alive ten seconds on its retry timer.
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const late = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), 60_000).unref());
  const code = await Promise.race([exited, late]);
  if (code === "late") child.kill("SIGKILL");
  const listed = /^resources (.*)$/m.exec(output)?.[1];
  const resources = listed ? (JSON.parse(listed) as string[]) : [];
  // The child's own stdout and stderr, its pipes to this process, are expected.
  return {
    code: code === "late" ? null : code,
    resources: resources.filter((resource) => resource !== "PipeWrap" && resource !== "TTYWrap"),
    output,
  };
}

/** A TCP server standing where PostgreSQL should be, counting the connections made to it and closing each. */
async function countingServer(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

describe("importing the production build", () => {
  it("on PostgreSQL, attempts no connection, and leaves nothing running", async () => {
    const { server, port, connections } = await countingServer();
    try {
      const { code, resources, output } = await importBuild(`postgresql://tag:guard@127.0.0.1:${port}/tag_guard`);
      expect(output).toMatch(/^resources /m);
      expect(resources, output).toEqual([]);
      expect(code, output).toBe(0);
      expect(connections()).toBe(0);
      expect(output).not.toMatch(/sessions\.table_unreadable/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("on SQLite, creates no database file, and leaves nothing running", async () => {
    const folder = mkdtempSync(path.join(scratch, "sqlite-"));
    const file = path.join(folder, "app.sqlite");
    const { code, resources, output } = await importBuild(`file:${file}`);
    expect(output).toMatch(/^resources /m);
    expect(resources, output).toEqual([]);
    expect(code, output).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(folder)).toEqual([]);
    expect(output).not.toMatch(/sessions\.table_unreadable/);
  });
});

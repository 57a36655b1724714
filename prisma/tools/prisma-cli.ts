import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PRISMA_CLI = createRequire(import.meta.url).resolve("prisma/build/index.js");

/** Runs Prisma's CLI against DATABASE_URL = url (prisma.config.ts picks schema and adapter by it); returns stdout. */
export function prisma(args: string[], url: string): string {
  const result = spawnSync(process.execPath, [PRISMA_CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (result.status !== 0)
    throw new Error(`prisma ${args.join(" ")} failed:\n${result.stdout ?? ""}${result.stderr ?? ""}`);
  return result.stdout;
}

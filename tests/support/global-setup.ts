import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

// Migrate one template database per run with the project's real migrations; each test
// file then copies it (tests/support/setup-env.ts), so every file has its own real SQLite file.
export default function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), "tag-guard-test-"));
  const template = path.join(dir, "template.sqlite");
  execFileSync("npx", ["prisma", "migrate", "deploy"], {
    env: { ...process.env, DATABASE_URL: `file:${template}` },
    stdio: "pipe",
  });
  project.provide("templateDatabase", template);
  return () => rmSync(dir, { recursive: true, force: true });
}

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

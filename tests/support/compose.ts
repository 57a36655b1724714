import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { ROOT } from "./scratch-copy";

// compose.yaml as Docker Compose reads it, for tests/deploy/image-steps.test.ts: its services,
// their environment after Compose's variable substitution, their commands and replica counts.

export interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  env_file?: string | string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

export function readCompose(file = path.join(ROOT, "compose.yaml")): ComposeFile {
  // Compose reads YAML's merge keys (<<), which the file's shared app settings use.
  return parse(readFileSync(file, "utf8"), { merge: true }) as ComposeFile;
}

/** Compose's substitution: ${VAR}, ${VAR:-default}, ${VAR:?error}, and $$ for a dollar sign. */
export function interpolate(text: string, variables: Record<string, string | undefined>): string {
  return text.replace(/\$\$|\$\{(\w+)(?::([-?])([^}]*))?\}/g, (whole, name?: string, kind?: string, rest?: string) => {
    if (whole === "$$") return "$";
    const value = variables[name!];
    if (value !== undefined && value !== "") return value;
    if (kind === "-") return rest ?? "";
    if (kind === "?") throw new Error(`compose.yaml: ${name}: ${rest}`);
    return "";
  });
}

/** A service's environment, every value a string after substitution. */
export function serviceEnvironment(
  service: ComposeService,
  variables: Record<string, string | undefined>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolate(String(value ?? ""), variables)]),
  );
}

/** An env file's KEY=value lines (comments and blank lines skipped). */
export function readEnvFile(file: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const [, key, value] = /^(\w+)=(.*)$/.exec(line) ?? [];
    if (!key) throw new Error(`${file}: not KEY=value: ${line}`);
    values[key] = value!;
  }
  return values;
}

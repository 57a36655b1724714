import { spawn } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { ROOT, copyFiles, repositoryFiles } from "./scratch-copy";

// The Dockerfile read and its stages played without a container runtime, for
// tests/deploy/image-steps.test.ts. Only the instructions the Dockerfile uses are understood;
// any other fails the test, which then needs teaching rather than silently skipping a step.
// A stage's WORKDIR (/app) is a folder of its own; its files are what the stage's COPY and RUN
// put there; RUN runs with sh in that folder, with the stage's environment.

export interface Instruction {
  op: string;
  args: string;
  line: number;
}

export interface Stage {
  name: string;
  /** The image or earlier stage it starts from. */
  from: string;
  instructions: Instruction[];
}

/** The Dockerfile's stages in order, its ARG defaults substituted in FROM. */
export function readDockerfile(file = path.join(ROOT, "Dockerfile")): Stage[] {
  const text = readFileSync(file, "utf8");
  const instructions: Instruction[] = [];
  let pending = "";
  let start = 0;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimEnd();
    if (!pending && (line.trim() === "" || line.trimStart().startsWith("#"))) return;
    if (!pending) start = index + 1;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const whole = (pending + line).trim();
    pending = "";
    const [, op, args] = /^(\S+)\s*(.*)$/s.exec(whole)!;
    instructions.push({ op: op!.toUpperCase(), args: args!.trim(), line: start });
  });
  const argDefaults = new Map<string, string>();
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.op === "ARG" && stages.length === 0) {
      const [name, value = ""] = instruction.args.split("=");
      argDefaults.set(name!, value);
      continue;
    }
    if (instruction.op === "FROM") {
      const substituted = instruction.args.replace(/\$\{(\w+)\}/g, (_, name: string) => argDefaults.get(name) ?? "");
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(substituted) ?? [];
      if (!from) throw new Error(`Dockerfile:${instruction.line}: cannot read FROM ${instruction.args}`);
      stages.push({ name: name ?? String(stages.length), from, instructions: [] });
      continue;
    }
    if (stages.length === 0) throw new Error(`Dockerfile:${instruction.line}: ${instruction.op} before FROM`);
    stages.at(-1)!.instructions.push(instruction);
  }
  return stages;
}

/** A shell-form or exec-form (JSON array) command, as the argv it runs. */
export function commandOf(args: string): string[] {
  return args.startsWith("[") ? (JSON.parse(args) as string[]) : ["sh", "-c", args];
}

/**
 * Docker's .dockerignore rules over the repository's files: a path is left out when the last
 * rule matching it, or any folder it is in, excludes it (`!` rules include again).
 */
export function buildContext(): string[] {
  const rules = readFileSync(path.join(ROOT, ".dockerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const include = line.startsWith("!");
      const pattern = (include ? line.slice(1) : line).replace(/^\/+/, "").replace(/\/+$/, "");
      return { include, pattern };
    });
  const excluded = (file: string) => {
    const parts = file.split("/");
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
    let out = false;
    for (const { include, pattern } of rules)
      if (candidates.some((candidate) => path.matchesGlob(candidate, pattern))) out = !include;
    return out;
  };
  return repositoryFiles().filter((file) => !excluded(file));
}

export interface PlayedStage {
  dir: string;
  env: Record<string, string>;
  user: string | null;
  exposed: string[];
  volumes: string[];
  healthcheck: string[] | null;
  cmd: string[] | null;
}

export interface PlayOptions {
  /**
   * Where the stages are played: each in `scratch/app`, as each has its WORKDIR at /app (tools
   * that key caches by path, as Prisma's config loader does, then find them where they were
   * made), and then kept in `scratch/stages/<name>` for the stages after it.
   */
  scratch: string;
  /** Stages played already, or stood in for (the build stage is the repository's own build). */
  played: Map<string, PlayedStage>;
  /** More environment for RUN (npm's offline preference: the machine's cache, not the registry). */
  runEnv?: Record<string, string>;
  log?: (line: string) => void;
}

const WORKDIR = "/app";

/**
 * Plays one stage; returns what it made and what it declares. The last stage (`keep`) stays in
 * `scratch/app`, the image's /app; the others are moved aside once played.
 */
export async function playStage(
  stages: Stage[],
  name: string,
  options: PlayOptions,
  keep = name === stages.at(-1)?.name,
): Promise<PlayedStage> {
  const stage = stages.find((each) => each.name === name);
  if (!stage) throw new Error(`the Dockerfile has no stage ${name}`);
  const dir = path.join(options.scratch, "app");
  if (existsSync(dir)) throw new Error(`${dir} is taken: the stage before was kept`);
  mkdirSync(dir, { recursive: true });
  const parent = options.played.get(stage.from);
  if (parent) cpSync(parent.dir, dir, { recursive: true });
  const played: PlayedStage = {
    dir,
    env: { ...parent?.env },
    user: parent?.user ?? null,
    exposed: [],
    volumes: [],
    healthcheck: null,
    cmd: null,
  };
  const context = buildContext();
  const local = (target: string) => {
    if (!target.startsWith("/")) return path.join(dir, target);
    if (target !== WORKDIR && !target.startsWith(`${WORKDIR}/`))
      throw new Error(`a path outside ${WORKDIR}: ${target}`);
    return path.join(dir, target.slice(WORKDIR.length));
  };
  for (const { op, args, line } of stage.instructions) {
    const where = `Dockerfile:${line}`;
    switch (op) {
      case "WORKDIR":
        if (args !== WORKDIR) throw new Error(`${where}: only WORKDIR ${WORKDIR} is played`);
        break;
      case "ENV": {
        const [, key, value] = /^(\w+)=(.*)$/.exec(args) ?? [];
        if (!key) throw new Error(`${where}: only ENV KEY=value is played`);
        played.env[key] = value!.replace(/^"(.*)"$/, "$1");
        break;
      }
      case "COPY": {
        const words = args.split(/\s+/);
        const flags = words.filter((word) => word.startsWith("--"));
        const paths = words.filter((word) => !word.startsWith("--"));
        const from = flags.find((flag) => flag.startsWith("--from="))?.slice("--from=".length);
        const destination = paths.pop()!;
        for (const source of paths) copyInto(source, destination, from);
        break;
      }
      case "RUN": {
        const command = commandOf(args);
        options.log?.(`RUN ${args}`);
        const code = await run(command, dir, { ...played.env, ...options.runEnv }, options.scratch);
        if (code !== 0) throw new Error(`${where}: RUN ${args} exited ${code}`);
        break;
      }
      case "USER":
        played.user = args;
        break;
      case "EXPOSE":
        played.exposed.push(...args.split(/\s+/));
        break;
      case "VOLUME":
        played.volumes.push(...args.split(/\s+/));
        break;
      case "HEALTHCHECK":
        played.healthcheck = commandOf(args.replace(/^(--\S+\s+)*CMD\s+/, ""));
        break;
      case "CMD":
        played.cmd = commandOf(args);
        break;
      default:
        throw new Error(`${where}: ${op} is not played by tests/support/dockerfile.ts`);
    }
  }
  if (keep) return played;
  const aside = path.join(options.scratch, "stages", name);
  mkdirSync(path.dirname(aside), { recursive: true });
  renameSync(dir, aside);
  return { ...played, dir: aside };

  function copyInto(source: string, destination: string, from: string | undefined): void {
    const target = local(destination);
    if (from !== undefined) {
      const origin = options.played.get(from);
      if (!origin) throw new Error(`COPY --from=${from}: that stage was not played`);
      const sourcePath = source.startsWith("/") ? path.join(origin.dir, source.slice(WORKDIR.length)) : source;
      if (sourcePath === origin.dir && origin.dir.startsWith(path.join(options.scratch, "stages"))) {
        // A whole stage played here: its files are moved rather than copied (tens of thousands of
        // files in node_modules), and the stage cannot be copied from again.
        mkdirSync(target, { recursive: true });
        for (const entry of readdirSync(origin.dir)) renameSync(path.join(origin.dir, entry), path.join(target, entry));
        options.played.delete(from);
        return;
      }
      // The repository's build folder also holds the bench's build, which the image's build stage never makes.
      const benchBuild = path.join(origin.dir, "build", "bench");
      cpSync(sourcePath, target, { recursive: true, filter: (file) => file !== benchBuild });
      return;
    }
    // From the build context: a file, or a folder and everything under it, as .dockerignore leaves them.
    const clean = source.replace(/^\.\//, "").replace(/\/$/, "");
    const matching = clean === "." ? context : context.filter((file) => file === clean || file.startsWith(`${clean}/`));
    if (matching.length === 0) throw new Error(`COPY ${source}: not in the build context (.dockerignore)`);
    const into = destination.endsWith("/") || clean === "." || matching.length > 1 ? target : path.dirname(target);
    if (clean === ".") return copyFiles(matching, into);
    const base = matching.length === 1 && matching[0] === clean ? path.dirname(clean) : clean;
    for (const file of matching) {
      const relative = base === "." ? file : path.relative(base, file);
      const destinationPath = path.join(into, relative);
      mkdirSync(path.dirname(destinationPath), { recursive: true });
      cpSync(path.join(ROOT, file), destinationPath);
    }
  }
}

/** The stand-in for a command the machine cannot play as the image does (no such user here). */
function shims(scratch: string): string {
  const dir = path.join(scratch, ".shims");
  if (!existsSync(path.join(dir, "chown"))) {
    mkdirSync(dir, { recursive: true });
    // The image's `node` user does not exist on this machine: ownership is the one step not played.
    writeFileSync(path.join(dir, "chown"), "#!/bin/sh\nexit 0\n");
    chmodSync(path.join(dir, "chown"), 0o755);
  }
  return dir;
}

/**
 * The machine's own settings a build on it would be given too: how it reaches the registry and
 * where npm keeps its cache, whom it trusts. Never npm's other settings of the command running
 * the tests (`npm test` sets the project's own folder among them).
 */
const MACHINE_SETTINGS =
  /^(PATH|HOME|TMPDIR|LANG|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|(https?|no)_proxy|npm_config_(cache|registry|userconfig|globalconfig|cafile|strict_ssl|proxy|https_proxy|noproxy))$/i;

/**
 * The environment a container starts with: the machine's settings (a search path, a home, its
 * network's proxies and certificates), nothing of this test process's own (its DATABASE_URL, its
 * NODE_ENV), then what the image and the caller set.
 */
export function containerEnv(...layers: Record<string, string | undefined>[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && MACHINE_SETTINGS.test(key)) env[key] = value;
  // None of the repository's own binaries (`npm test` puts its node_modules/.bin first): a command
  // the image runs must find what it needs in the image (Node itself is the machine's).
  env.PATH = (env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir && !path.resolve(dir).startsWith(`${ROOT}${path.sep}`))
    .join(path.delimiter);
  for (const layer of layers)
    for (const [key, value] of Object.entries(layer)) if (value !== undefined) env[key] = value;
  return env;
}

function run(command: string[], cwd: string, env: Record<string, string>, scratch: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), {
      cwd,
      env: containerEnv(env, {
        PATH: `${shims(scratch)}${path.delimiter}${containerEnv().PATH}`,
      }) as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) process.stderr.write(output);
      resolve(code);
    });
  });
}

/** Whether `file` (a path in a played stage) exists as a folder. */
export const isFolder = (file: string) => existsSync(file) && statSync(file).isDirectory();

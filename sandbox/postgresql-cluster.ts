import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./listen";

// A throwaway PostgreSQL cluster (the test run's, the chaos run's), from the installed binaries: created in a
// temporary folder, listening on loopback only, trusted without a password, deleted at the end.
// `npx tsx sandbox/postgresql-cluster.ts` starts one by hand and prints its URL.

/** TEST_POSTGRES_URL names an existing server to use instead (its user needs CREATEDB). */
export const SERVER_VARIABLE = "TEST_POSTGRES_URL";

const DEBIAN_VERSIONS = "/usr/lib/postgresql";

/** The folder holding initdb and pg_ctl: on PATH, else Debian's newest /usr/lib/postgresql/N/bin. */
export function postgresqlBinaries(): string | null {
  const hasBoth = (dir: string) => existsSync(path.join(dir, "initdb")) && existsSync(path.join(dir, "pg_ctl"));
  const onPath = (process.env.PATH ?? "").split(path.delimiter).find((dir) => dir && hasBoth(dir));
  if (onPath) return onPath;
  if (!existsSync(DEBIAN_VERSIONS)) return null;
  const versions = readdirSync(DEBIAN_VERSIONS)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => path.join(DEBIAN_VERSIONS, version, "bin")).find(hasBoth) ?? null;
}

/** Why PostgreSQL suites cannot run here, or null when they can. */
export function postgresqlMissing(): string | null {
  if (process.env[SERVER_VARIABLE]) return null;
  if (postgresqlBinaries()) return null;
  return `no PostgreSQL found: install it (Debian: apt-get install postgresql) or set ${SERVER_VARIABLE} to a server`;
}

export interface Cluster {
  /** Superuser URL of the cluster's "postgres" database. */
  url: string;
  /**
   * Stops the server at once (as a crash does), keeping its data: connections are refused until
   * up(). Both wait without blocking the caller's event loop: a loop blocked for the seconds a
   * loaded machine's pg_ctl takes misses the close of every idle keep-alive connection to its
   * servers, and the next request on one of them reads ECONNRESET.
   */
  down(): Promise<void>;
  /** The server's main process (its backends are its children), while it runs. */
  serverPid(): number;
  /** Starts the server again on the same port and data, after down(). */
  up(): Promise<void>;
  stop(): void;
}

export interface ClusterOptions {
  /**
   * Commits flushed before they are acknowledged, as a production server runs: needed where a
   * test takes the server down and counts on what was acknowledged. Off by default: a cluster
   * deleted at the end of the run has nothing to keep, and runs faster without.
   */
  durable?: boolean;
  /** Libraries the server preloads (shared_preload_libraries), e.g. pg_stat_statements for the bench's probe. */
  preload?: string[];
}

export async function startCluster(binaries: string, clusterOptions: ClusterOptions = {}): Promise<Cluster> {
  const dir = mkdtempSync(path.join(tmpdir(), "tag-guard-postgresql-"));
  // initdb and the server refuse to run as root: as root, they run as the postgres user that
  // Debian's package creates, in a folder (and from a working directory) that user owns.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, id("-u"), id("-g"));
  }
  const command = (program: string, args: string[]): [string, string[]] => {
    const file = path.join(binaries, program);
    return asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  };
  const run = (program: string, args: string[]) => {
    execFileSync(...command(program, args), { cwd: dir, stdio: "pipe" });
  };
  const runWithoutBlocking = async (program: string, args: string[]) => {
    await promisify(execFile)(...command(program, args), { cwd: dir });
  };
  const data = path.join(dir, "data");
  const log = path.join(dir, "server.log");
  // The C locale sorts text by bytes, as SQLite does.
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = await freePort();
  const durability = clusterOptions.durable ? "" : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off";
  const preload = clusterOptions.preload?.length
    ? ` -c shared_preload_libraries=${clusterOptions.preload.join(",")}`
    : "";
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${durability}${preload}`;
  try {
    run("pg_ctl", ["-D", data, "-l", log, "-o", options, "-w", "start"]);
  } catch (error) {
    const output = existsSync(log) ? readFileSync(log, "utf8") : "";
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`the throwaway PostgreSQL cluster did not start: ${String(error)}\n${output}`);
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    async down() {
      await runWithoutBlocking("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    },
    serverPid() {
      return Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    },
    async up() {
      await runWithoutBlocking("pg_ctl", ["-D", data, "-l", log, "-o", options, "-w", "start"]);
    },
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  const binaries = postgresqlBinaries();
  if (!binaries) {
    console.error(postgresqlMissing());
    process.exit(1);
  }
  const cluster = await startCluster(binaries);
  console.log(`${cluster.url}\n(Ctrl-C stops it and deletes its data)`);
  const stop = () => {
    cluster.stop();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  setInterval(() => {}, 1 << 30);
}

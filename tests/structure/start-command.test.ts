import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP_ENV, APP_SERVER_ARGS } from "../../sandbox/demo/app-process";
import { commandOf, readDockerfile } from "../support/dockerfile";

// The demo, the benchmarks and the browser tests start the built app as a host does with
// `npm start`: the same environment, the same node flags, the same server, the same build.

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("npm start", () => {
  it("runs exactly what the demo, the benchmarks and the browser tests run", () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    const relative = APP_SERVER_ARGS.map((arg) =>
      path.isAbsolute(arg) ? `./${path.relative(ROOT, arg)}`.replace(/^\.\/server\.mjs$/, "server.mjs") : arg,
    );
    const environment = Object.entries(APP_ENV).map(([name, value]) => `${name}=${value}`);
    expect(scripts.start).toBe(["env", ...environment, "node", ...relative].join(" "));
  });

  it("is the image's command, run without npm in between (npm passes no stop signal on)", () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    const run = readDockerfile().at(-1)!;
    const cmd = run.instructions.filter((instruction) => instruction.op === "CMD").at(-1)!;
    expect(commandOf(cmd.args)).toEqual(scripts.start!.split(" "));
  });
});

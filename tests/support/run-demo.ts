import { spawn } from "node:child_process";

// Runs `npm run demo` as a user would, as a separate process: its exit code and output, and each
// line as it comes (with a way to stop it there).

export function runDemo(
  args: string[],
  onLine?: (line: string, stop: () => void) => void,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // One node process with tsx as a loader, so SIGTERM reaches the demo itself (npm 11's
    // `npx` does not forward it, which would orphan the demo and its app).
    const child = spawn(process.execPath, ["--import", "tsx", "sandbox/demo/main.ts", ...args], {
      cwd: process.cwd(),
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of chunk.toString().split("\n")) onLine?.(line, () => child.kill("SIGTERM"));
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

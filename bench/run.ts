// `npm run bench`: runs every bench/*.bench.ts that exports main(): Promise<boolean>, in turn.
// Benchmarks are run by hand or in a scheduled job, never as part of `npm test`.
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2).find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
let failed = false;
for (const file of readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .sort()) {
  if (only && !file.includes(only)) continue;
  console.log(`\n=== ${file}`);
  const bench = (await import(pathToFileURL(path.join(here, file)).href)) as { main?: () => Promise<boolean> };
  if (typeof bench.main !== "function") continue;
  const ok = await bench.main();
  console.log(ok ? `${file}: within budget` : `${file}: OVER BUDGET`);
  if (!ok) failed = true;
}
process.exitCode = failed ? 1 : 0;

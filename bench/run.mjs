// Run every benchmark in bench/ (full sizes). `npm run bench -- --smoke` runs the small sizes.
// Each benchmark measures a baseline in the same run and prints ratios; none of them fails on time.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const dir = new URL(".", import.meta.url).pathname;
let status = 0;
for (const f of readdirSync(dir).sort()) {
  if (!f.endsWith(".mjs") || f === "run.mjs" || f.startsWith("_")) continue;
  process.stdout.write(`\n# ${f}\n`);
  const r = spawnSync(process.execPath, [join(dir, f), ...process.argv.slice(2)], { stdio: "inherit" });
  if (r.status !== 0) status = 1;
}
process.exit(status);

// Core hot paths vs baselines in the same run; prints ratios, never fails on time.
// `node bench/core.mjs [--smoke]` (the TypeScript runs through scripts/run-ts.mjs).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const r = spawnSync(process.execPath, ["scripts/run-ts.mjs", "bench/_core.ts", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
process.exit(r.status ?? 1);

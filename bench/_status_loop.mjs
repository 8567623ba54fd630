// `git status` N times in the cwd, timed one by one; prints the median in ms (bench/sandbox.mjs
// runs it inside a sandbox and outside one, so the sandbox's start-up is not in the number).
import { spawnSync } from "node:child_process";

const n = Number(process.argv[2] ?? 10);
const times = [];
for (let i = 0; i <= n; i++) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync("git", ["status", "--porcelain"], { stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) process.exit(r.status ?? 1);
  if (i > 0) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
console.log(times[Math.floor(times.length / 2)].toFixed(2));

// Interleaved start-up measurement shared by the benchmarks that import it: every command runs to
// completion with spawnSync (no shell), one run of each per round, so load on this shared
// machine hits all alike; a first round warms the page cache and is not counted. Wall time is
// the median; CPU is the reaped children's user+sys from the cutime/cstime fields of
// /proc/self/stat (Linux; clock ticks, so summed over the runs and averaged). Ratios are
// printed, never asserted.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { loadAverage } from "./_env.mjs";

const TICK_MS = 10; // USER_HZ is 100 on Linux
const haveProcStat = existsSync("/proc/self/stat");

/** User+sys CPU ms of this process's reaped children so far (NaN without /proc). */
export function childCpuMs() {
  if (!haveProcStat) return Number.NaN;
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the comm field: state is index 0, so cutime (16) and cstime (17) are 13 and 14 here.
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** The middle of `xs` once sorted (of an even count, the upper of the two middles). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * @param {{ label: string, cmd: string, args: string[], input?: string, env?: Record<string, string> }[]} commands
 *   the first is the baseline; `input`, when given, is written to the command's stdin; `env`, when
 *   given, is that command's environment (else the options')
 * @param {{ runs: number, cwd: string, env?: Record<string, string> }} options
 * @returns {{ label: string, wall: number, cpu: number }[]} median wall ms, mean CPU ms
 */
export function measureInterleaved(commands, { runs, cwd, env = process.env }) {
  const walls = commands.map(() => []);
  const cpu = commands.map(() => 0);
  for (let round = 0; round <= runs; round++) {
    commands.forEach(({ label, cmd, args, input, env: own }, i) => {
      const c0 = childCpuMs();
      const t0 = process.hrtime.bigint();
      const stdin = input === undefined ? "ignore" : "pipe";
      const r = spawnSync(cmd, args, { cwd, env: own ?? env, input, stdio: [stdin, "ignore", "pipe"] });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`${label} failed (${r.status ?? r.error?.message}): ${r.stderr}`);
      if (round === 0) return;
      walls[i].push(ms);
      cpu[i] += childCpuMs() - c0;
    });
  }
  return commands.map(({ label }, i) => ({ label, wall: median(walls[i]), cpu: cpu[i] / runs }));
}

/**
 * Print one line per command with its ratios to the first (the baseline); the labels are padded
 * to `width` (default: the longest label and two spaces).
 */
export function printRatios(title, results, width = Math.max(...results.map((r) => r.label.length)) + 2) {
  const [base] = results;
  console.log(`${title}, load average ${loadAverage()}`);
  for (const r of results) {
    console.log(
      `${r.label.padEnd(width)} wall ${r.wall.toFixed(0).padStart(5)} ms ${(r.wall / base.wall).toFixed(2)}x` +
        `   cpu ${r.cpu.toFixed(0).padStart(5)} ms ${(r.cpu / base.cpu).toFixed(2)}x`,
    );
  }
}

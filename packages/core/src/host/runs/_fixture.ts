/**
 * For tests only (the core's own and the e2e suites'; the build leaves `_fixture.ts` out): which
 * processes a process has started. Linux: reads /proc.
 * @internal
 *
 * @example
 * ```ts
 * childrenOf(process.pid, "perl"); // e.g. [4242], the hole punch helper
 * ```
 */
import { readdirSync, readFileSync } from "node:fs";

/** Live (not zombie) children of `pid` whose command name is `comm`, from /proc. */
export function childrenOf(pid: number, comm: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) === pid && state !== "Z" && stat.includes(`(${comm})`)) out.push(Number(p));
    } catch {}
  }
  return out;
}

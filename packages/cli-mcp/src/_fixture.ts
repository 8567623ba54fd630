/**
 * For tests only: a stand-in for each bundled CLI that ariel-mcp calls (ARIEL_MCP_BIN_DIR), told
 * what to do by FAKE in its environment.
 * @internal
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FAKE_CLI = String.raw`
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const mode = process.env.FAKE;
if (mode === "echo") {
  say({ v: 1, type: "argv", argv: process.argv.slice(2), cwd: process.cwd(), noColor: process.env.NO_COLOR });
  process.stdout.write("not a record\n{\"broken\n[1,2]\nnull\n");
  process.stderr.write("warning: one\n\n   \nwarning: two\n");
  process.stdout.write('{"v":1,"type":"last"}');
} else if (mode === "fail") {
  process.stderr.write("note: before\n");
  process.stderr.write(JSON.stringify({ v: 1, type: "error", code: "ERR_DIRTY", message: "m", hint: "h", exit: 3 }) + "\n");
  process.stderr.write(JSON.stringify({ v: 1, type: "warning", code: "W" }) + "\n");
  process.exitCode = 3;
} else if (mode === "split") {
  const b = Buffer.from(JSON.stringify({ v: 1, type: "text", s: "é€" }) + "\n");
  const cut = b.indexOf(0xe2) + 1; // inside the euro sign's three bytes
  process.stdout.write(b.subarray(0, cut));
  setTimeout(() => process.stdout.write(b.subarray(cut)), 100);
} else if (mode === "flood") {
  const line = JSON.stringify({ v: 1, type: "output", data: "x".repeat(1000) }) + "\n";
  process.stdout.write(line.repeat(1100));
} else if (mode === "sleep" || mode === "stubborn") {
  if (mode === "stubborn") process.on("SIGTERM", () => {});
  const g = require("node:child_process").spawn("sleep", ["300"], { stdio: "ignore" });
  say({ v: 1, type: "grandchild", pid: g.pid, source: String(g.pid) });
  setInterval(() => {}, 1000);
} else if (mode === "slow") {
  setTimeout(() => say({ v: 1, type: "slow", done: true }), Number(process.env.SLOW_MS ?? 500));
} else if (mode === "self") {
  process.kill(process.pid, process.env.SIG);
  setInterval(() => {}, 1000);
}
`;

/** A directory of stand-ins, one per CLI. */
export function binDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ariel-mcp-call-"));
  for (const cli of ["discover", "worktree", "spawn", "runs"])
    writeFileSync(join(dir, `ariel-${cli}.cjs`), FAKE_CLI);
  return dir;
}

/** Alive and not a zombie (nothing reaps an orphan in some containers). */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Wait for `ok`, at most `ms`. */
export async function until(ok: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

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
  process.stdout.write("not a record\n{\"broken\n[1,2]\nnull\n {\"v\":1,\"indented\":true}\n");
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
} else if (mode === "exact" || mode === "overflow") {
  // lines of a given length, newline included: 1024 of 1024 bytes fill the 1 MiB cap exactly
  const line = (n) => JSON.stringify({ v: 1, type: "pad", d: "x".repeat(n - 28) }) + "\n";
  if (mode === "exact") process.stdout.write(line(1024).repeat(1024) + line(40));
  else process.stdout.write(line(1024).repeat(1023) + line(2000) + line(100));
} else if (mode === "orphan") {
  // exits at once, leaving a process that holds its stdout
  const g = require("node:child_process").spawn("sleep", ["300"], { stdio: ["ignore", "inherit", "ignore"] });
  process.stderr.write("grandchild " + g.pid + "\n");
  process.exit(0);
} else if (mode === "stdin") {
  let got = "";
  process.stdin.on("data", (d) => (got += d)).on("end", () => say({ v: 1, type: "stdin", got }));
} else if (mode === "progress") {
  say({ v: 1, type: "task", action: "created", task: "t1" });
  say({ v: 1, type: "run", event: "run.started", action: "x", source: "api", task: "t2" });
  say({ v: 1, type: 7, n: 1 });
} else if (mode === "nohint") {
  process.stderr.write(JSON.stringify({ v: 1, type: "error", code: "ERR_X", message: "m", exit: 2 }) + "\n");
  process.exitCode = 2;
} else if (mode === "chatty") {
  for (let i = 1; i <= 25; i++) process.stderr.write("line " + i + "\n");
  process.exitCode = Number(process.env.EXIT ?? 1);
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

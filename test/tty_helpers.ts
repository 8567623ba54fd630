/**
 * A client on a terminal of its own for tests of tty runs: `ariel-runs attach` under a
 * pseudo-terminal (`@lydell/node-pty`, as the monitor uses), with what it printed so far.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { cliCommand, cliEnv, REPO_ROOT } from "./helpers/cli.ts";
import { track } from "./runs_helpers.ts";

export interface Pty {
  pid: number;
  onData(f: (d: string) => void): void;
  onExit(f: (e: { exitCode: number }) => void): void;
  write(s: string): void;
  resize(c: number, r: number): void;
  kill(sig?: string): void;
}

const nodePty = createRequire(join(REPO_ROOT, "packages/core/package.json"))("@lydell/node-pty") as {
  spawn(f: string, a: string[], o: Record<string, unknown>): Pty;
};

/** `ariel-runs attach -C root …args` on a terminal of its own: its pty, its output so far, its end. */
export function attachOnTerminal(root: string, args: string[], env: Record<string, string> = {}) {
  const [exe, ...pre] = cliCommand("runs");
  const p = nodePty.spawn(exe!, [...pre, "attach", "-C", root, ...args], {
    cols: 80,
    rows: 24,
    cwd: root,
    env: cliEnv(env),
    name: "xterm-256color",
  });
  track(p.pid);
  const io = { out: "" };
  p.onData((d) => {
    io.out += d;
  });
  const done = new Promise<number>((resolve) => p.onExit((e) => resolve(e.exitCode)));
  return { p, io, done };
}

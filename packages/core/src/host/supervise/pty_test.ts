/**
 * A child on a real pseudo-terminal (node-pty): the size it sees, its exit code or signal, keys
 * typed into it, ^D as the end of input, a resize it sees, the TERM it gets, and every byte it
 * wrote before it exited read before the exit is told.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type PtyChild, spawnOnPty } from "./pty.ts";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

/** Start `script` (sh) on a terminal of `rows`×`cols`; collect its output until it exits. */
async function onPty(script: string, size = { cols: 100, rows: 30 }, extra: Record<string, string> = {}) {
  const child = await spawnOnPty(["sh", "-c", script], { cwd: "/", env: { ...env, ...extra }, size });
  let out = "";
  child.on("data", (b: Buffer) => {
    out += b.toString("utf8");
  });
  const exit = new Promise<[number | null, string | null]>((resolve) =>
    child.on("exit", (code: number | null, signal: string | null) => resolve([code, signal])),
  );
  return { child, exit, out: () => out };
}

async function until(f: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("spawnOnPty", () => {
  it("the child sees a terminal of the size asked for, and TERM; its exit code is told", async () => {
    const r = await onPty('test -t 0 && stty size; echo "term=$TERM"; exit 3', { cols: 91, rows: 27 });
    expect(await r.exit).toEqual([3, null]);
    expect(r.out()).toContain("27 91\r\n");
    expect(r.out()).toContain("term=xterm-256color\r\n");
  });

  it("the run's own TERM is kept", async () => {
    const r = await onPty('echo "term=$TERM"', undefined, { TERM: "vt100" });
    await r.exit;
    expect(r.out()).toContain("term=vt100\r\n");
  });

  it("a child killed by a signal: no code, the signal's name", async () => {
    const r = await onPty("kill -TERM $$");
    expect(await r.exit).toEqual([null, "SIGTERM"]);
  });

  it("keys typed are read by the child; ^D ends its input", async () => {
    const r = await onPty('read line; echo "got:$line"; cat; echo "cat ended"');
    r.child.stdin.write(new TextEncoder().encode("abc\r"));
    await until(() => r.out().includes("got:abc"));
    r.child.stdin.end();
    expect(await r.exit).toEqual([0, null]);
    expect(r.out()).toContain("got:abc\r\n");
    expect(r.out()).toContain("cat ended\r\n");
  });

  it("a resize is seen by the child; the same size again changes nothing", async () => {
    const r = await onPty("trap 'stty size' WINCH; echo ready; while :; do sleep 0.05; done");
    await until(() => r.out().includes("ready"));
    r.child.resize({ cols: 120, rows: 40 });
    await until(() => r.out().includes("40 120"));
    expect(r.out()).toContain("40 120\r\n");
    expect(r.child.size).toEqual({ cols: 120, rows: 40 });
    const sizes = () =>
      r
        .out()
        .split("\r\n")
        .filter((l) => /^\d+ \d+$/.test(l));
    r.child.resize({ cols: 120, rows: 40 });
    r.child.resize({ cols: 120, rows: 50 });
    await until(() => r.out().includes("50 120"));
    r.child.resize({ cols: 100, rows: 50 });
    await until(() => r.out().includes("50 100"));
    expect(sizes()).toEqual(["40 120", "50 120", "50 100"]);
    r.child.pty.kill("SIGKILL");
    expect(await r.exit).toEqual([null, "SIGKILL"]);
  });

  it("every byte the child wrote before it exited is read before the exit is told", async () => {
    const r = await onPty("i=0; while [ $i -lt 2000 ]; do echo line-$i; i=$((i+1)); done; printf END");
    await r.exit;
    expect(r.out()).toContain("line-1999\r\n");
    expect(r.out().endsWith("END")).toBe(true);
  });

  it("keys to a child that is gone are dropped, not thrown", async () => {
    const r = await onPty("exit 0");
    await r.exit;
    const child: PtyChild = r.child;
    expect(() => child.write("late")).not.toThrow();
  });

  it("the terminal's end this process held is closed when the child exits: no descriptor left", async () => {
    const fds = () => readdirSync("/proc/self/fd").length;
    const r0 = await onPty("exit 0");
    await r0.exit;
    await new Promise((r) => setTimeout(r, 50));
    const before = fds();
    for (let i = 0; i < 3; i++) {
      const r = await onPty("exit 0");
      await r.exit;
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(fds()).toBe(before);
  });
});

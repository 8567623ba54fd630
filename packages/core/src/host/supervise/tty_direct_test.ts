import { closeSync, constants as fsConstants, fstatSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openTerminal, ownTerminal, type TerminalId } from "./tty_direct.ts";

// The monitor opens an attach client's terminal only when the device at the path the client
// names is the very one the client holds (decision 0091).

interface Pty {
  readonly ptsName: string;
  onData(f: (d: string) => void): void;
  kill(signal?: string): void;
}
const nodePty = createRequire(join(import.meta.dirname, "../../../package.json"))("@lydell/node-pty") as {
  spawn(f: string, a: string[], o: Record<string, unknown>): Pty;
};

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanups.splice(0)) f();
});

/** A pseudo-terminal with `cat` on it, and the identity of its terminal device. */
function terminal(): { pty: Pty; id: TerminalId } {
  const pty = nodePty.spawn("cat", [], { cols: 80, rows: 24, env: { PATH: process.env.PATH } });
  cleanups.push(() => pty.kill("SIGKILL"));
  const fd = openSync(pty.ptsName, fsConstants.O_RDWR | fsConstants.O_NOCTTY);
  const s = fstatSync(fd);
  closeSync(fd);
  return { pty, id: { path: pty.ptsName, dev: s.dev, ino: s.ino, rdev: s.rdev } };
}

describe("openTerminal", () => {
  it("opens the terminal the client described: what is written there reaches it", async () => {
    const { pty, id } = terminal();
    let seen = "";
    const echoed = new Promise<void>((resolve) =>
      pty.onData((d) => {
        seen += d;
        if (seen.includes("hello")) resolve();
      }),
    );
    const t = openTerminal(id);
    expect(t).not.toBeNull();
    cleanups.push(() => t?.destroy());
    t?.write("hello");
    await echoed;
    expect(seen).toContain("hello");
  });

  it("refuses another device, a path that is no pseudo-terminal, or no identity at all", () => {
    const { id } = terminal();
    for (const bad of [
      { ...id, ino: id.ino + 1 },
      { ...id, dev: id.dev + 1 },
      { ...id, rdev: id.rdev + 1 },
      { ...id, path: "/dev/tty" },
      { ...id, path: "/dev/pts/../null" },
      { ...id, path: "/dev/pts/999999" },
      { ...id, ino: "1" },
      null,
      "/dev/pts/0",
    ])
      expect(openTerminal(bad), JSON.stringify(bad)).toBeNull();
  });
});

describe("ownTerminal", () => {
  it("is null for streams that are not one terminal (pipes, files)", () => {
    expect(ownTerminal({ isTTY: false, fd: 0 }, { isTTY: false, fd: 1 })).toBeNull();
    expect(ownTerminal({ isTTY: true }, { isTTY: true })).toBeNull();
    const fd = openSync("/dev/null", "r");
    cleanups.push(() => closeSync(fd));
    expect(ownTerminal({ isTTY: true, fd }, { isTTY: true, fd })).toBeNull();
  });
});

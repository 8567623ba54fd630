/**
 * More of the direct attach's terminals, beyond tty_direct_test.ts: the client's own terminal as
 * ownTerminal names it (one pseudo-terminal on input and output, unless ARIEL_ATTACH_DIRECT=0),
 * and the identities openTerminal refuses however close they come to a terminal's (a path
 * outside /dev/pts that leads to it, a path that is no string, an identity that is no object)
 * or accepts (a terminal numbered past 9).
 */
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openTerminal, ownTerminal, type TerminalId } from "./tty_direct.ts";

interface Pty {
  readonly ptsName: string;
  onData(f: (d: string) => void): void;
  kill(signal?: string): void;
}
const nodePty = createRequire(join(import.meta.dirname, "../../../package.json"))("@lydell/node-pty") as {
  spawn(f: string, a: string[], o: Record<string, unknown>): Pty;
};

const cleanups: (() => void)[] = [];
const direct = process.env.ARIEL_ATTACH_DIRECT;
afterEach(() => {
  for (const f of cleanups.splice(0).reverse()) f();
  if (direct === undefined) delete process.env.ARIEL_ATTACH_DIRECT;
  else process.env.ARIEL_ATTACH_DIRECT = direct;
});

/** A pseudo-terminal with `cat` on it (ended after the test). */
function pty(): Pty {
  const p = nodePty.spawn("cat", [], { cols: 80, rows: 24, env: { PATH: process.env.PATH } });
  cleanups.push(() => p.kill("SIGKILL"));
  return p;
}

/** The terminal at `path` opened here (closed after the test): its fd and identity. */
function open(path: string): { fd: number; id: TerminalId } {
  const fd = openSync(path, fsConstants.O_RDWR | fsConstants.O_NOCTTY);
  cleanups.push(() => closeSync(fd));
  const s = fstatSync(fd);
  return { fd, id: { path, dev: s.dev, ino: s.ino, rdev: s.rdev } };
}

/** A pseudo-terminal numbered 10 or more (those before it kept open meanwhile). */
function twoDigitPty(): Pty {
  for (let i = 0; i < 64; i++) {
    const p = pty();
    if (Number(p.ptsName.slice("/dev/pts/".length)) >= 10) return p;
  }
  throw new Error("no pseudo-terminal numbered 10 or more");
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "ariel-tty-"));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

describe("ownTerminal: the one pseudo-terminal this process reads and writes", () => {
  it.each([
    ["ARIEL_ATTACH_DIRECT unset", undefined, true],
    ["ARIEL_ATTACH_DIRECT=1", "1", true],
    ["ARIEL_ATTACH_DIRECT=0: the client relays", "0", false],
  ])("%s", (_name, env, named) => {
    if (env === undefined) delete process.env.ARIEL_ATTACH_DIRECT;
    else process.env.ARIEL_ATTACH_DIRECT = env;
    const p = pty();
    const a = open(p.ptsName);
    const b = open(p.ptsName);
    const got = ownTerminal({ isTTY: true, fd: a.fd }, { isTTY: true, fd: b.fd });
    expect(got).toEqual(named ? a.id : null);
  });

  it("is null unless both are terminals with an fd, the same one, and open", () => {
    delete process.env.ARIEL_ATTACH_DIRECT;
    const one = open(pty().ptsName);
    const other = open(pty().ptsName);
    const nul = openSync("/dev/null", "r+");
    cleanups.push(() => closeSync(nul));
    const cases: [string, { isTTY?: boolean; fd?: number }, { isTTY?: boolean; fd?: number }][] = [
      ["input no terminal", { isTTY: false, fd: one.fd }, { isTTY: true, fd: one.fd }],
      ["output no terminal", { isTTY: true, fd: one.fd }, { isTTY: false, fd: one.fd }],
      ["input without fd", { isTTY: true }, { isTTY: true, fd: one.fd }],
      ["output without fd", { isTTY: true, fd: one.fd }, { isTTY: true }],
      ["two terminals", { isTTY: true, fd: one.fd }, { isTTY: true, fd: other.fd }],
      ["output /dev/null", { isTTY: true, fd: one.fd }, { isTTY: true, fd: nul }],
      ["input /dev/null", { isTTY: true, fd: nul }, { isTTY: true, fd: one.fd }],
      ["input not open", { isTTY: true, fd: 987_654 }, { isTTY: true, fd: one.fd }],
    ];
    expect(cases.map(([name, i, o]) => [name, ownTerminal(i, o)])).toEqual(
      cases.map(([name]) => [name, null]),
    );
    expect(ownTerminal({ isTTY: true, fd: one.fd }, { isTTY: true, fd: one.fd })).toEqual(one.id);
  });
});

describe("openTerminal: only a /dev/pts/N path with the very device's identity", () => {
  it("a terminal numbered past 9 opens: what is written there reaches it", async () => {
    const p = twoDigitPty();
    const { id } = open(p.ptsName);
    let seen = "";
    const reached = new Promise<void>((resolve) =>
      p.onData((d) => {
        seen += d;
        if (seen.includes("past nine")) resolve();
      }),
    );
    const t = openTerminal(id);
    cleanups.push(() => t?.destroy());
    expect(t).not.toBeNull();
    t?.write("past nine");
    await reached;
  });

  it("a path outside /dev/pts that leads to the terminal (a link ending in /dev/pts/N) is refused", () => {
    const p = pty();
    const { id } = open(p.ptsName);
    const dir = tempDir();
    mkdirSync(join(dir, "dev", "pts"), { recursive: true });
    const link = join(dir, p.ptsName);
    symlinkSync(p.ptsName, link);
    expect(openTerminal({ ...id, path: link })).toBeNull();
    const t = openTerminal(id);
    cleanups.push(() => t?.destroy());
    expect(t).not.toBeNull();
  });

  it.each([
    ["a path that is bytes, not a string", (id: TerminalId) => ({ ...id, path: Buffer.from(id.path) })],
    ["a function carrying the identity", (id: TerminalId) => Object.assign(() => {}, id)],
  ])("%s is refused", (_name, make) => {
    const { id } = open(pty().ptsName);
    expect(openTerminal(make(id))).toBeNull();
  });
});

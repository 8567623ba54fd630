/**
 * More of the pseudo-terminal: ERR_TTY_UNAVAILABLE where the addon cannot load (Deno, Windows, a
 * failed load), the spawn a tty run asks of the addon (its TERM), a PtyChild over a fake terminal
 * (the bytes it gives, the writes and resizes it passes on, its exit), bytes written reaching a
 * real child as they are, and terminalSize() from stdout's or stderr's terminal.
 */
import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runExec } from "./exec.ts";
import { type Pty, PtyChild, type PtyModule, spawnOnPty, terminalSize } from "./pty.ts";

const PATH = process.env.PATH ?? "/usr/bin:/bin";
const HINT =
  "run ariel-spawn --detach --tty with Node 20+ on Linux or macOS, or drop --tty (--interactive keeps a stdin pipe)";

/** A fresh copy of pty.ts (nothing loaded yet), with the runtime loader replaced when `load` is given. */
async function freshPty(load?: () => Promise<Record<string, unknown>>): Promise<typeof import("./pty.ts")> {
  vi.resetModules();
  if (load) vi.doMock("../runtime_dep.ts", () => ({ loadRuntimeDependency: load }));
  return await import("./pty.ts");
}

afterEach(() => {
  vi.doUnmock("../runtime_dep.ts");
  vi.resetModules();
});

/** What a rejected load says, as a record to compare whole. */
async function failure(p: Promise<unknown>) {
  const e = (await p.then(
    () => null,
    (x: unknown) => x,
  )) as { name: string; code: string; message: string; hint: string; exit: number } | null;
  return e && { name: e.name, code: e.code, message: e.message, hint: e.hint, exit: e.exit };
}

const unavailable = (why: string) => ({
  name: "ArielError",
  code: "ERR_TTY_UNAVAILABLE",
  message: `--tty is not available here: ${why}`,
  hint: HINT,
  exit: 69,
});

describe("loadPty where the addon cannot be used", () => {
  it("under Deno: ERR_TTY_UNAVAILABLE (69) saying why, and a tty run starts nothing", async () => {
    const g = globalThis as { Deno?: unknown };
    g.Deno = { version: { deno: "2.0.0" } };
    try {
      const { loadPty, spawnOnPty: spawn } = await freshPty();
      const why = "Deno runs ariel's CLIs from source, and the pseudo-terminal addon is a Node addon";
      expect(await failure(loadPty())).toEqual(unavailable(why));
      const run = spawn(["sh", "-c", "exit 0"], { cwd: "/", env: { PATH }, size: { cols: 80, rows: 24 } });
      expect(await failure(run)).toEqual(unavailable(why));
    } finally {
      delete g.Deno;
    }
  });

  it("on Windows: ERR_TTY_UNAVAILABLE, a Unix pseudo-terminal is needed", async () => {
    const platform = Object.getOwnPropertyDescriptor(process, "platform")!;
    Object.defineProperty(process, "platform", { ...platform, value: "win32" });
    try {
      const { loadPty } = await freshPty();
      expect(await failure(loadPty())).toEqual(unavailable("tty runs need a Unix pseudo-terminal"));
    } finally {
      Object.defineProperty(process, "platform", platform);
    }
  });

  it("an addon that does not load: ERR_TTY_UNAVAILABLE with the first line of why", async () => {
    const { loadPty } = await freshPty(async () => {
      throw new Error("Cannot find module '@lydell/node-pty'\nRequire stack:\n- /opt/ariel/monitor.cjs");
    });
    const why = "the pseudo-terminal addon did not load (Cannot find module '@lydell/node-pty')";
    expect(await failure(loadPty())).toEqual(unavailable(why));
  });
});

/** A fake addon module: what each spawn was asked, answered by a fake terminal. */
function fakeModule() {
  const calls: { file: string; args: string[]; options: Record<string, unknown> }[] = [];
  const mod: PtyModule = {
    spawn(file, args, options) {
      calls.push({ file, args, options });
      return fakePty().pty;
    },
  };
  return { mod, calls };
}

describe("spawnOnPty: what the addon is asked", () => {
  const size = { cols: 91, rows: 27 };
  const expected = (env: Record<string, string>, term: string) => ({
    ...runExec(["sh", "-c", "true"], "/tmp", env),
    options: { cols: 91, rows: 27, cwd: "/tmp", env: { ...env, TERM: term }, encoding: null, name: term },
  });

  it("an addon whose exports are its default (a CommonJS module seen from ESM) is used", async () => {
    const { mod, calls } = fakeModule();
    const { spawnOnPty: spawn } = await freshPty(async () => ({ default: mod }));
    const child = await spawn(["sh", "-c", "true"], { cwd: "/tmp", env: { PATH }, size });
    expect(child.size).toEqual(size);
    expect(calls).toEqual([expected({ PATH }, "xterm-256color")]);
  });

  it("TERM is xterm-256color unless the run's environment gives one, both in env and as the name", async () => {
    const { mod, calls } = fakeModule();
    const { spawnOnPty: spawn } = await freshPty(async () => ({ spawn: mod.spawn, default: {} }));
    await spawn(["sh", "-c", "true"], { cwd: "/tmp", env: { PATH }, size });
    await spawn(["sh", "-c", "true"], { cwd: "/tmp", env: { PATH, TERM: "vt100" }, size });
    expect(calls).toEqual([expected({ PATH }, "xterm-256color"), expected({ PATH, TERM: "vt100" }, "vt100")]);
  });
});

/** A fake terminal: the writes and resizes it got; `data` and `exit` fire its listeners. */
function fakePty(ptsName = "/nonexistent/pts/99") {
  const events = new EventEmitter();
  const writes: (string | Uint8Array)[] = [];
  const resizes: [number, number][] = [];
  const on =
    (name: string) =>
    <T>(f: (x: T) => void) => {
      events.on(name, f);
      return { dispose: () => events.off(name, f) };
    };
  const pty: Pty = {
    pid: 4242,
    ptsName,
    onData: on("data"),
    onExit: on("exit"),
    write: (d) => void writes.push(d),
    resize: (c, r) => void resizes.push([c, r]),
    pause: () => {},
    resume: () => {},
    kill: () => {},
  };
  return { pty, writes, resizes, fire: (name: string, x: unknown) => events.emit(name, x) };
}

describe("PtyChild over a fake terminal", () => {
  const size = { cols: 80, rows: 24 };
  const dataOf = (c: PtyChild) => {
    const got: unknown[] = [];
    c.on("data", (d: unknown) => got.push(d));
    return got;
  };

  it("text from the terminal is given as its UTF-8 bytes; bytes are given as they came", () => {
    const f = fakePty();
    const got = dataOf(new PtyChild(f.pty, size));
    const bytes = new Uint8Array([0x1b, 0x5b, 0x41]);
    f.fire("data", "héllo");
    f.fire("data", bytes);
    expect(Buffer.isBuffer(got[0])).toBe(true);
    expect([...(got[0] as Buffer)]).toEqual([0x68, 0xc3, 0xa9, 0x6c, 0x6c, 0x6f]);
    expect(got[1]).toBe(bytes);
  });

  it("writes: text as text, a Buffer as it is, other bytes as a Buffer of the same bytes", () => {
    const f = fakePty();
    const c = new PtyChild(f.pty, size);
    const buf = Buffer.from("cd");
    c.write("ab");
    c.write(buf);
    c.stdin.write(new Uint8Array([0xc3, 0xa9]));
    c.stdin.end();
    expect(f.writes[0]).toBe("ab");
    expect(f.writes[1]).toBe(buf);
    expect(f.writes.slice(2).map((w) => [Buffer.isBuffer(w), [...(w as Buffer)]])).toEqual([
      [true, [0xc3, 0xa9]],
      [true, [4]],
    ]);
  });

  it("a resize to the size it has asks nothing of the terminal; another size is passed on", () => {
    const f = fakePty();
    const c = new PtyChild(f.pty, size);
    c.resize({ cols: 80, rows: 24 });
    expect([f.resizes, c.size]).toEqual([[], size]);
    expect(c.size).toBe(size);
    c.resize({ cols: 80, rows: 30 });
    c.resize({ cols: 100, rows: 30 });
    c.resize({ cols: 100, rows: 30 });
    expect(f.resizes).toEqual([
      [80, 30],
      [100, 30],
    ]);
    expect(c.size).toEqual({ cols: 100, rows: 30 });
  });

  it("a terminal whose device cannot be held open still tells each exit: code, or signal name", () => {
    const exits: unknown[] = [];
    for (const e of [{ exitCode: 3 }, { exitCode: 0, signal: 9 }, { exitCode: 5, signal: 0 }]) {
      const f = fakePty();
      new PtyChild(f.pty, size).on("exit", (code, signal) => exits.push([code, signal]));
      f.fire("exit", e);
    }
    expect(exits).toEqual([
      [3, null],
      [null, "SIGKILL"],
      [5, null],
    ]);
  });
});

describe("bytes written to a real terminal", () => {
  it("text, a Buffer and a Uint8Array reach the child byte for byte", async () => {
    const script = "stty raw -echo; echo ready; head -c 8 | od -An -tx1";
    const c = await spawnOnPty(["sh", "-c", script], {
      cwd: "/",
      env: { PATH },
      size: { cols: 80, rows: 24 },
    });
    let out = "";
    c.on("data", (b: Buffer) => {
      out += b.toString("utf8");
    });
    let exited = false;
    const exit = new Promise((resolve) =>
      c.on("exit", (code, signal) => {
        exited = true;
        resolve([code, signal]);
      }),
    );
    try {
      for (let i = 0; i < 500 && !out.includes("ready"); i++) await new Promise((r) => setTimeout(r, 10));
      c.write("ab");
      c.write(Buffer.from("cd"));
      c.stdin.write(new Uint8Array([0xc3, 0xa9, 0x00, 0xff]));
      expect(await exit).toEqual([0, null]);
      expect(out.replace(/\s+/g, " ")).toContain("61 62 63 64 c3 a9 00 ff");
    } finally {
      if (!exited) c.pty.kill("SIGKILL");
      await exit;
    }
  });
});

describe("terminalSize", () => {
  type Stream = { isTTY?: boolean; columns?: number; rows?: number };
  const keys = ["isTTY", "columns", "rows"] as const;

  /** Run `f` with stdout and stderr showing `out` and `err`, then put them back as they were. */
  function withStreams<T>(out: Stream, err: Stream, f: () => T): T {
    const saved = [process.stdout, process.stderr].map((s) =>
      keys.map((k) => [s, k, Object.getOwnPropertyDescriptor(s, k)] as const),
    );
    for (const [s, v] of [
      [process.stdout, out],
      [process.stderr, err],
    ] as const)
      for (const k of keys) Object.defineProperty(s, k, { value: v[k], configurable: true, writable: true });
    try {
      return f();
    } finally {
      for (const [s, k, d] of saved.flat()) {
        if (d) Object.defineProperty(s, k, d);
        else delete (s as Stream)[k];
      }
    }
  }

  const tty = (columns: number, rows: number): Stream => ({ isTTY: true, columns, rows });
  const cases: [string, Stream, Stream, { cols: number; rows: number } | null][] = [
    ["stdout a terminal: its size", tty(120, 40), tty(90, 20), { cols: 120, rows: 40 }],
    ["stdout a pipe, stderr a terminal: stderr's", {}, tty(90, 20), { cols: 90, rows: 20 }],
    ["both pipes: none", {}, {}, null],
    ["a pipe that has columns and rows is no terminal", { columns: 80, rows: 24 }, {}, null],
    ["stdout a terminal of no columns: stderr's", tty(0, 40), tty(90, 20), { cols: 90, rows: 20 }],
    ["stdout a terminal of no rows, stderr a pipe: none", tty(120, 0), {}, null],
  ];
  it.each(cases)("%s", (_name, out, err, size) => {
    expect(withStreams(out, err, terminalSize)).toEqual(size);
  });
});

import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ArielError } from "../../errors.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { RunHistory } from "./history.ts";
import { Interrupts } from "./interrupts.ts";
import { type ChildResult, failed, signalNumber, startChild, startError } from "./process.ts";

let dir: string;
beforeEach(() => {
  dir = tempDir("ariel-child-start-");
});
afterEach(() => {
  vi.useRealTimers();
  removeDir(dir);
});

const errno = (code: string | undefined, message = "boom") =>
  Object.assign(new Error(message), code === undefined ? {} : { code }) as NodeJS.ErrnoException;

describe("signalNumber", () => {
  it("by name, null for none or an unknown name", () => {
    expect(signalNumber("SIGKILL")).toBe(9);
    expect(signalNumber("SIGTERM")).toBe(15);
    expect(signalNumber(null)).toBeNull();
    expect(signalNumber("")).toBeNull();
    expect(signalNumber("SIGNOPE")).toBeNull();
  });
});

describe("startError", () => {
  it("ENOENT: ERR_COMMAND_NOT_FOUND, 127", () => {
    const e = startError(errno("ENOENT"), "mk");
    expect([e.code, e.exit, e.message]).toEqual(["ERR_COMMAND_NOT_FOUND", 127, "command not found: mk"]);
    expect(e.context).toEqual({ command: "mk" });
  });

  it.each(["EACCES", "EISDIR", "ENOEXEC"])("%s: ERR_NOT_EXECUTABLE, 126", (code) => {
    const e = startError(errno(code), "./x");
    expect([e.code, e.exit, e.message]).toEqual(["ERR_NOT_EXECUTABLE", 126, "command not executable: ./x"]);
    expect(e.context).toEqual({ command: "./x", errno: code });
  });

  it("anything else: ERR_SPAWN with the errno, or the message when there is none", () => {
    const e = startError(errno("EMFILE"), "git");
    expect([e.code, e.exit, e.message]).toEqual(["ERR_SPAWN", 125, "cannot start git: EMFILE"]);
    expect(e.context).toEqual({ command: "git", errno: "EMFILE" });
    const m = startError(errno(undefined, "odd"), "git");
    expect(m.message).toBe("cannot start git: odd");
    expect(m.context).toEqual({ command: "git" });
  });
});

describe("failed", () => {
  it("a child that never started: no pid, its error's status, kill does nothing", async () => {
    const error = new ArielError("ERR_NOT_EXECUTABLE", "x");
    const h = failed(error);
    expect(h.pid).toBeNull();
    expect(() => h.kill("SIGTERM")).not.toThrow();
    expect(await h.done).toEqual({ code: null, signal: null, status: 126, pid: null, error });
  });
});

function run(argv: string[], more: { cwd?: string; ownGroup?: boolean; file?: string } = {}) {
  const lines: [string, string][] = [];
  const partial: boolean[] = [];
  const texts: [string, string][] = [];
  const h = startChild({
    argv,
    ...(more.file ? { file: more.file } : {}),
    cwd: more.cwd ?? dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
    stdin: "ignore",
    ownGroup: more.ownGroup ?? true,
    onLine: (s, l) => {
      lines.push([s, l.line]);
      partial.push(l.partial);
    },
    onText: (s, t) => texts.push([s, t]),
  });
  return { h, lines, texts, partial };
}

describe("startChild", () => {
  it("an empty command never starts: ERR_SPAWN", async () => {
    for (const argv of [[], [""]]) {
      const r = await run(argv).h.done;
      expect(r.pid).toBeNull();
      expect([r.error?.code, r.error?.message, r.status]).toEqual(["ERR_SPAWN", "empty command", 125]);
    }
  });

  it("a working directory that is missing, or a file, never starts: ERR_SPAWN naming it", async () => {
    for (const cwd of [join(dir, "gone"), join(dir, "file")]) {
      writeFileSync(join(dir, "file"), "");
      const r = await run(["true"], { cwd }).h.done;
      expect(r.error?.code).toBe("ERR_SPAWN");
      expect(r.error?.message).toBe(`working directory missing: ${cwd}`);
      expect(r.error?.context).toEqual({ cwd });
      expect(r.status).toBe(125);
    }
  });

  it("a missing command and a file that is not executable", async () => {
    const nf = await run(["no-such-cmd-xyz"]).h.done;
    expect([nf.error?.code, nf.status, nf.pid]).toEqual(["ERR_COMMAND_NOT_FOUND", 127, null]);
    writeFileSync(join(dir, "plain.sh"), "echo hi\n");
    chmodSync(join(dir, "plain.sh"), 0o644);
    const ne = await run(["./plain.sh"]).h.done;
    expect([ne.error?.code, ne.status]).toEqual(["ERR_NOT_EXECUTABLE", 126]);
  });

  it("lines of stdout, a last partial line, raw text, the code and the pid", async () => {
    const { h, lines, texts, partial } = run(["sh", "-c", "printf 'a\\nb'; exit 4"]);
    const r: ChildResult = await h.done;
    expect(typeof h.pid).toBe("number");
    expect(r).toEqual({ code: 4, signal: null, status: 4, pid: h.pid, error: null });
    expect(lines.filter(([s]) => s === "stdout").map(([, l]) => l)).toEqual(["a", "b"]);
    expect(partial).toEqual([false, true]);
    expect(
      texts
        .filter(([s]) => s === "stdout")
        .map(([, t]) => t)
        .join(""),
    ).toBe("a\nb");
  });

  it("argv[0] as given, the file looked up run", async () => {
    const { h, lines } = run(["my-name", "-c", 'echo "$0"'], { file: "/bin/sh" });
    await h.done;
    expect(lines).toEqual([["stdout", "my-name"]]);
  });

  it("kill reaches the child's whole group, and ends it with 128+N", async () => {
    const { h, lines } = run(["sh", "-c", "sleep 30 & echo $!; wait"]);
    await vi.waitFor(() => expect(lines.length).toBe(1), { timeout: 10_000 });
    const grandchild = Number(lines[0]?.[1]);
    h.kill("SIGTERM");
    const r = await h.done;
    expect([r.signal, r.status, r.code]).toEqual(["SIGTERM", 143, null]);
    await vi.waitFor(
      () =>
        expect(
          existsSync(`/proc/${grandchild}`) &&
            !/\) Z /.test(readFileSync(`/proc/${grandchild}/stat`, "utf8")),
        ).toBe(false),
      { timeout: 10_000 },
    );
  });

  it("a child in our group is signalled alone; kill after the end does nothing", async () => {
    const { h } = run(["sleep", "30"], { ownGroup: false });
    h.kill("SIGKILL");
    const r = await h.done;
    expect([r.signal, r.status]).toEqual(["SIGKILL", 137]);
    expect(() => h.kill("SIGKILL")).not.toThrow();
  });
});

describe("RunHistory", () => {
  const state = () => join(dir, ".ariel");

  it("creates runs/<id>.ndjson owner-only and appends lines", () => {
    const h = RunHistory.open(state(), "r1");
    expect(h.path).toBe(join(state(), "runs", "r1.ndjson"));
    expect(statSync(h.path).mode & 0o777).toBe(0o600);
    h.append({ event: "a" }, true);
    expect(readFileSync(h.path, "utf8")).toBe('{"event":"a"}\n');
    h.close();
  });

  it("buffers until a flush, a lifecycle event, 100 ms, or 64 KiB", () => {
    vi.useFakeTimers();
    const h = RunHistory.open(state(), "r2");
    h.append({ event: "output", line: "x" });
    expect(readFileSync(h.path, "utf8")).toBe("");
    vi.advanceTimersByTime(99);
    expect(readFileSync(h.path, "utf8")).toBe("");
    vi.advanceTimersByTime(1);
    expect(readFileSync(h.path, "utf8")).toBe('{"event":"output","line":"x"}\n');
    h.append({ event: "output", line: "y" });
    h.append({ event: "process.exited" }, true);
    expect(readFileSync(h.path, "utf8").split("\n")).toHaveLength(4);
    const big = "z".repeat(64 * 1024);
    h.append({ line: big });
    expect(readFileSync(h.path, "utf8")).toContain(big);
    h.close();
  });

  it("one timer for many lines, and none left once flushed", () => {
    vi.useFakeTimers();
    const h = RunHistory.open(state(), "r3");
    h.append({ n: 1 });
    h.append({ n: 2 });
    expect(vi.getTimerCount()).toBe(1);
    h.flush();
    expect(vi.getTimerCount()).toBe(0);
    expect(readFileSync(h.path, "utf8")).toBe('{"n":1}\n{"n":2}\n');
    h.flush(); // nothing buffered: nothing written
    expect(readFileSync(h.path, "utf8")).toBe('{"n":1}\n{"n":2}\n');
    h.close();
  });

  it("close writes what is buffered; twice is safe; appends after it are dropped", () => {
    const h = RunHistory.open(state(), "r4");
    h.append({ n: 1 });
    h.close();
    h.close();
    expect(readFileSync(h.path, "utf8")).toBe('{"n":1}\n');
    h.append({ n: 2 }, true);
    expect(readFileSync(h.path, "utf8")).toBe('{"n":1}\n');
  });

  it("appends to a history that is there already", () => {
    const a = RunHistory.open(state(), "r5");
    a.append({ n: 1 }, true);
    a.close();
    const b = RunHistory.open(state(), "r5");
    b.append({ n: 2 }, true);
    b.close();
    expect(readFileSync(b.path, "utf8")).toBe('{"n":1}\n{"n":2}\n');
  });
});

describe("Interrupts", () => {
  it("remembers the first signal, counts them, tells every listener until it unsubscribes", () => {
    const i = new Interrupts();
    const seen: [string, number][] = [];
    const off = i.listen((s, n) => seen.push([s, n]));
    const before = process.listenerCount("SIGINT");
    i.install();
    expect(process.listenerCount("SIGINT")).toBe(before + 1);
    expect(process.listenerCount("SIGTERM")).toBeGreaterThan(0);
    process.emit("SIGTERM", "SIGTERM");
    process.emit("SIGINT", "SIGINT");
    expect(i.received).toBe("SIGTERM");
    expect(i.count).toBe(2);
    expect(seen).toEqual([
      ["SIGTERM", 1],
      ["SIGINT", 2],
    ]);
    off();
    process.emit("SIGINT", "SIGINT");
    expect(seen).toHaveLength(2);
    expect(i.count).toBe(3);
    i.uninstall();
    expect(process.listenerCount("SIGINT")).toBe(before);
    expect(Interrupts.SIGNALS).toEqual(["SIGINT", "SIGTERM"]);
  });
});

/**
 * A tty run inside a monitor served in this process (tty_run.ts), its child on a real
 * pseudo-terminal: what an attached client hears (the reply, the current screen repainted, the
 * output relayed in frames, the bell, the exit with its status), its input reaching the child,
 * a read-only client's input and resizes ignored, resizes reaching the child (`stty size`) within
 * the sides ariel accepts, a second client, the real client `attachTty` (its size, its resizes,
 * its detach key), a direct attach on a terminal of the test's own, the stdout file written, a
 * flood paused and resumed, and the screen's activity (`run.attention`, a bell on waiting).
 */
import { afterEach, describe, expect, it } from "vitest";
import { runPaths } from "../../runs/paths.ts";
import { tempDir } from "../_fixture.ts";
import {
  attachPiped,
  clientTerminal,
  closeClients,
  framed,
  input,
  type RawClient,
  rawClient,
  signals,
  startTty,
  stdoutOf,
  ttyRun,
  waitFor,
} from "./_tty_fixture.ts";
import { captureMonitorLog } from "./monitor/_log_fixture.ts";
import { ended, history, json, type LiveMonitor, useServedMonitor } from "./monitor/_monitor_fixture.ts";

let l: LiveMonitor;
const logged = captureMonitorLog();
const ENV = ["ARIEL_TTY_SCREEN_BACKLOG", "ARIEL_TEST_HOOKS", "ARIEL_TEST_PAUSE_AT", "ARIEL_TEST_PAUSE_MS"];
const ATTENTION_ENV = ["ARIEL_ATTENTION_POLL_MS", "ARIEL_ATTENTION_IDLE_MS"];
const saved = Object.fromEntries([...ENV, ...ATTENTION_ENV].map((k) => [k, process.env[k]]));
useServedMonitor(
  () => tempDir("ariel-tty-run-"),
  (m) => {
    l = m;
  },
);
afterEach(async () => {
  closeClients();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const sh = (script: string) => ["sh", "-c", script];
const b64 = (s: string) => Buffer.from(s).toString("base64");
const okReply = (cols: number, rows: number, direct = false) => ({
  v: 1,
  ok: true,
  pid: process.pid,
  tty: { cols, rows },
  direct,
});

/** A raw client attached to run `runId` (`extra`: more of the attach request); once it has the reply. */
async function attach(runId: string, extra: Record<string, unknown> = {}): Promise<RawClient> {
  const c = await rawClient(l);
  c.send({ v: 1, op: "attach", runId, ...extra });
  await waitFor(() => c.lines.length >= 1, "the attach reply");
  return c;
}

/** The sizes `stty size` printed in the run's output so far, as `rows cols`. */
const sizes = (runId: string) => stdoutOf(l, runId).match(/^\d+ \d+(?=\r$)/gm) ?? [];

describe("attach: the reply, the screen repainted, the output relayed, the exit", () => {
  it("a client hears the current screen, then its own keys' echo and the child's output, then the exit", async () => {
    const id = await startTty(l, sh('printf "hello\\n"; read x; printf "got %s\\n" "$x"; read y'));
    await waitFor(() => stdoutOf(l, id) === "hello\r\n", "the greeting");
    const c = await attach(id);
    await waitFor(() => c.lines.length >= 2, "the repaint");
    expect(c.lines.slice(0, 2)).toEqual([
      okReply(40, 10),
      { t: "o", d: b64("\x1b[H\x1b[2Jhello\x1b[1B\x1b[5D") },
    ]);
    c.send(input("abc\r"));
    await waitFor(() => framed(c.lines).includes("got abc\r\n"), "the answer");
    c.send(input("q\r"));
    await waitFor(() => c.closed, "the connection closed");
    expect(framed(c.lines.slice(2))).toBe("abc\r\ngot abc\r\nq\r\n");
    expect(c.lines.at(-1)).toEqual({ t: "exit", status: 0 });
    expect(signals(c.lines)).toEqual([{ t: "exit", status: 0 }]);
    // Every frame between the repaint and the exit is output, whole.
    for (const f of c.lines.slice(2, -1))
      expect(f).toEqual({ t: "o", d: expect.stringMatching(/^[A-Za-z0-9+/=]+$/) });
    expect(stdoutOf(l, id)).toBe("hello\r\nabc\r\ngot abc\r\nq\r\n");
    expect(await ended(l, id)).toBe(true);
    expect(logged).toEqual([]);
  });

  it.each([
    ["an exit status", "read x; exit 3", 3],
    ["a signal (128)", "read x; kill -KILL $$", 128],
  ])("the run ends with %s: the exit frame says it", async (_name, script, status) => {
    const id = await startTty(l, sh(script));
    const c = await attach(id);
    c.send(input("\r"));
    await waitFor(() => c.closed, "the connection closed");
    expect(signals(c.lines)).toEqual([{ t: "exit", status }]);
  });

  it("a second client hears the same output; one that leaves hears no more, the other goes on", async () => {
    const id = await startTty(l, sh('while read x; do printf "<%s>\\n" "$x"; done'));
    const a = await attach(id);
    const b = await attach(id);
    a.send(input("one\r"));
    await waitFor(
      () => framed(a.lines).endsWith("<one>\r\n") && framed(b.lines).endsWith("<one>\r\n"),
      "one",
    );
    expect(framed(b.lines.slice(2))).toBe(framed(a.lines.slice(2)));
    b.sock.destroy();
    await waitFor(() => b.closed, "b gone");
    const heard = b.lines.length;
    b.send(input("ignored\r"));
    a.send(input("two\r"));
    await waitFor(() => framed(a.lines).endsWith("<two>\r\n"), "two");
    expect(b.lines).toHaveLength(heard);
    expect(stdoutOf(l, id)).toBe("one\r\n<one>\r\ntwo\r\n<two>\r\n");
    // A client that comes later is shown the screen as it is now.
    const c = await attach(id);
    await waitFor(() => c.lines.length >= 2, "the repaint");
    expect(framed(c.lines)).toBe("\x1b[H\x1b[2Jone\r\n<one>\r\ntwo\r\n<two>\x1b[1B\x1b[5D");
  });
});

describe("attach: read-only, size, resizes", () => {
  it("a read-only client's size, keys and resizes are ignored; it still hears the output", async () => {
    const id = await startTty(l, sh('read x; printf "[%s]\\n" "$x"; stty size; read y'));
    const ro = await attach(id, { readOnly: true, cols: 60, rows: 20 });
    expect(ro.lines[0]).toEqual(okReply(40, 10));
    ro.send(input("no\r"));
    ro.send({ op: "resize", cols: 50, rows: 12 });
    await ro.synced();
    expect(ttyRun(l, id).child.size).toEqual({ cols: 40, rows: 10 });
    const w = await attach(id);
    w.send(input("yes\r"));
    await waitFor(() => framed(ro.lines).includes("10 40\r\n"), "the answer");
    expect(stdoutOf(l, id)).toBe("yes\r\n[yes]\r\n10 40\r\n");
    expect(framed(ro.lines.slice(2))).toBe("yes\r\n[yes]\r\n10 40\r\n");
  });

  it("a client's size is the terminal's; resizes within 2..1000 a side reach the child, others do not", async () => {
    const id = await startTty(l, sh("while read x; do stty size; done"));
    const c = await attach(id, { cols: 50, rows: 12 });
    expect(c.lines[0]).toEqual(okReply(50, 12));
    const steps: [number, number][] = [
      [1, 12],
      [50, 1],
      [2, 2],
      [1001, 2],
      [2, 1001],
      [1000, 1000],
      [60, 1000],
      [60, 15],
    ];
    for (const [cols, rows] of steps) {
      const before = sizes(id).length;
      c.send({ op: "resize", cols, rows });
      c.send(input("\r"));
      await waitFor(() => sizes(id).length === before + 1, `stty size after ${cols}x${rows}`);
    }
    expect(sizes(id)).toEqual(["12 50", "12 50", "2 2", "2 2", "2 2", "1000 1000", "1000 60", "15 60"]);
    expect(ttyRun(l, id).screen.size).toEqual({ cols: 60, rows: 15 });
    await waitFor(
      () => JSON.stringify(json(runPaths(l.root, id).record).tty) === '{"cols":60,"rows":15}',
      "kept",
    );
  });

  it("a resize to the size it has is no resize: run.json is written once, for the one that changed it", async () => {
    const id = await startTty(l, sh("read x"));
    const version = json(runPaths(l.root, id).record).version as number;
    const c = await attach(id, { cols: 40, rows: 10 });
    c.send({ op: "resize", cols: 40, rows: 10 });
    c.send({ op: "resize", cols: 41, rows: 10 });
    await waitFor(
      () => JSON.stringify(json(runPaths(l.root, id).record).tty) === '{"cols":41,"rows":10}',
      "kept",
    );
    expect(json(runPaths(l.root, id).record).version).toBe(version + 1);
  });
});

describe("attachTty, the real client, on pipes", () => {
  it("its terminal's size on attach, then its resizes, reach the child; its detach key leaves the run running", async () => {
    const id = await startTty(l, sh('while read x; do stty size; done; echo "the end"'));
    const a = attachPiped(l, id, { size: { cols: 50, rows: 12 } });
    await waitFor(() => ttyRun(l, id).child.size.cols === 50, "the size on attach");
    a.keys.write("\r");
    await waitFor(() => a.out().endsWith("12 50\r\n"), "stty size");
    a.resize({ cols: 70, rows: 20 });
    a.keys.write("\r");
    await waitFor(() => a.out().endsWith("20 70\r\n"), "stty size after the resize");
    a.keys.write(Buffer.from([0x1d]));
    expect(await a.ended).toEqual({ kind: "detached" });
    expect(a.out()).toBe("\x1b[H\x1b[2J\r\n12 50\r\n\r\n20 70\r\n");
    // The run goes on, and hears a later client's keys.
    const c = await attach(id);
    c.send(input("\x04"));
    await waitFor(() => c.closed, "the end");
    expect(signals(c.lines)).toEqual([{ t: "exit", status: 0 }]);
    expect(stdoutOf(l, id)).toBe("\r\n12 50\r\n\r\n20 70\r\nthe end\r\n");
  });

  it("read-only: nothing of its own reaches the child, and it hears the exit", async () => {
    const id = await startTty(l, sh('read x; echo "[$x]"'));
    const ro = attachPiped(l, id, { readOnly: true, size: { cols: 50, rows: 12 } });
    await waitFor(() => ro.out() === "\x1b[H\x1b[2J", "the repaint");
    expect(ttyRun(l, id).child.size).toEqual({ cols: 40, rows: 10 });
    ro.keys.write("no\r");
    ro.resize({ cols: 60, rows: 20 });
    const w = await attach(id);
    w.send(input("yes\r"));
    expect(await ro.ended).toEqual({ kind: "exited", status: 0 });
    expect(stdoutOf(l, id)).toBe("yes\r\n[yes]\r\n");
  });
});

describe("a direct attach: the monitor reads and writes the client's own terminal", () => {
  it("the screen and the output are written to it, its keys reach the child, its detach key lets it go", async () => {
    const id = await startTty(l, sh('printf "hi\\n"; while read x; do echo "<$x>"; done'));
    await waitFor(() => stdoutOf(l, id) === "hi\r\n", "hi");
    const t = clientTerminal();
    const c = await attach(id, { terminal: t.id, detachKey: 0x1d });
    expect(c.lines[0]).toEqual(okReply(40, 10, true));
    await waitFor(() => t.shown() === "\x1b[H\x1b[2Jhi\x1b[1B\x1b[2D", "the repaint");
    t.type("ab\r");
    await waitFor(() => t.shown().endsWith("<ab>\r\n"), "the answer");
    t.type("cd\x1dgone\r");
    await waitFor(() => c.closed, "let go");
    expect(c.lines.slice(1)).toEqual([{ t: "detached" }]);
    expect(t.shown()).toBe("\x1b[H\x1b[2Jhi\x1b[1B\x1b[2Dab\r\n<ab>\r\n");
    // What came before the detach key went to the child (its line not ended yet), nothing after.
    const w = await attach(id);
    w.send(input("\r"));
    await waitFor(() => stdoutOf(l, id).endsWith("<cd>\r\n"), "cd");
    expect(stdoutOf(l, id)).toBe("hi\r\nab\r\n<ab>\r\ncd\r\n<cd>\r\n");
  });

  it("read-only: its keys go nowhere but the detach key still lets it go; the exit is said when the run ends", async () => {
    const id = await startTty(l, sh('read x; echo "[$x]"; read y; exit 5'));
    const t = clientTerminal();
    const ro = await attach(id, { terminal: t.id, detachKey: 0x1d, readOnly: true });
    expect(ro.lines[0]).toEqual(okReply(40, 10, true));
    t.type("no\r");
    const w = await attach(id);
    w.send(input("yes\r"));
    await waitFor(() => t.shown().endsWith("[yes]\r\n"), "the answer on the terminal");
    w.send(input("\r"));
    await waitFor(() => ro.closed && w.closed, "the end");
    expect(ro.lines.slice(1)).toEqual([{ t: "exit", status: 5 }]);
    expect(stdoutOf(l, id)).toBe("yes\r\n[yes]\r\n\r\n");
  });

  it("no detach key: that byte is a key like any other", async () => {
    const id = await startTty(l, sh("read x; printf '%s' \"$x\" | od -An -tx1"));
    const t = clientTerminal();
    const c = await attach(id, { terminal: t.id, detachKey: null });
    t.type("a\x1db\r");
    await waitFor(() => c.closed, "the end");
    expect(c.lines.slice(1)).toEqual([{ t: "exit", status: 0 }]);
    expect(stdoutOf(l, id)).toMatch(/^a\^]b\r\n 61 1d 62\r\n$/);
  });

  it("its terminal hung up: the client is let go, the run goes on", async () => {
    const id = await startTty(l, sh('read x; echo "[$x]"'));
    const t = clientTerminal();
    const c = await attach(id, { terminal: t.id, detachKey: 0x1d });
    t.hangUp();
    await waitFor(() => c.closed, "the client gone");
    expect(c.lines.slice(1)).toEqual([]);
    const w = await attach(id);
    w.send(input("still\r"));
    await waitFor(() => w.closed, "the end");
    expect(stdoutOf(l, id)).toBe("still\r\n[still]\r\n");
  });
});

describe("a flood: the terminal paused while the screen is behind, resumed once it caught up", () => {
  it("pauses and resumes alternate, and every byte reaches the stdout file", async () => {
    Object.assign(process.env, {
      ARIEL_TTY_SCREEN_BACKLOG: String(16 << 10),
      ARIEL_TEST_HOOKS: "1",
      ARIEL_TEST_PAUSE_AT: "tty:paused,tty:resumed",
      ARIEL_TEST_PAUSE_MS: "1",
    });
    const id = await startTty(l, sh("yes flood | head -c 1200000"));
    expect(await ended(l, id)).toBe(true);
    // 200 000 lines of "flood\n", each newline made "\r\n" by the terminal.
    expect(stdoutOf(l, id).length).toBe(1_400_000);
    const count = (p: string) =>
      logged.filter((s) => s.startsWith(`ariel-test-paused tty:${p} ${process.pid}`)).length;
    const [paused, resumed] = [count("paused"), count("resumed")];
    expect(resumed).toBeGreaterThanOrEqual(1);
    expect(paused - resumed, `${paused} pauses, ${resumed} resumes`).toBeOneOf([0, 1]);
  });
});

describe("a client that does not keep up: skipped to the current screen once it drains", () => {
  it("while its socket is full it is sent nothing; then the whole screen, once, and the output after it", async () => {
    const id = await startTty(l, sh("read x; yes flood | head -c 1800000; read y"));
    const c = await attach(id);
    await waitFor(() => c.lines.length >= 2, "the repaint");
    c.sock.pause();
    c.send(input("\r"));
    // The echo of the Enter, then 300 000 lines of "flood\r\n".
    await waitFor(() => stdoutOf(l, id).length === 2_100_002, "the flood written");
    const run = ttyRun(l, id);
    await run.screen.flush();
    const screen = run.screen.ansi();
    c.sock.resume();
    await waitFor(
      () => c.lines.filter((f) => f.t === "o" && isRepaint(f)).length === 2,
      "the repaint after the drain",
    );
    c.send(input("\r"));
    await waitFor(() => c.closed, "the end");
    const repaints = c.lines.filter((f) => f.t === "o" && isRepaint(f));
    expect(repaints.map((f) => Buffer.from(String(f.d), "base64").toString())[1]).toBe(screen);
    expect(framed(c.lines).length).toBeLessThan(2_100_002);
    expect(framed(c.lines).endsWith(`${screen}\r\n`)).toBe(true);
    expect(signals(c.lines)).toEqual([{ t: "exit", status: 0 }]);
  });
});

const isRepaint = (f: Record<string, unknown>) =>
  Buffer.from(String(f.d), "base64").toString().startsWith("\x1b[H\x1b[2J");

const attentionOf = (runId: string) =>
  history(l.root, runId)
    .filter((e) => e.event === "run.attention")
    .map((e) => [e.from, e.to, e.reason, e.by]);

describe("the screen's activity: run.attention, and a bell to clients on waiting", () => {
  it("a question read waiting (a bell), busy once answered, idle when quiet", async () => {
    Object.assign(process.env, { ARIEL_ATTENTION_POLL_MS: "50", ARIEL_ATTENTION_IDLE_MS: "900" });
    const id = await startTty(l, sh('printf "Proceed? "; read x; echo "ok $x"; sleep 30'));
    const c = await attach(id);
    await waitFor(() => attentionOf(id).length === 1, "waiting");
    expect(attentionOf(id)).toEqual([["busy", "waiting", "prompt: question", "screen"]]);
    await waitFor(() => signals(c.lines).length === 1, "the bell");
    expect(signals(c.lines)).toEqual([{ t: "bell" }]);
    c.send(input("y\r"));
    await waitFor(() => attentionOf(id).length === 3, "busy, then idle");
    expect(attentionOf(id)).toEqual([
      ["busy", "waiting", "prompt: question", "screen"],
      ["waiting", "busy", "output", "screen"],
      ["busy", "idle", "quiet", "screen"],
    ]);
    expect(signals(c.lines)).toEqual([{ t: "bell" }]);
    await waitFor(() => json(runPaths(l.root, id).attention).activity === "idle", "attention.json");
    expect(json(runPaths(l.root, id).attention)).toEqual({
      v: 1,
      activity: "idle",
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      reason: "quiet",
      by: "screen",
    });
  });
});

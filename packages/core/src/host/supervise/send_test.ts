/**
 * `ariel-runs send`: the text typed into a live run, then Enter as a key of its own (a tty's
 * carriage return, a pipe's newline); refused for a run that takes no input or has ended.
 */
import { describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { RunBackend } from "../../runs/backend.ts";
import { TTY_ENTER } from "../../runs/tty.ts";
import { sendToRun } from "./send.ts";

function backend(record: { tty?: boolean; interactive?: boolean }, state = "running") {
  const sent: string[] = [];
  const b = {
    get: async () => ({ state, record }),
    sendInput: async (_id: string, bytes: Uint8Array) => void sent.push(new TextDecoder().decode(bytes)),
  } as unknown as RunBackend;
  return { b, sent };
}

describe("sendToRun", () => {
  it("a tty run: the text, then Enter on its own write", async () => {
    const { b, sent } = backend({ tty: true });
    await sendToRun(b, "r1", "fix the tests", true);
    expect(sent).toEqual(["fix the tests", TTY_ENTER]);
  });

  it("an --interactive run: Enter is a newline; without --enter only the text", async () => {
    const { b, sent } = backend({ interactive: true });
    await sendToRun(b, "r1", "yes", true);
    await sendToRun(b, "r1", "more", false);
    expect(sent).toEqual(["yes", "\n", "more"]);
  });

  it("empty text with --enter presses Enter alone; empty text without it sends nothing", async () => {
    const { b, sent } = backend({ tty: true });
    await sendToRun(b, "r1", "", true);
    await sendToRun(b, "r1", "", false);
    expect(sent).toEqual([TTY_ENTER]);
  });

  it("a run started without --tty or --interactive takes no input: ERR_USAGE (64)", async () => {
    const { b, sent } = backend({});
    const e = await arielErrorOf(sendToRun(b, "r1", "x", true));
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_USAGE",
      64,
      "run r1 takes no input: it was started without --tty or --interactive",
    ]);
    expect(sent).toEqual([]);
  });

  it("an ended run: ERR_REFUSED (3), naming respawn with the run as the user named it", async () => {
    const { b, sent } = backend({ tty: true }, "exited");
    const e = await arielErrorOf(sendToRun(b, "r1", "x", true, "my agent"));
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_REFUSED",
      3,
      "run r1 is exited: nothing reads what is typed",
      "ariel-runs respawn 'my agent' starts it again",
      { runId: "r1", state: "exited" },
    ]);
    expect((await arielErrorOf(sendToRun(b, "r1", "x", true))).hint).toBe(
      "ariel-runs respawn r1 starts it again",
    );
    expect(sent).toEqual([]);
  });
});

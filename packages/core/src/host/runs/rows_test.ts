import { describe, expect, it } from "vitest";
import type { RunView } from "../../runs/backend.ts";
import type { RunRecord } from "../../runs/record.ts";
import { runRecordOut, writeRuns } from "./rows.ts";

const ID = "20261203T091500Z-aaaaaa";
const GROUP = "20261203T091500Z-q7w1e0";

/** run.json's fields (but v and type) of the run the cases print. */
const FIELDS = {
  runId: ID,
  name: "agent",
  group: GROUP,
  source: "api",
  argv: ["git", "fetch", "https://bot:s3cr3t@git.example.com/r.git"],
  child: { pid: 4242 },
  task: null,
  worktree: null,
  worktreeOutcome: null,
};

/** A run as `ariel-runs list` and `ariel-spawn --detach` print it. */
function view(): RunView {
  return { state: "running", exit: null, record: { v: 1, type: "run", ...FIELDS } as unknown as RunRecord };
}

/** The run in a sandbox with network `net`. */
function sandboxed(net: "on" | "none"): RunView {
  const v = view();
  return { ...v, record: { ...v.record, sandbox: { write: ["/w"], hide: [], net } } };
}

/** What {@link writeRuns} wrote, write by write. */
function written(views: readonly RunView[], o: Parameters<typeof writeRuns>[2]): string[] {
  const out: string[] = [];
  writeRuns({ write: (t) => out.push(t) }, views, o);
  return out;
}

describe("runRecordOut", () => {
  it("is run.json's fields with the state now, the command redacted", () => {
    expect(runRecordOut(view())).toEqual({
      v: 1,
      type: "run",
      ...FIELDS,
      argv: ["git", "fetch", "https://git.example.com/r.git"],
      state: "running",
    });
  });
});

describe("writeRuns", () => {
  const line = `${ID}\tagent\t${GROUP}\trunning\t-\tapi\t4242\t-\t-\tgit fetch https://git.example.com/r.git\tapi\t-\n`;
  it.each<[string, RunView[], Parameters<typeof writeRuns>[2], string[]]>([
    [
      "--json: one record a line",
      [view()],
      { json: true, tty: false },
      [`${JSON.stringify(runRecordOut(view()))}\n`],
    ],
    [
      "--json with an activity: the record carries it",
      [view()],
      { json: true, tty: false, activity: () => "waiting" },
      [`${JSON.stringify({ ...runRecordOut(view()), activity: "waiting" })}\n`],
    ],
    ["--json, no runs: nothing", [], { json: true, tty: false }, []],
    ["rows in a pipe: tab-separated, no header, one write", [view()], { json: false, tty: false }, [line]],
    [
      "rows with an activity in its column",
      [view()],
      { json: false, tty: false, activity: () => "waiting" },
      [line.replace("\trunning\t-\t", "\trunning\twaiting\t")],
    ],
    ["rows, no runs: nothing, not even a header", [], { json: false, tty: true }, []],
    [
      "a sandboxed run: its network in the SANDBOX column",
      [sandboxed("on"), sandboxed("none")],
      { json: false, tty: false },
      [line.replace("\tapi\t-\n", "\tapi\tnet\n") + line.replace("\tapi\t-\n", "\tapi\tno-net\n")],
    ],
  ])("%s", (_name, views, o, expected) => {
    expect(written(views, o)).toEqual(expected);
  });
});

import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { RUN_AT, RUN_ID, runRecord } from "../testing/run_record.ts";
import { exitRecordProblem, runRecordProblem, runRecordSchema } from "./record.ts";

const ID = RUN_ID;
const T = RUN_AT;
const GOOD = runRecord();

const EXIT = { code: 0, signal: null, status: 0, endedAt: T };
const KILL = { requestedAt: T, signal: "SIGTERM", reason: "kill" };
const LEG = { source: "api", worktree: "/ws/.ariel/worktrees/t1/api", branch: "ariel/t1" };
const LEG_OUTCOME = { source: "api", outcome: "removed", reason: null };
const K8S = { namespace: "ns", job: "j", uid: "u", kubeconfig: "/home/u/.kube/config" };
const SANDBOX = { write: ["/ws"], hide: [], net: "on" };
const paths = (n: number) => Array.from({ length: n }, (_, i) => `/p${i}`);

/** A record with one field changed, and the field runRecordProblem names (null: none). */
const CASES: [string, Record<string, unknown>, string | null][] = [
  ["a good record", {}, null],
  ["no name", { name: null }, null],
  ["a name of 256 characters", { name: "n".repeat(256) }, null],
  ["a name of 257 characters", { name: "n".repeat(257) }, "name"],
  ["an empty name", { name: "" }, "name"],
  ["a name that is a number", { name: 7 }, "name"],
  ["another type", { type: "exit" }, "type"],
  ["a run id that is a number", { runId: 7 }, "runId"],
  ["a bad run id", { runId: "../x" }, "runId"],
  ["a group", { group: "20261202T110943Z-zz99aa" }, null],
  ["a null group", { group: null }, null],
  ["a group with a prefix", { group: `x${ID}` }, "group"],
  ["a group with a suffix", { group: `${ID}x` }, "group"],
  ["a group that is a number", { group: 7 }, "group"],
  ["a k8s backend", { backend: "k8s", k8s: K8S }, null],
  ["an unknown backend", { backend: "docker" }, "backend"],
  ["a null workspace", { workspace: null }, "workspace"],
  ["a workspace that is a string", { workspace: "/ws" }, "workspace"],
  ["a workspace without its hash", { workspace: { root: "/ws" } }, "workspace"],
  ["a workspace hash that is not one", { workspace: { root: "/ws", hash: "xyz" } }, "workspace"],
  ["a source that is a number", { source: 7 }, "source"],
  ["a cwd with a slash inside", { cwd: "ws/a" }, "cwd"],
  ["a task that is a number", { task: 7 }, "task"],
  ["a relative worktree", { worktree: "w/t1" }, "worktree"],
  ["a branch that is a number", { branch: 7 }, "branch"],
  ["one leg", { legs: [LEG] }, null],
  ["a leg without its branch", { legs: [{ source: "api", worktree: "/w" }] }, "legs"],
  ["a good leg then a bad one", { legs: [LEG, { ...LEG, worktree: "w" }] }, "legs"],
  ["an argv word that is a number", { argv: ["sleep", 1] }, "argv"],
  ["a createdAt without milliseconds", { createdAt: "2026-12-02T11:09:43Z" }, null],
  ["a createdAt that is a number", { createdAt: 1 }, "createdAt"],
  ["a createdAt with a prefix", { createdAt: `x${T}` }, "createdAt"],
  ["a createdAt with a suffix", { createdAt: `${T}x` }, "createdAt"],
  ["a startedAt that is not a time", { startedAt: "soon" }, "startedAt"],
  ["an endedAt that is not a time", { endedAt: "soon" }, "endedAt"],
  ["a monitor without its boot id", { monitor: { pid: 10, startTime: null } }, "monitor"],
  ["a monitor pid of 0", { monitor: { pid: 0, startTime: null, bootId: null } }, "monitor"],
  ["a child without its start time", { child: { pid: 11, pgid: 11 } }, "child"],
  ["an on-failure restart", { restart: { policy: "on-failure", max: 3, count: 1 } }, null],
  ["a restart without its count", { restart: { policy: "no", max: 0 } }, "restart"],
  ["a respawn of nothing known", { respawnOf: 7 }, "respawnOf"],
  ["an exit at status 255", { exit: { ...EXIT, status: 255 } }, null],
  ["an exit with its state and reason", { exit: { ...EXIT, state: "exited", reason: "kill" } }, null],
  ["an exit with a null reason", { exit: { ...EXIT, state: "failed", reason: null } }, null],
  ["an exit state that is no exit", { exit: { ...EXIT, state: "lost" } }, "exit"],
  ["an exit reason that is a number", { exit: { ...EXIT, reason: 7 } }, "exit"],
  ["an exit without its status", { exit: { ...EXIT, status: undefined } }, "exit"],
  ["an exit without its end", { exit: { code: 0, signal: null, status: 0 } }, "exit"],
  ["a timeout of 0", { timeoutMs: 0 }, "timeoutMs"],
  ["a timeout of 1 ms", { timeoutMs: 1 }, null],
  ["a negative grace", { graceMs: -1 }, "graceMs"],
  ["a grace of half a ms", { graceMs: 1.5 }, "graceMs"],
  ["an on-exit hook", { onExit: ["notify-send"], onExitTimeoutMs: 1 }, null],
  ["an empty on-exit argv", { onExit: [] }, "onExit"],
  ["an on-exit timeout of 0", { onExitTimeoutMs: 0 }, "onExitTimeoutMs"],
  ["interactive as a string", { interactive: "yes" }, "interactive"],
  ["an isolated run that keeps", { isolate: { onExit: "keep", created: false } }, null],
  ["an isolated run that snapshots", { isolate: { onExit: "snapshot", created: true } }, null],
  ["an isolated run that removes", { isolate: { onExit: "remove", created: true, joined: [ID] } }, null],
  ["an unknown isolate end", { isolate: { onExit: "discard", created: true } }, "isolate"],
  ["an isolate without created", { isolate: { onExit: "keep" } }, "isolate"],
  ["joined runs that are not a list", { isolate: { onExit: "keep", created: true, joined: ID } }, "isolate"],
  [
    "a joined run id with a prefix",
    { isolate: { onExit: "keep", created: true, joined: [ID, `x${ID}`] } },
    "isolate",
  ],
  [
    "a joined run id with a suffix",
    { isolate: { onExit: "keep", created: true, joined: [`${ID}x`] } },
    "isolate",
  ],
  ["a kill by timeout", { kill: { ...KILL, reason: "timeout" } }, null],
  ["a kill by respawn", { kill: { ...KILL, reason: "respawn" } }, null],
  ["a kill for no known reason", { kill: { ...KILL, reason: "whim" } }, "kill"],
  ["a kill without its signal", { kill: { requestedAt: T, reason: "kill" } }, "kill"],
  ["a removed worktree", { worktreeOutcome: { outcome: "removed", reason: null } }, null],
  ["a snapshotted worktree", { worktreeOutcome: { outcome: "snapshotted", reason: null } }, null],
  ["an outcome without its reason", { worktreeOutcome: { outcome: "kept" } }, "worktreeOutcome"],
  [
    "a leg outcome without its reason",
    {
      worktreeOutcome: {
        outcome: "kept",
        reason: "dirty",
        legs: [LEG_OUTCOME, { source: "web", outcome: "kept" }],
      },
    },
    "worktreeOutcome",
  ],
  ["a k8s Job without its kubeconfig", { k8s: { ...K8S, kubeconfig: undefined } }, "k8s"],
  ["a k8s Job with a relative kubeconfig", { k8s: { ...K8S, kubeconfig: "kube/config" } }, "k8s"],
  ["a tty of 2 by 1000", { tty: { cols: 2, rows: 1000 } }, null],
  ["a null tty", { tty: null }, null],
  ["a tty 1 column wide", { tty: { cols: 1, rows: 40 } }, "tty"],
  ["a tty 1001 rows high", { tty: { cols: 80, rows: 1001 } }, "tty"],
  ["a tty without rows", { tty: { cols: 80 } }, "tty"],
  ["an agent", { agent: "claude-code" }, null],
  ["a null agent", { agent: null }, null],
  ["an agent name of 32 characters", { agent: `a${"b".repeat(31)}` }, null],
  ["an agent name of 33 characters", { agent: `a${"b".repeat(32)}` }, "agent"],
  ["an agent starting with a digit", { agent: "1claude" }, "agent"],
  ["an agent with a capital", { agent: "claudE" }, "agent"],
  ["an agent that is a number", { agent: 7 }, "agent"],
  ["a notify command", { notify: ["notify-send"] }, null],
  ["a null notify", { notify: null }, null],
  ["an empty notify argv", { notify: [] }, "notify"],
  ["a sandbox with the network", { sandbox: SANDBOX }, null],
  ["a sandbox without the network", { sandbox: { ...SANDBOX, net: "none", hide: paths(256) } }, null],
  ["a null sandbox", { sandbox: null }, null],
  ["a sandbox without its net", { sandbox: { write: [], hide: [] } }, "sandbox"],
  ["a sandbox with an unknown net", { sandbox: { ...SANDBOX, net: "off" } }, "sandbox"],
  ["a sandbox writing 257 paths", { sandbox: { ...SANDBOX, write: paths(257) } }, "sandbox"],
  ["a sandbox hiding a relative path", { sandbox: { ...SANDBOX, hide: ["/a", "b"] } }, "sandbox"],
  ["a sandbox hiding no list", { sandbox: { ...SANDBOX, hide: "/a" } }, "sandbox"],
  ["claude's reports", { reports: { agent: "claude", via: "claude-hooks" } }, null],
  ["codex's reports", { reports: { agent: "codex", via: "codex-notify" } }, null],
  ["gemini's reports", { reports: { agent: "gemini", via: "gemini-hooks" } }, null],
  ["no reports", { reports: null }, null],
  ["reports of an unknown agent", { reports: { agent: "aider", via: "claude-hooks" } }, "reports"],
  ["reports by an unknown way", { reports: { agent: "claude", via: "mail" } }, "reports"],
  ["reports without their way", { reports: { agent: "claude" } }, "reports"],
  ["a version of 0", { version: 0 }, "version"],
  ["a negative fencing token", { fencingToken: -1 }, "fencingToken"],
  ["a printed final state", { state: "crashed" }, null],
  ["a printed live state", { state: "running" }, null],
  ["an unknown state", { state: "zombie" }, "state"],
  ["another version of the format", { v: 2 }, "v"],
  ["no version", { version: undefined }, "version"],
  ["an empty argv", { argv: [] }, "argv"],
  ["a relative cwd", { cwd: "ws" }, "cwd"],
  ["a child without its pgid", { child: { pid: 11, startTime: null } }, "child"],
  ["an unknown restart policy", { restart: { policy: "always", max: 0, count: 0 } }, "restart"],
  ["an exit status out of range", { exit: { ...EXIT, status: 300 } }, "exit"],
  ["no legs in a legs list", { legs: [] }, "legs"],
  ["a leg without its worktree", { legs: [{ source: "api", branch: "b" }] }, "legs"],
  [
    "an ended, killed, isolated run",
    {
      exit: { code: null, signal: "SIGTERM", status: 143, endedAt: T },
      kill: KILL,
      isolate: { onExit: "remove", created: true },
      worktreeOutcome: { outcome: "kept", reason: "dirty" },
    },
    null,
  ],
  [
    "a --span run: its legs, and how each ended",
    {
      source: null,
      task: "t1",
      legs: [LEG, { ...LEG, source: "web", worktree: "/ws/.ariel/worktrees/t1/web" }],
      isolate: { onExit: "remove", created: true },
      worktreeOutcome: {
        outcome: "kept",
        reason: "dirty",
        legs: [LEG_OUTCOME, { source: "web", outcome: "kept", reason: "dirty" }],
      },
    },
    null,
  ],
  [
    "a leg outcome unknown",
    { worktreeOutcome: { outcome: "kept", reason: null, legs: [{ ...LEG_OUTCOME, outcome: "gone" }] } },
    "worktreeOutcome",
  ],
];

describe("run.json checks", () => {
  it("runRecordProblem names the field the zod schema refuses, and both accept the rest", () => {
    const verdicts = CASES.map(([name, over]) => {
      const rec = { ...GOOD, ...over };
      return [name, runRecordProblem(rec), z.safeParse(runRecordSchema(), rec).success];
    });
    expect(verdicts).toEqual(CASES.map(([name, , want]) => [name, want, want === null]));
  });

  it.each([null, [], "run", 7])("runRecordProblem(%j) is (root)", (x) => {
    expect(runRecordProblem(x)).toBe("(root)");
  });
});

describe("exit.json checks", () => {
  const exit = { v: 1, type: "exit", runId: ID, ...EXIT, state: "exited", reason: null };
  it.each<[string, Record<string, unknown>, string | null]>([
    ["a good exit", {}, null],
    ["a kill", { code: null, signal: "SIGKILL", status: 137, state: "killed", reason: "kill" }, null],
    ["status 255", { status: 255, state: "failed" }, null],
    ["another version", { v: 2 }, "v/type: not an exit record"],
    ["a run record", { type: "run" }, "v/type: not an exit record"],
    ["a run id that is a number", { runId: 7 }, "runId: expected a string"],
    ["a code that is not an integer", { code: 1.5 }, "code: expected an integer or null"],
    ["a code as a string", { code: "0" }, "code: expected an integer or null"],
    ["a signal that is a number", { signal: 9 }, "signal: expected a string or null"],
    ["a status as a string", { status: "0" }, "status: expected 0-255"],
    ["a negative status", { status: -1 }, "status: expected 0-255"],
    ["status 256", { status: 256 }, "status: expected 0-255"],
    ["an end that is a number", { endedAt: 1 }, "endedAt: expected an ISO time"],
    ["an end that is not a time", { endedAt: "yesterday" }, "endedAt: expected an ISO time"],
    ["a state that is no exit", { state: "lost" }, "state: expected exited, failed or killed"],
    ["a reason that is a number", { reason: 7 }, "reason: expected a string or null"],
  ])("%s", (_name, over, want) => {
    expect(exitRecordProblem({ ...exit, ...over })).toBe(want);
  });

  it.each([null, [], "exit", 7])("exitRecordProblem(%j) is not a JSON object", (x) => {
    expect(exitRecordProblem(x)).toBe("not a JSON object");
  });
});

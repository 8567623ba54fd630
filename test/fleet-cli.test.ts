/**
 * ariel-fleet status and events, end to end on real workspaces and run histories: the snapshot,
 * the registry (gone roots kept, bad entries reported), events in order, --since, --follow.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  finishedRun,
  liveRun,
  monitorGone,
  NODE,
  register,
  stateHome,
  ticker,
  workspace,
} from "./fleet_helpers.ts";
import { cliCommand, records, runAriel } from "./helpers/cli.ts";
import { removeDir, tempDir } from "./helpers/git.ts";
import { watchJsonLines } from "./helpers/json_lines.ts";

let state: ReturnType<typeof stateHome>;
let root: string;
let other: string;
let gone: string;
let hash: string;
let runs: string[];
const fleet = (args: string[], env: Record<string, string> = state.env) => runAriel("fleet", args, { env });

/** Start `ariel-fleet events --follow --json ...args`: the process, its stdout so far, its exit code. */
function follow(args: readonly string[]) {
  const [exe, ...pre] = cliCommand("fleet");
  const child = spawn(exe as string, [...pre, "events", "--follow", "--json", ...args], {
    env: { ...process.env, ...state.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  watchJsonLines(child, "ariel-fleet events", ["--json", ...args]);
  let out = "";
  child.stdout.on("data", (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, out: () => out, exited };
}

beforeAll(async () => {
  state = stateHome();
  root = workspace(["api", "web"]);
  other = workspace();
  gone = tempDir("ariel-fleet-gone-");
  hash = await register(state.dir, root);
  await register(state.dir, gone);
  removeDir(gone);
  runs = [
    await finishedRun(root, ["sh", "-c", "echo hello"]),
    await finishedRun(root, ["sh", "-c", "exit 3"]),
  ];
});

afterAll(() => {
  for (const d of [state.dir, root, other]) removeDir(d);
});

describe("ariel-fleet status", () => {
  it("--json prints one fleet record: registered and --workspace roots, the gone one kept", async () => {
    const r = await fleet(["status", "--json", "--workspace", other]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const [snap] = records(r.stdout);
    expect(Object.keys(snap!).slice(0, 2)).toEqual(["v", "type"]);
    const ws = (snap!.workspaces as Record<string, unknown>[]).map((w) => [
      w.root,
      w.origin,
      w.health,
      w.sources,
      w.runs,
    ]);
    const none = { starting: 0, running: 0, exited: 0, failed: 0, killed: 0, lost: 0, crashed: 0 };
    expect(ws).toEqual(
      [
        [root, "registry", "ok", 3, { ...none, exited: 1, failed: 1 }],
        [other, "flag", "ok", 1, none],
        [gone, "registry", "gone", 0, none],
      ].sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1)),
    );
  });

  it("prints tab-separated rows in a pipe", async () => {
    const r = await fleet(["status"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").filter((l) => l.startsWith(root))).toEqual([
      `${root}\t${hash}\tok\t3\t-\t1 exited, 1 failed`,
    ]);
  });

  it("says so when there is no workspace", async () => {
    const empty = stateHome();
    try {
      const r = await fleet(["status"], empty.env);
      expect([r.code, r.stdout]).toEqual([0, ""]);
      expect(r.stderr).toContain("ariel-fleet: no workspaces");
    } finally {
      removeDir(empty.dir);
    }
  });

  it("reports an unreadable registry entry, shows the rest and exits 1", async () => {
    const bad = stateHome();
    try {
      await register(bad.dir, root);
      mkdirSync(join(bad.dir, "workspaces"), { recursive: true });
      writeFileSync(join(bad.dir, "workspaces", "0123456789abcdef.json"), "{not json");
      writeFileSync(
        join(bad.dir, "workspaces", "1123456789abcdef.json"),
        JSON.stringify({
          v: 1,
          root: "/etc",
          hash: "1123456789abcdef",
          firstSeen: "2026-12-02T11:00:00.000Z",
        }),
      );
      const r = await fleet(["status", "--json"], bad.env);
      expect(r.code).toBe(1);
      const warnings = records(r.stderr);
      expect(warnings.map((w) => [w.type, w.code])).toEqual([
        ["warning", "ERR_RECORD_CORRUPT"],
        ["warning", "ERR_RECORD_CORRUPT"],
      ]);
      expect(String(warnings[1]!.message)).toContain("its hash is not the hash of its root");
      const [snap] = records(r.stdout);
      expect((snap!.workspaces as { root: string }[]).map((w) => w.root)).toEqual([root]);
    } finally {
      removeDir(bad.dir);
    }
  });

  it("a foreground run whose ariel-spawn died without finishing is lost, its workspace degraded", async () => {
    const ws = workspace();
    const empty = stateHome();
    try {
      const live = await liveRun(ws, ticker(5, 50));
      live.child.kill("SIGKILL");
      await live.done;
      const r = await fleet(["status", "--json", "--workspace", ws], empty.env);
      const [w] = records(r.stdout)[0]!.workspaces as { health: string; runs: Record<string, number> }[];
      expect([w!.health, w!.runs.lost, w!.runs.running]).toEqual(["degraded", 1, 0]);
    } finally {
      removeDir(ws);
      removeDir(empty.dir);
    }
  });

  it.each([
    ["an unknown flag", ["status", "--nope"]],
    ["a positional", ["status", "extra"]],
    ["an unknown command", ["stat"]],
  ])("%s is a usage error (64)", async (_n, args) => {
    const r = await fleet([...args, "--json"]);
    expect([r.code, records(r.stderr)[0]?.code]).toEqual([64, "ERR_USAGE"]);
  });
});

describe("ariel-fleet events", () => {
  it("prints every run's normalized events in order", async () => {
    const r = await fleet(["events", "--json"]);
    expect(r.code).toBe(0);
    const evs = records(r.stdout);
    expect(evs.map((e) => [e.runId, e.seq, e.event])).toEqual([
      [runs[0], 1, "run.started"],
      [runs[0], 2, "run.state"],
      [runs[0], 3, "output"],
      [runs[0], 4, "run.exited"],
      [runs[0], 5, "run.state"],
      [runs[1], 1, "run.started"],
      [runs[1], 2, "run.state"],
      [runs[1], 3, "run.exited"],
      [runs[1], 4, "run.state"],
    ]);
    expect(evs[2]).toMatchObject({ workspace: hash, stream: "stdout", data: "hello\n" });
    expect(evs[8]).toMatchObject({ from: "running", to: "failed" });
  });

  it("--since keeps the later events; human lines are tab-separated", async () => {
    const all = records((await fleet(["events", "--json"])).stdout);
    const since = String(all[5]!.ts);
    const r = await fleet(["events", "--since", since]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.filter((l) => l.split("\t").length !== 6)).toEqual([]);
    expect(lines.map((l) => l.split("\t").slice(2, 5).join(" "))).toEqual(
      all.filter((e) => String(e.ts) >= since).map((e) => `${e.runId} ${e.seq} ${e.event}`),
    );
  });

  it("a tab in a run's output is escaped in its human line, which keeps its six fields", async () => {
    const ws = workspace();
    try {
      await register(state.dir, ws);
      await finishedRun(ws, ["printf", "a\\tb\\n"]);
      const r = await fleet(["events", "--workspace", ws]);
      const out = r.stdout
        .trim()
        .split("\n")
        .filter((l) => l.split("\t")[4] === "output" && l.includes("stdout: a"));
      expect(out.map((l) => l.split("\t").slice(4))).toEqual([["output", "stdout: a\\tb"]]);
    } finally {
      removeDir(ws);
    }
  });

  it("carries a detached run's output (its stdout and stderr files), before the events that close it", async () => {
    const ws = workspace();
    try {
      const r = await runAriel(
        "spawn",
        // (The sleep: a child that exits at once can have its exit written before its start.)
        ["-C", ws, "--detach", "--json", "--", "sh", "-c", "sleep 0.5; echo one; echo two >&2; echo three"],
        { env: state.env },
      );
      expect(r.code).toBe(0);
      const id = JSON.parse(r.stdout).runId as string;
      const w = await runAriel("runs", ["wait", id, "-C", ws], { env: state.env });
      expect(w.code).toBe(0);
      const evs = records((await fleet(["events", "--json", "--workspace", ws])).stdout).filter(
        (e) => e.runId === id,
      );
      const shown = evs.map((e) =>
        e.event === "output" ? `${e.stream}:${e.seq}:${e.data}` : String(e.event),
      );
      // stdout then stderr (their relative order is not recorded), then the closing events.
      expect(shown.slice(0, 2)).toEqual(["run.started", "run.state"]);
      expect(shown.slice(2, 5)).toEqual(["stdout:0:one\n", "stdout:4:three\n", "stderr:0:two\n"]);
      expect(shown.slice(5)).toEqual(["run.exited", "run.state"]);
      expect(evs.at(-1)).toMatchObject({ from: "running", to: "exited" });
      // From a time after the run ended, nothing of it (its output is not dated: it began before).
      const later = records(
        (await fleet(["events", "--json", "--workspace", ws, "--since", new Date().toISOString()])).stdout,
      );
      expect(later.filter((e) => e.runId === id)).toEqual([]);
    } finally {
      await monitorGone(ws);
      removeDir(ws);
    }
  });

  it("--follow prints a detached run's output as it is written, then the events that close it", async () => {
    const ws = workspace();
    const t0 = new Date().toISOString();
    const before = await finishedRun(ws, ["sh", "-c", "echo before"]);
    // --follow starts at now: --since replays the earlier run first.
    const { child, out, exited } = follow(["--workspace", ws, "--since", t0]);
    try {
      // Attached: it has read the workspace (the earlier run is out, to its closing event).
      await expect
        .poll(
          () =>
            records(out())
              .filter((e) => e.runId === before)
              .at(-1)?.to,
          { timeout: 10_000 },
        )
        .toBe("exited");
      // The child prints ten lines, then holds until the release file exists, then ten more.
      const release = join(ws, ".ariel-test-release");
      const held = `const f=require("fs");let i=0;const t=setInterval(()=>{if(i===10&&!f.existsSync(${JSON.stringify(release)}))return;console.log("line "+(++i));if(i>=20)clearInterval(t)},50)`;
      const r = await runAriel("spawn", ["-C", ws, "--detach", "--json", "--", NODE, "-e", held], {
        env: state.env,
      });
      expect(r.code).toBe(0);
      const id = JSON.parse(r.stdout).runId as string;
      const mine = () => records(out()).filter((e) => e.runId === id);
      // Live: the first ten lines are out while the run cannot have ended (it is held).
      await expect
        .poll(() => mine().filter((e) => e.event === "output").length, { timeout: 10_000 })
        .toBe(10);
      expect(mine().map((e) => e.event)).toEqual(["run.started", "run.state", ...Array(10).fill("output")]);
      writeFileSync(release, "");
      await expect.poll(() => mine().at(-1)?.to, { timeout: 15_000 }).toBe("exited");
      const evs = mine();
      const lines = evs.filter((e) => e.event === "output").map((e) => e.data);
      expect(lines).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`));
      const lastOutput = evs.findLastIndex((e) => e.event === "output");
      expect(evs.slice(lastOutput + 1).map((e) => e.event)).toEqual(["run.exited", "run.state"]);
    } finally {
      child.kill("SIGTERM");
      await monitorGone(ws);
      removeDir(ws);
    }
    expect(await exited).toBe(0);
  });

  it("a bad --since is a usage error", async () => {
    const r = await fleet(["events", "--since", "yesterday", "--json"]);
    expect([r.code, records(r.stderr)[0]?.code]).toEqual([64, "ERR_USAGE"]);
  });

  it("--follow prints a run that starts later, and ends on SIGTERM with status 0", async () => {
    const { child, out, exited } = follow(["--since", new Date().toISOString()]);
    try {
      // Attached: a first run made after it started is out whole before the one under test starts.
      const first = await finishedRun(root, ["sh", "-c", "echo first"]);
      await expect
        .poll(() => records(out()).filter((e) => e.runId === first).length, { timeout: 10_000 })
        .toBe(5);
      const id = await finishedRun(root, ["sh", "-c", "echo late"]);
      await expect
        .poll(() => records(out()).filter((e) => e.runId === id).length, { timeout: 10_000 })
        .toBe(5);
      expect(records(out()).map((e) => e.runId)).toEqual([...Array(5).fill(first), ...Array(5).fill(id)]);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});

/**
 * The fleet view of k8s runs, against the fake Kubernetes API (test/helpers/fake_kube.ts) and a
 * real `ariel-fleet serve` on 127.0.0.1: `ariel-fleet status --json` counts k8s runs by the state
 * their Job and pods give, and the HTTP API lists them, streams a run's output (the pod log) with
 * resume by cursor, kills one (its Job deleted with propagation Background) and respawns one (a
 * new Job from the recorded plan), exactly as for local runs. No token or Secret is served.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSse, register, type Server, serve, stateHome } from "./fleet_helpers.ts";
import { type CliResult, records, runAriel } from "./helpers/cli.ts";
import {
  type FakeKube,
  fakeKube,
  k8sWorkspace,
  SECRET,
  spawnK8sArgs,
  TOKEN,
  until,
} from "./helpers/fake_kube.ts";
import { removeDir } from "./helpers/git.ts";

let cluster: FakeKube;
let state: ReturnType<typeof stateHome>;
let root: string;
let kubeconfig: string;
let hash: string;
let server: Server;
const served: string[] = [];
const json = { "content-type": "application/json" };

async function ariel(cli: "spawn" | "runs" | "fleet", args: string[]): Promise<CliResult> {
  const r = await runAriel(cli, args, { cwd: root, env: { ...state.env, KUBECONFIG: kubeconfig } });
  served.push(r.stdout, r.stderr);
  return r;
}

async function spawnRun(name: string): Promise<string> {
  const r = await ariel("spawn", spawnK8sArgs(name, ["sh", "-c", "echo"]));
  expect(r.code).toBe(0);
  return String(records(r.stdout)[0]?.runId);
}

async function get(path: string) {
  const res = await fetch(`${server.url}${path.replace(/^\//, "")}`);
  const text = await res.text();
  served.push(text);
  return { status: res.status, body: JSON.parse(text) };
}

async function post(path: string, body: string) {
  const res = await fetch(`${server.url}${path.replace(/^\//, "")}`, { method: "POST", body, headers: json });
  const text = await res.text();
  served.push(text);
  return { status: res.status, body: JSON.parse(text) };
}

beforeAll(async () => {
  cluster = await fakeKube();
  state = stateHome();
  ({ root, kubeconfig } = k8sWorkspace(cluster.port));
  hash = await register(state.dir, root);
  server = await serve([], state.env);
});

afterAll(async () => {
  await server?.stop();
  await cluster.close();
  removeDir(root);
  removeDir(state.dir);
});

describe("k8s runs in the fleet view", () => {
  let running: string;
  let done: string;
  let failed: string;

  it("ariel-fleet status --json and GET …/runs show each run in the state its pods give", async () => {
    running = await spawnRun("running");
    done = await spawnRun("done");
    failed = await spawnRun("failed");
    cluster.setPod(running, 1, "Running");
    cluster.setPod(done, 1, "Succeeded", { exitCode: 0 });
    cluster.setJobCondition(done, "Complete");
    cluster.setPod(failed, 1, "Failed", { exitCode: 7 });
    cluster.setJobCondition(failed, "Failed", "BackoffLimitExceeded");

    const s = await ariel("fleet", ["status", "--json"]);
    expect([s.code, s.stderr]).toEqual([0, ""]);
    const ws = (records(s.stdout)[0]!.workspaces as Record<string, unknown>[]).find((w) => w.root === root);
    expect(ws?.runs).toEqual({
      starting: 0,
      running: 1,
      exited: 1,
      failed: 1,
      killed: 0,
      lost: 0,
      crashed: 0,
    });

    const list = await get(`/api/workspaces/${hash}/runs`);
    const rows = (list.body as { runId: string; state: string; kind: string; status: number | null }[])
      .map((r) => [r.runId, r.state, r.kind, r.status])
      .sort();
    expect([list.status, rows]).toEqual([
      200,
      [
        [done, "exited", "detached", 0],
        [failed, "failed", "detached", 7],
        [running, "running", "detached", null],
      ].sort(),
    ]);
    const one = await get(`/api/runs/${running}`);
    expect(one.body).toMatchObject({ runId: running, state: "running", kind: "detached" });
  });

  it("a run's output stream is the pod log: followed, resumed by cursor with no gap and no duplicate, ended with the run", async () => {
    const pod = cluster.podName(running, 1);
    cluster.appendLog(pod, ["one", "two", "three"]);
    const url = `${server.url}api/runs/${running}/stream`;
    const outputs = (ms: readonly { event: string }[]) => ms.filter((m) => m.event === "output").length;
    const first = await readSse(url, {}, (_m, all) => outputs(all) >= 2);
    cluster.appendLog(pod, ["four", "five"]);
    const cursor = first.messages.at(-1)!.id!;
    const follows = (c: { query: string }) => new URLSearchParams(c.query).get("follow") === "true";
    // The log requests made once the second stream has every line, while the run goes on.
    let caughtUp: number | null = null;
    let received = 0;
    const rest = readSse(url, { "last-event-id": cursor }, (_m, all) => {
      received = outputs(all);
      if (received >= 2) caughtUp ??= cluster.logCalls.length;
      return false;
    });
    // Once the run's shared reader follows the log, one more line at a time, each appended once
    // the last one arrived: the server's stream looks at the run at least once per line (a count
    // of its looks, not a time) before the run ends.
    await until("the second stream to catch up", () => caughtUp !== null);
    await until("the shared reader's log connection", () =>
      cluster.logCalls.slice(caughtUp!).some((c) => c.pod === pod && follows(c)),
    );
    for (const [i, text] of ["six", "seven", "eight"].entries()) {
      cluster.appendLog(pod, [text]);
      await until(`line ${text} on the stream`, () => received >= 3 + i);
    }
    cluster.setPod(running, 1, "Succeeded", { exitCode: 0 });
    cluster.setJobCondition(running, "Complete");
    const second = await rest;
    expect(second.ended).toBe(true);
    const lines = [...first.messages, ...second.messages]
      .filter((m) => m.event === "output")
      .map((m) => JSON.parse(m.data) as { data: string; stream: string; seq: number });
    expect(lines.map((l) => [l.stream, l.seq, l.data])).toEqual([
      ["stdout", 0, "one\n"],
      ["stdout", 4, "two\n"],
      ["stdout", 8, "three\n"],
      ["stdout", 14, "four\n"],
      ["stdout", 19, "five\n"],
      ["stdout", 24, "six\n"],
      ["stdout", 28, "seven\n"],
      ["stdout", 34, "eight\n"],
    ]);
    expect((await get(`/api/runs/${running}`)).body).toMatchObject({ state: "exited", status: 0 });
    // Live, the run's shared reader follows the log (follow=true, resumed by timestamp): no
    // request per look (a whole-log read each second before).
    const live = cluster.logCalls.slice(caughtUp!).filter((c) => c.pod === pod);
    const at = live.findIndex(follows); // the shared reader's first connection: the client caught up alone before it
    const shared = at < 0 ? [] : live.slice(at);
    expect([shared.length > 0, shared.filter((c) => !follows(c))]).toEqual([true, []]);
  });

  it("POST kill deletes the Job (propagation Background); POST respawn makes a new Job from the plan", async () => {
    const live = await spawnRun("live");
    cluster.setPod(live, 1, "Running");
    const killed = await post(`/api/runs/${live}/kill`, '{"graceMs":1000}');
    // 202: accepted once the Job is deleted; a k8s run with its Job gone and its kill recorded reads killed at once.
    expect([killed.status, killed.body.state, killed.body.runId]).toEqual([202, "killed", live]);
    expect(cluster.deletes.at(-1)).toEqual({
      name: cluster.jobOf(live),
      body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" },
    });

    const again = await spawnRun("again");
    cluster.setPod(again, 1, "Running");
    const res = await post(`/api/runs/${again}/respawn`, '{"graceMs":1000}');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: "detached", respawnOf: again, state: "starting" });
    const id = res.body.runId as string;
    expect(id).not.toBe(again);
    expect([cluster.jobs.has(cluster.jobOf(again)), cluster.jobs.has(cluster.jobOf(id))]).toEqual([
      false,
      true,
    ]);
    expect((await get(`/api/runs/${again}`)).body.state).toBe("killed");
    const r = await ariel("runs", ["list", "--json"]);
    expect(records(r.stdout).map((x) => [x.runId, x.state, x.respawnOf])).toEqual([[id, "starting", again]]);
  });

  it("nothing served or printed holds the token or the remote's secret", () => {
    expect(cluster.unauthorized()).toBe(0);
    for (const o of [...served, server.stderr()]) {
      expect(o).not.toContain(TOKEN);
      expect(o).not.toContain(SECRET);
    }
  });
});

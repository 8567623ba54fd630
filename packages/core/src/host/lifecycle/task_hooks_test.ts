/**
 * A task's hooks run again (`ariel-worktree hooks run`) and a new task's post-create, on real
 * repositories: each leg's `setup` recorded after its hooks, legs without a hook left as they
 * are, only the legs named, an event other than post-create changing no record; a task without
 * an active leg and an unknown task refused. And what `trust` lists: the repository config files
 * with hooks, each with its trust state.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { hooksDigest } from "../../lifecycle/hooks.ts";
import type { Ports } from "../../ports.ts";
import { taskRecordPath } from "../../state_paths.ts";
import { commitAll, GIT_TEST_ENV, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { hostPorts } from "../ports.ts";
import { makeRoot } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { readTask } from "../worktree/store.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { runTaskHooks } from "./task_hooks.ts";
import { repositoryHookSets } from "./trust_sources.ts";
import { approveHooks } from "./trust_store.ts";

let root: string;
let home: string;
afterEach(() => {
  removeDir(root);
  removeDir(home);
});

function setUp(configs: Record<string, unknown>, commit: string[] = []): Ports {
  root = makeRoot(["api", "web"]);
  home = tempDir("ariel-taskhooks-home-");
  for (const [at, config] of Object.entries(configs)) {
    writeFile(join(root, at, "ariel.config.json"), `${JSON.stringify(config)}\n`);
  }
  for (const s of commit) commitAll(join(root, s), "config");
  return hostPorts({
    env: { PATH: process.env.PATH, ...GIT_TEST_ENV, ARIEL_STATE_HOME: home, ARIEL_OWNER: "tester" },
  });
}

const wt = (s: string) => join(root, ".ariel/worktrees/t1", s);
const setupOf = async (ports: Ports) => {
  const { hash } = await openWorkspace(ports, root);
  const rec = (await readTask(root, hash, "t1"))!;
  return Object.fromEntries(rec.legs.map((l) => [l.source, l.setup ?? null]));
};

describe("a new task's post-create", () => {
  it("each leg with a hook gets its setup recorded: ok or failed; a leg without one has none", async () => {
    const ports = setUp({ api: { hooks: { "post-create": "test -f README.md" } }, web: { hooks: {} } });
    writeFile(join(root, "web", "ariel.config.json"), '{"hooks": {"post-create": "exit 5"}}\n');
    const r = await addTask(ports, { root, taskId: "t1", sources: ["api", "web"] });
    expect(r.hooks?.failed.map((f) => [f.source, f.exit])).toEqual([["web", 5]]);
    expect(r.record.legs.map((l) => [l.source, l.setup])).toEqual([
      ["api", "ok"],
      ["web", "failed"],
    ]);
    expect(await setupOf(ports)).toEqual({ api: "ok", web: "failed" });
  });

  it("no hook for any leg: the record is not written again", async () => {
    const ports = setUp({});
    const r = await addTask(ports, { root, taskId: "t1", sources: ["api"] });
    expect(r.record.version).toBe(1);
    expect(r.record.legs[0]).not.toHaveProperty("setup");
  });

  it("--no-hooks: the legs that have one are recorded skipped", async () => {
    const ports = setUp({ ".": { hooks: { "post-create": "touch ran" } } });
    const r = await addTask(ports, { root, taskId: "t1", sources: ["api"], noHooks: true });
    expect(r.record.legs.map((l) => l.setup)).toEqual(["skipped"]);
    expect(existsSync(join(wt("api"), "ran"))).toBe(false);
  });
});

describe("runTaskHooks", () => {
  it("post-create again after the cause was fixed: the failed leg's setup becomes ok", async () => {
    const ports = setUp({ ".": { hooks: { "post-create": "test -f fixed" } } });
    await addTask(ports, { root, taskId: "t1", sources: ["api", "web"] });
    expect(await setupOf(ports)).toEqual({ api: "failed", web: "failed" });
    writeFile(join(wt("api"), "fixed"), "");
    const r = await runTaskHooks(ports, { root, taskId: "t1", event: "post-create", sources: ["api"] });
    expect(r.hooks.results.map((x) => [x.source, x.status])).toEqual([["api", "ok"]]);
    expect(r.record.legs.map((l) => [l.source, l.setup])).toEqual([
      ["api", "ok"],
      ["web", "failed"],
    ]);
    expect(await setupOf(ports)).toEqual({ api: "ok", web: "failed" });
  });

  it("another event runs in the active legs and changes no record", async () => {
    const ports = setUp({ ".": { hooks: { "pre-land": "touch landed" } } });
    const { record } = await addTask(ports, { root, taskId: "t1", sources: ["api", "web"] });
    const r = await runTaskHooks(ports, { root, taskId: "t1", event: "pre-land" });
    expect(r.hooks.results.map((x) => x.source)).toEqual(["api", "web"]);
    expect(r.record.version).toBe(record.version);
    expect(existsSync(join(wt("web"), "landed"))).toBe(true);
  });

  it("a task with no active leg named: ERR_WORKTREE_MISSING (3), naming restore", async () => {
    const ports = setUp({ ".": { hooks: { "pre-land": "true" } } });
    await addTask(ports, { root, taskId: "t1", sources: ["api"] });
    const { hash } = await openWorkspace(ports, root);
    const rec = (await readTask(root, hash, "t1"))!;
    const path = taskRecordPath(root, "t1");
    const removed = { ...rec, legs: rec.legs.map((l) => ({ ...l, state: "removed" })) };
    writeFileSync(path, `${JSON.stringify(removed)}\n`);
    const e = await arielErrorOf(runTaskHooks(ports, { root, taskId: "t1", event: "pre-land" }));
    expect([e.code, e.exit, e.message, e.hint]).toEqual([
      "ERR_WORKTREE_MISSING",
      3,
      'task "t1" has no active leg to run hooks in',
      "bring its worktrees back first: ariel-worktree restore --task t1",
    ]);
    expect(readFileSync(path, "utf8")).toBe(`${JSON.stringify(removed)}\n`);
  });

  it("an unknown task: ERR_TASK_NOT_FOUND; an unknown source: ERR_SOURCE_NOT_FOUND", async () => {
    const ports = setUp({});
    await addTask(ports, { root, taskId: "t1", sources: ["api"] });
    expect((await arielErrorOf(runTaskHooks(ports, { root, taskId: "t9", event: "pre-land" }))).code).toBe(
      "ERR_TASK_NOT_FOUND",
    );
    const e = await arielErrorOf(
      runTaskHooks(ports, { root, taskId: "t1", event: "pre-land", sources: ["wbe"] }),
    );
    expect(e.code).toBe("ERR_SOURCE_NOT_FOUND");
  });
});

describe("repositoryHookSets", () => {
  it("the tracked config files with hooks of every source, and the sources without one", async () => {
    const hooks = { "post-create": "make" };
    const ports = setUp({ api: { hooks }, web: { ports: ["db"] } }, ["api", "web"]);
    const r = await repositoryHookSets(ports, root);
    expect(r.root).toBe(root);
    expect(r.found.map((f) => [f.source, f.path, f.set.file, f.set.trusted, f.set.untrusted])).toEqual([
      ["api", join(root, "api"), join(root, "api", "ariel.config.json"), false, "never-approved"],
    ]);
    expect(r.without).toEqual(["web"]);
    await approveHooks(ports, {
      file: join(root, "api", "ariel.config.json"),
      sha256: await hooksDigest(hooks),
      hooks,
    });
    expect((await repositoryHookSets(ports, root, ["api"])).found[0]!.set.trusted).toBe(true);
  });

  it("an untracked file is the user's own: not listed; a source named that has none is 'without'", async () => {
    const ports = setUp({ api: { hooks: { "post-create": "make" } } });
    expect(await repositoryHookSets(ports, root, ["api", "web"])).toEqual({
      root,
      found: [],
      without: ["api", "web"],
    });
    rmSync(join(root, "api", "ariel.config.json"));
    expect((await arielErrorOf(repositoryHookSets(ports, root, ["nope"]))).code).toBe("ERR_SOURCE_NOT_FOUND");
  });
});

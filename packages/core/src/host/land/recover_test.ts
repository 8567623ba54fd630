/**
 * recoverLands on real repositories: a land that crashed while `landing` is finished forward
 * under the task's lease (a target still where the land found it is moved, one already moved is
 * recorded), a target someone else moved is reported and left alone, a dry run only plans, a
 * task whose lease is held is reported busy, and records that are not landing are not touched.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LandLeg, TaskRecord } from "../../schema/task.ts";
import { taskRecordPath } from "../../state_paths.ts";
import { commitAll, git, removeDir, writeFile } from "../_fixture.ts";
import { withLease } from "../lease-store.ts";
import { faultyPorts, makeRoot } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { readTask, writeTask } from "../worktree/store.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { recoverLands } from "./recover.ts";

let root: string;
afterEach(() => removeDir(root));

type Tips = Record<"api" | "web", { base: string; tip: string }>;

/**
 * Task t1 over api and web, a commit in each leg, and a record whose land crashed while
 * `landing`: each leg's step `pending` from main's tip to the leg's, in the source checkout.
 */
async function crashedLand(): Promise<{ record: TaskRecord; tips: Tips }> {
  root = makeRoot(["api", "web"]);
  const ports = faultyPorts();
  const { record } = await addTask(ports, { root, taskId: "t1", sources: ["api", "web"] });
  const tips = {} as Tips;
  for (const s of ["api", "web"] as const) {
    const leg = join(root, ".ariel/worktrees/t1", s);
    writeFile(join(leg, `${s}.txt`), `${s}\n`);
    tips[s] = { base: git(join(root, s), "rev-parse", "main"), tip: commitAll(leg, `work in ${s}`) };
  }
  const legs: LandLeg[] = (["api", "web"] as const).map((s) => ({
    source: s,
    target: "main",
    from: tips[s].base,
    to: tips[s].tip,
    checkout: join(root, s),
    state: "pending",
  }));
  const land = {
    strategy: "ff" as const,
    state: "landing" as const,
    startedAt: "2026-12-04T00:00:00.000Z",
    legs,
  };
  const written = await withLease(root, "t1", { owner: "tester" }, (lease) =>
    writeTask(ports, { ...record, land }, record.version, lease),
  );
  return { record: written, tips };
}

const ws = () => openWorkspace(faultyPorts(), root);
const mainOf = (s: string) => git(join(root, s), "rev-parse", "main");
const read = async () => (await readTask(root, (await ws()).hash, "t1"))!;

describe("recoverLands", () => {
  it("finishes a crashed land forward: moves the target still at `from`, records the one already at `to`", async () => {
    const { tips } = await crashedLand();
    // The crash came after web's target moved and before the record said so.
    git(join(root, "web"), "merge", "-q", "--ff-only", tips.web.tip);
    const seen: string[] = [];
    const out = await recoverLands(await ws(), { onStep: (s) => seen.push(`${s.fix} ${s.source}`) });
    const step = (fix: string, s: "api" | "web") => ({
      fix,
      task: "t1",
      source: s,
      path: join(root, s),
      target: "main",
      ...(fix === "finish-land" ? { from: tips[s].base } : {}),
      to: tips[s].tip,
    });
    expect(out).toEqual({
      planned: [step("finish-land", "api"), step("mark-landed", "web")],
      notes: [],
      applied: [step("finish-land", "api"), step("mark-landed", "web")],
      failed: [],
      busy: [],
    });
    expect(seen).toEqual(["finish-land api", "mark-landed web"]);
    expect([mainOf("api"), mainOf("web")]).toEqual([tips.api.tip, tips.web.tip]);
    // The checkout's files followed its branch.
    expect(readFileSync(join(root, "api", "api.txt"), "utf8")).toBe("api\n");
    const land = (await read()).land!;
    expect([land.state, land.legs.map((l) => l.state), typeof land.endedAt]).toEqual([
      "landed",
      ["landed", "landed"],
      "string",
    ]);
  });

  it("a dry run plans the same steps, calls onStep with each, and changes nothing", async () => {
    const { record, tips } = await crashedLand();
    const seen: string[] = [];
    const out = await recoverLands(await ws(), {
      dryRun: true,
      onStep: (s) => seen.push(`${s.fix} ${s.source}`),
    });
    expect(out.planned.map((s) => `${s.fix} ${s.source}`)).toEqual(["finish-land api", "finish-land web"]);
    expect([out.applied, out.failed, out.busy, seen]).toEqual([
      [],
      [],
      [],
      ["finish-land api", "finish-land web"],
    ]);
    expect([mainOf("api"), mainOf("web")]).toEqual([tips.api.base, tips.web.base]);
    expect((await read()).version).toBe(record.version);
  });

  it("reports a target that someone else moved (W_LAND_STUCK), leaves it, and keeps the land landing", async () => {
    const { tips } = await crashedLand();
    writeFile(join(root, "web", "other.txt"), "other\n");
    const other = commitAll(join(root, "web"), "someone else");
    const out = await recoverLands(await ws(), {});
    expect(out.notes.map((n) => [n.code, n.source, n.expected, n.found])).toEqual([
      ["W_LAND_STUCK", "web", tips.web.base, other],
    ]);
    expect(out.applied.map((s) => `${s.fix} ${s.source}`)).toEqual(["finish-land api"]);
    expect([mainOf("api"), mainOf("web")]).toEqual([tips.api.tip, other]);
    const land = (await read()).land!;
    expect([land.state, land.legs.map((l) => l.state), land.endedAt]).toEqual([
      "landing",
      ["landed", "pending"],
      undefined,
    ]);
  });

  it("a step that fails (a dirty checkout) is reported failed; the other is finished; the land stays landing", async () => {
    const { tips } = await crashedLand();
    writeFile(join(root, "api", "README.md"), "dirty\n");
    const out = await recoverLands(await ws(), {});
    expect(out.failed.map((f) => [f.step.fix, f.step.source, f.error.code])).toEqual([
      ["finish-land", "api", "ERR_TARGET_DIRTY"],
    ]);
    expect(out.applied.map((s) => `${s.fix} ${s.source}`)).toEqual(["finish-land web"]);
    expect([mainOf("api"), mainOf("web")]).toEqual([tips.api.base, tips.web.tip]);
    const land = (await read()).land!;
    expect([land.state, land.legs.map((l) => l.state)]).toEqual(["landing", ["pending", "landed"]]);
  });

  it("a task whose lease another holds is busy: planned, not changed", async () => {
    const { record, tips } = await crashedLand();
    const out = await withLease(root, "t1", { owner: "someone-else" }, async () =>
      recoverLands(await ws(), {}),
    );
    expect([out.busy, out.applied, out.planned.length]).toEqual([["t1"], [], 2]);
    expect([mainOf("api"), mainOf("web")]).toEqual([tips.api.base, tips.web.base]);
    expect((await read()).version).toBe(record.version);
  });

  it("touches no record that is not landing, and passes over files that are not records", async () => {
    const { record, tips } = await crashedLand();
    const ports = faultyPorts();
    const landed = { ...record.land!, state: "landed" as const };
    await withLease(root, "t1", { owner: "tester" }, (lease) =>
      writeTask(ports, { ...record, land: landed }, record.version, lease),
    );
    const tasks = join(root, ".ariel/tasks");
    // Not records: a directory named like one, a stray file, and a corrupt record saying "landing".
    mkdirSync(join(tasks, "d1.json"));
    writeFileSync(join(tasks, "notes.txt"), '{"state":"landing"}');
    writeFileSync(taskRecordPath(root, "t2"), '{"state": "landing", broken');
    const out = await recoverLands(await ws(), {});
    expect(out).toEqual({ planned: [], notes: [], applied: [], failed: [], busy: [] });
    expect([mainOf("api"), mainOf("web")]).toEqual([tips.api.base, tips.web.base]);
  });

  it("a leg whose source left the record is stuck (its target is not looked up), not moved", async () => {
    const { record } = await crashedLand();
    const ports = faultyPorts();
    const legs = record.legs.filter((l) => l.source === "api");
    await withLease(root, "t1", { owner: "tester" }, (lease) =>
      writeTask(ports, { ...record, legs }, record.version, lease),
    );
    const out = await recoverLands(await ws(), { dryRun: true });
    expect(out.planned.map((s) => `${s.fix} ${s.source} ${s.path}`)).toEqual([
      `finish-land api ${join(root, "api")}`,
    ]);
    expect(out.notes.map((n) => [n.code, n.source, n.found])).toEqual([["W_LAND_STUCK", "web", null]]);
  });
});

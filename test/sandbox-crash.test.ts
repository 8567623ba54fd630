// Nothing is lost (docs/sandbox.md, The sync; docs/durability.md): a sandboxed run killed -9
// with its monitor, or ariel-spawn killed -9, at each step of bringing its work home, leaves
// every uncommitted file in place, and reconcile or the next command that reads the task
// finishes the sync: every commit on its branch, nothing half-made.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { processStartTime } from "../packages/core/src/host/proc.ts";
import { records, startPausedAt } from "./helpers/cli.ts";
import { git } from "./helpers/git.ts";
import { alive, cleanUp, spawnD, until } from "./runs_helpers.ts";
import { cleanWorlds, describeSandbox, type SandboxWorld, sandboxWorld, script } from "./sandbox_helpers.ts";
import { legPath, wt } from "./worktree-fixtures.ts";

afterEach(() => {
  cleanUp();
  cleanWorlds();
});

/** Three commits on the task's branch, one on a new branch, a stash entry, a file left uncommitted. */
const WORK = `set -e
for i in 1 2 3; do echo "$i" >> README.md; git commit -qam "work $i"; done
git switch -qc feat && git commit -q --allow-empty -m "feat" && git switch -q ariel/t1
echo stashed > s.txt && git add s.txt && git stash -q
echo wip > wip.txt
`;

/** After the crash and the finishing command: every commit home, the uncommitted file in place, the sandbox gone. */
function everythingHome(w: SandboxWorld): void {
  const leg = legPath(w.root, "t1", "api");
  expect(git(w.api, "log", "--format=%s", "-3", "ariel/t1")).toBe("work 3\nwork 2\nwork 1");
  expect(git(w.api, "log", "--format=%s", "-1", "feat")).toBe("feat");
  const kept = git(w.api, "for-each-ref", "--format=%(refname)", "refs/ariel/sandbox/");
  expect(kept.split("\n").filter((r) => r.includes("/stash/"))).toHaveLength(1);
  expect(git(leg, "status", "--porcelain")).toBe("?? wip.txt");
  expect(readFileSync(join(leg, "wip.txt"), "utf8")).toBe("wip\n");
  expect(readdirSync(join(w.root, ".ariel/sandbox"))).toEqual([]);
  expect(git(w.api, "fsck", "--no-dangling")).toBe("");
}

/** `reconcile --dry-run` names the run's unfinished sync, as one step, and changes nothing. */
async function reconcilePlansTheSync(w: SandboxWorld, runId: string): Promise<void> {
  const sandboxes = join(w.root, ".ariel/sandbox");
  const before = { files: readdirSync(sandboxes).sort(), refs: git(w.api, "for-each-ref") };
  const plan = await wt(w.root, ["reconcile", "--dry-run", "--json"], { env: w.env });
  expect([plan.code, plan.stderr]).toEqual([0, ""]);
  const steps = records(plan.stdout).filter((s) => s.fix === "finish-sandbox");
  expect(steps.map(({ fix, task, path, run }) => ({ fix, task, path, run }))).toEqual([
    { fix: "finish-sandbox", task: "t1", path: join(sandboxes, runId), run: runId },
  ]);
  expect({ files: readdirSync(sandboxes).sort(), refs: git(w.api, "for-each-ref") }).toEqual(before);
}

describeSandbox("a sandboxed run killed -9 while its work comes home", () => {
  it.each([
    ["sandbox:after-objects", "reconcile"],
    ["sandbox:after-ref", "reconcile"],
    ["sandbox:before-cleanup", "reconcile"],
    ["sandbox:after-ref", "diff"],
  ])("the monitor killed at %s; %s finishes it", async (point, finisher) => {
    const w = sandboxWorld();
    const sh = script(w, "work.sh", WORK);
    const r = await spawnD(
      w.root,
      ["--json", "--sandbox", "--isolate", "--keep", "--task", "t1", "--source", "api", "--", "sh", sh],
      { env: { ...w.env, ARIEL_TEST_HOOKS: "1", ARIEL_TEST_PAUSE_AT: point } },
    );
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const monitor = (records(r.stdout)[0]!.monitor as { pid: number }).pid;
    const log = join(w.root, ".ariel/monitor.log");
    await until(() => readFileSync(log, "utf8").includes(`ariel-test-paused ${point} ${monitor}`), 20_000);
    process.kill(monitor, "SIGKILL");
    await until(() => !alive(monitor));
    // The uncommitted work is where the run left it, whatever the sync had done.
    expect(readFileSync(join(legPath(w.root, "t1", "api"), "wip.txt"), "utf8")).toBe("wip\n");
    if (finisher === "reconcile") await reconcilePlansTheSync(w, records(r.stdout)[0]!.runId as string);
    const next =
      finisher === "reconcile"
        ? await wt(w.root, ["reconcile", "--json"], { env: w.env })
        : await wt(w.root, ["diff", "--task", "t1", "--json"], { env: w.env });
    expect([next.code, next.stderr]).toEqual([0, ""]);
    if (finisher === "reconcile") {
      expect(records(next.stdout).map((s) => s.fix)).toContain("finish-sandbox");
    }
    everythingHome(w);
  });

  it("the monitor killed while the run still works: the sandbox dies with it, reconcile brings home what it committed", async () => {
    const w = sandboxWorld();
    const sh = script(w, "work.sh", `${WORK}echo worked > ${w.root}/worked.flag 2>/dev/null; sleep 60\n`);
    const r = await spawnD(
      w.root,
      ["--json", "--sandbox", "--isolate", "--keep", "--task", "t1", "--source", "api", "--", "sh", sh],
      { env: w.env },
    );
    expect(r.code).toBe(0);
    const rec = records(r.stdout)[0]!;
    const monitor = (rec.monitor as { pid: number }).pid;
    const child = (rec.child as { pid: number }).pid;
    await until(() => existsSync(join(legPath(w.root, "t1", "api"), "wip.txt")), 20_000);
    process.kill(monitor, "SIGKILL");
    await until(() => !alive(monitor) && !alive(child), 10_000);
    const next = await wt(w.root, ["reconcile", "--json"], { env: w.env });
    expect(next.code).toBe(0);
    everythingHome(w);
  });

  it("ariel-spawn killed -9 in the middle of the sync; the next remove --snapshot finishes it first", async () => {
    const w = sandboxWorld();
    const sh = script(w, "work.sh", WORK);
    const paused = await startPausedAt(
      "spawn",
      "sandbox:after-ref",
      ["-C", w.root, "--sandbox", "--isolate", "--keep", "--task", "t1", "--source", "api", "--", "sh", sh],
      { env: w.env },
    );
    await paused.kill();
    expect(readFileSync(join(legPath(w.root, "t1", "api"), "wip.txt"), "utf8")).toBe("wip\n");
    const rm = await wt(w.root, ["remove", "--task", "t1", "--snapshot", "--json"], { env: w.env });
    expect(rm.code).toBe(0);
    expect(git(w.api, "log", "--format=%s", "-3", "ariel/t1")).toBe("work 3\nwork 2\nwork 1");
    expect(git(w.api, "log", "--format=%s", "-1", "feat")).toBe("feat");
    expect(readdirSync(join(w.root, ".ariel/sandbox"))).toEqual([]);
    expect(git(w.api, "fsck", "--no-dangling")).toBe("");
  });

  it("a sandbox's lock left by a process killed -9 is cleared by reconcile; a live holder's is left", async () => {
    const w = sandboxWorld();
    const dir = join(w.root, ".ariel/sandbox");
    mkdirSync(dir, { recursive: true });
    const dead = spawnSync("true").pid!;
    const holder = (pid: number) =>
      `${JSON.stringify({ pid, processStart: processStartTime(pid) ?? "0", host: hostname(), nonce: "n" })}\n`;
    writeFileSync(join(dir, "20261204T000000Z-aaaaaa.lock"), holder(dead));
    writeFileSync(join(dir, "20261204T000000Z-bbbbbb.lock"), holder(process.pid));
    const r = await wt(w.root, ["reconcile", "--json"], { env: w.env });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(records(r.stdout).map((s) => [s.fix, String(s.path).split("/").pop()])).toEqual([
      ["remove-stale-lock", "20261204T000000Z-aaaaaa.lock"],
    ]);
    expect(readdirSync(dir)).toEqual(["20261204T000000Z-bbbbbb.lock"]);
  });
});

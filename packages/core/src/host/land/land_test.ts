/**
 * landTask on real repositories, in-process: every leg is checked before any target moves, then
 * every leg lands or none does. What lands where under each strategy (exact target tips, the
 * record's land and its steps), the refusals that change nothing (a conflict, no fast-forward, a
 * dirty target checkout here or in another worktree, no target, a missing branch, a pending land,
 * a removal that would refuse, a failing pre-land hook), a dry run that writes nothing, a land
 * rolled back after a later leg fails (a checked-out target and one checked out nowhere), a leg
 * that cannot be undone, a lease lost part-way, `--remove`, the git version check and the `land`
 * records of a result.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { Ports } from "../../ports.ts";
import type { LandLeg } from "../../schema/task.ts";
import { taskRecordPath } from "../../state_paths.ts";
import { commitAll, GIT_TEST_ENV, git, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { ensureGit } from "../git.ts";
import { withLease } from "../lease-store.ts";
import { faultyPorts, gitPicture, makeRoot, stealLease } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { removeTask } from "../worktree/remove.ts";
import { readTask, writeTask } from "../worktree/store.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { LAND_MIN_GIT, type LandTaskOptions, landRecords, landTask, requireLandGit } from "./land.ts";

// The git version land checks is the one seam faked here (an old git cannot be installed per test).
vi.mock("../git.ts", async (original) => {
  const real = await original<typeof import("../git.ts")>();
  return { ...real, ensureGit: vi.fn(real.ensureGit) };
});

// A merge or squash candidate is a commit made by the host's git, which takes its identity from
// the process.
Object.assign(process.env, GIT_TEST_ENV);

const SOURCES = ["api", "web", "docs"] as const;
type Source = (typeof SOURCES)[number];
const NOW = "2026-12-04T12:00:00.000Z";

let root = "";
let home = "";
afterEach(() => {
  removeDir(root);
  removeDir(home);
});

/** Host ports (real git, real files) with a state home of the test's own and a fixed clock. */
function ports(): Ports {
  const p = faultyPorts();
  return { ...p, env: { ...p.env, ARIEL_STATE_HOME: home }, clock: { now: () => Date.parse(NOW) } };
}

/**
 * Ports whose git, once a call matching `when` succeeds, runs `then` (what another process does
 * at that moment) before answering: the in-process form of the e2e tests' pause points.
 */
function portsThen(when: (args: readonly string[], cwd: string) => boolean, then: () => void): Ports {
  const p = ports();
  let fired = false;
  const run: Ports["git"]["run"] = async (args, options) => {
    const r = await p.git.run(args, options);
    if (!fired && r.code === 0 && when(args, options.cwd)) {
      fired = true;
      then();
    }
    return r;
  };
  return { ...p, git: { run } };
}

const repo = (s: Source) => join(root, s);
const legPath = (s: Source) => join(root, ".ariel/worktrees/t1", s);
const tipOf = (s: Source, branch = "main") => git(repo(s), "rev-parse", `refs/heads/${branch}`);

/**
 * Task t1 over api, web and docs, with one commit (`work in S`, adding work.txt) in each leg
 * unless `commit` is false. Returns main's tip of each source before and each leg's tip.
 */
async function task(commit = true) {
  root = makeRoot([...SOURCES]);
  home = tempDir("ariel-land-home-");
  await addTask(ports(), { root, taskId: "t1", sources: [...SOURCES], noHooks: true });
  const base = {} as Record<Source, string>;
  const tip = {} as Record<Source, string>;
  for (const s of SOURCES) {
    base[s] = tipOf(s);
    if (commit) writeFile(join(legPath(s), "work.txt"), `${s} work\n`);
    tip[s] = commit ? commitAll(legPath(s), `work in ${s}`) : base[s];
  }
  return { base, tip };
}

const land = (over: Partial<LandTaskOptions> = {}, p: Ports = ports()) =>
  landTask(p, { root, taskId: "t1", noHooks: true, ...over });
const record = async () => (await readTask(root, (await openWorkspace(ports(), root)).hash, "t1"))!;

/** Every file under `dir` with its bytes (sorted paths): what a dry run must leave alone. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[p] = readFileSync(p, "utf8");
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** Refs and worktrees of every source, and the task's record bytes: what a refusal leaves alone. */
const picture = () => ({
  git: SOURCES.map((s) => gitPicture(repo(s))),
  status: SOURCES.map((s) => git(repo(s), "status", "--porcelain")),
  record: readFileSync(taskRecordPath(root, "t1"), "utf8"),
});

/** One step of the record's land. */
const step = (source: Source, from: string, to: string, state: LandLeg["state"], over = {}): LandLeg => ({
  source,
  target: "main",
  from,
  to,
  checkout: repo(source),
  state,
  ...over,
});

describe("landTask: every leg lands", () => {
  it("merge (the default) over three legs: each main at a merge commit of main and the leg, the record landed", async () => {
    const { base, tip } = await task();
    const r = await land();
    const to = Object.fromEntries(SOURCES.map((s) => [s, tipOf(s)])) as Record<Source, string>;
    for (const s of SOURCES) {
      expect(git(repo(s), "rev-list", "--parents", "-n1", to[s])).toBe(`${to[s]} ${base[s]} ${tip[s]}`);
      expect(git(repo(s), "status", "--porcelain")).toBe(""); // the checkout followed its branch
      expect(git(repo(s), "show", "HEAD:work.txt")).toBe(`${s} work`);
    }
    expect([r.landed, r.plan.refused, r.plan.changes, r.plan.strategy, r.deletedBranches]).toEqual([
      true,
      false,
      3,
      "merge",
      [],
    ]);
    expect("removal" in r || "lifecycle" in r).toBe(false);
    expect(r.plan.legs.map((l) => [l.source, l.action, l.from, l.to, l.commits, l.checkout])).toEqual(
      SOURCES.map((s) => [s, "land", base[s], to[s], 1, repo(s)]),
    );
    expect(r.record.land).toEqual({
      strategy: "merge",
      state: "landed",
      startedAt: NOW,
      endedAt: NOW,
      legs: SOURCES.map((s) => step(s, base[s], to[s], "landed")),
    });
    expect(await record()).toEqual(r.record);
    expect(r.record.state).toBe("active");
  });

  it.each(["ff", "rebase"] as const)(
    "%s with a fast-forward possible: each main at the leg's own tip",
    async (strategy) => {
      const { base, tip } = await task();
      const r = await land({ strategy });
      expect(SOURCES.map((s) => tipOf(s))).toEqual(SOURCES.map((s) => tip[s]));
      expect(r.record.land?.legs).toEqual(SOURCES.map((s) => step(s, base[s], tip[s], "landed")));
      expect([r.record.land?.strategy, r.record.land?.state]).toEqual([strategy, "landed"]);
    },
  );

  it("squash: each main one commit on its old tip with the leg's message and files", async () => {
    const { base } = await task();
    await land({ strategy: "squash" });
    for (const s of SOURCES) {
      expect(git(repo(s), "log", "-1", "--format=%P|%s", "main")).toBe(`${base[s]}|work in ${s}`);
      expect(git(repo(s), "show", "main:work.txt")).toBe(`${s} work`);
    }
  });

  it("--into a branch checked out nowhere moves only that ref (reflog naming the task); main and its checkout stay", async () => {
    const { base, tip } = await task();
    for (const s of SOURCES) git(repo(s), "branch", "release", "main");
    writeFile(join(repo("api"), "README.md"), "a local edit, not in the way\n");
    const r = await land({ into: "release", strategy: "ff" });
    for (const s of SOURCES) {
      expect([tipOf(s, "release"), tipOf(s)]).toEqual([tip[s], base[s]]);
      expect(git(repo(s), "reflog", "show", "-n1", "--format=%gs", "refs/heads/release")).toBe(
        "ariel land t1",
      );
    }
    expect(git(repo("api"), "status", "--porcelain")).toBe("M README.md");
    expect(r.record.land?.legs).toEqual(
      SOURCES.map((s) => step(s, base[s], tip[s], "landed", { target: "release", checkout: null })),
    );
  });

  it("a target checked out in another worktree is fast-forwarded there: its files follow", async () => {
    const { base, tip } = await task();
    const other = join(root, "api-release");
    git(repo("api"), "worktree", "add", "-q", "-b", "release", other, "main");
    for (const s of ["web", "docs"] as const) git(repo(s), "branch", "release", "main");
    const r = await land({ into: "release", strategy: "ff" });
    expect(r.plan.legs.map((l) => l.checkout)).toEqual([other, null, null]);
    expect([tipOf("api", "release"), git(other, "rev-parse", "HEAD"), tipOf("api")]).toEqual([
      tip.api,
      tip.api,
      base.api,
    ]);
    expect([readFileSync(join(other, "work.txt"), "utf8"), git(other, "status", "--porcelain")]).toEqual([
      "api work\n",
      "",
    ]);
  });

  it("a leg with uncommitted work lands its commits only, names the paths, and the work stays", async () => {
    const { tip } = await task();
    writeFile(join(legPath("web"), "wip.txt"), "not committed\n");
    const r = await land({ strategy: "ff" });
    expect(r.plan.legs.map((l) => l.uncommitted)).toEqual([[], ["wip.txt"], []]);
    expect([r.landed, tipOf("web"), readFileSync(join(legPath("web"), "wip.txt"), "utf8")]).toEqual([
      true,
      tip.web,
      "not committed\n",
    ]);
    expect(existsSync(join(repo("web"), "wip.txt"))).toBe(false);
  });

  it("nothing to land: every leg skipped at main's tip, no land recorded, nothing moved", async () => {
    const { base } = await task(false);
    const before = picture();
    const r = await land();
    expect([r.landed, r.plan.refused, r.plan.changes, r.deletedBranches]).toEqual([false, false, 0, []]);
    expect(r.plan.legs.map((l) => [l.action, l.from, l.to, l.commits])).toEqual(
      SOURCES.map((s) => ["skip", base[s], base[s], 0]),
    );
    expect(r.record.land).toBeUndefined();
    expect(picture()).toEqual(before);
  });

  it("landing again after a land: nothing moves, the first land's record stays", async () => {
    await task();
    const first = await land({ strategy: "ff" });
    const before = picture();
    const again = await land({ strategy: "ff" });
    expect([again.landed, again.plan.changes, again.plan.legs.map((l) => l.action)]).toEqual([
      false,
      0,
      ["skip", "skip", "skip"],
    ]);
    expect(again.record).toEqual(first.record);
    expect(picture()).toEqual(before);
  });

  it("a leg with nothing to land beside legs that land: only those move and are recorded", async () => {
    const { base, tip } = await task();
    git(legPath("web"), "reset", "-q", "--hard", base.web);
    const r = await land({ strategy: "ff" });
    expect(r.plan.legs.map((l) => l.action)).toEqual(["land", "skip", "land"]);
    expect(SOURCES.map((s) => tipOf(s))).toEqual([tip.api, base.web, tip.docs]);
    expect(r.record.land?.legs).toEqual([
      step("api", base.api, tip.api, "landed"),
      step("docs", base.docs, tip.docs, "landed"),
    ]);
  });
});

/** One refusal of a leg, as the plan carries it. */
const refusal = (reason: string, code: string, message: string, hint: string, items?: string[]) => ({
  reason,
  code,
  message,
  hint,
  ...(items ? { items } : {}),
});

/** A task whose land crashed: its record `landing`, as reconcile finds it. */
async function pendingLand(): Promise<void> {
  const p = ports();
  const rec = await record();
  const land = { strategy: "ff" as const, state: "landing" as const, startedAt: NOW, legs: [] };
  await withLease(root, "t1", { owner: "tester" }, (lease) =>
    writeTask(p, { ...rec, land }, rec.version, lease),
  );
}

const OTHER = () => join(root, "api-release");

describe("landTask: a refused plan changes nothing", () => {
  it.each<{
    name: string;
    setup: () => Promise<void> | void;
    options: Partial<LandTaskOptions>;
    refusals: () => Partial<Record<Source, ReturnType<typeof refusal>[]>>;
  }>([
    {
      name: "a conflict in one leg of three (merge)",
      setup: () => {
        writeFile(join(repo("web"), "work.txt"), "someone else's\n");
        commitAll(repo("web"), "meanwhile on main");
      },
      options: {},
      refusals: () => ({
        web: [
          refusal(
            "conflict",
            "ERR_LAND_CONFLICT",
            "web: ariel/t1 does not merge cleanly into main: work.txt",
            `in ${legPath("web")}: git merge main, resolve the conflicts and commit, then land again`,
            ["work.txt"],
          ),
        ],
      }),
    },
    {
      name: "ff and a target that moved on",
      setup: () => {
        writeFile(join(repo("docs"), "other.txt"), "x\n");
        commitAll(repo("docs"), "meanwhile");
      },
      options: { strategy: "ff" },
      refusals: () => ({
        docs: [
          refusal(
            "not-fast-forward",
            "ERR_NOT_FAST_FORWARD",
            "main of docs has commits ariel/t1 does not: no fast-forward",
            "land with --strategy merge, squash or rebase, or rebase ariel/t1 onto main first",
          ),
        ],
      }),
    },
    {
      name: "a dirty checkout of the target",
      setup: () => writeFile(join(repo("api"), "README.md"), "local edit\n"),
      options: {},
      refusals: () => ({
        api: [
          refusal(
            "target-dirty",
            "ERR_TARGET_DIRTY",
            `main is checked out in ${repo("api")}, which has uncommitted changes: README.md`,
            `commit or stash the changes in ${repo("api")}, or land --into a branch that is not checked out`,
            ["README.md"],
          ),
        ],
      }),
    },
    {
      name: "a target checked out, dirty, in another worktree",
      setup: () => {
        git(repo("api"), "worktree", "add", "-q", "-b", "release", OTHER(), "main");
        writeFile(join(OTHER(), "scratch.txt"), "x\n");
        for (const s of ["web", "docs"] as const) git(repo(s), "branch", "release", "main");
      },
      options: { into: "release", strategy: "ff" },
      refusals: () => ({
        api: [
          refusal(
            "target-dirty",
            "ERR_TARGET_DIRTY",
            `release is checked out in ${OTHER()}, which has uncommitted changes: scratch.txt`,
            `commit or stash the changes in ${OTHER()}, or land --into a branch that is not checked out`,
            ["scratch.txt"],
          ),
        ],
      }),
    },
    {
      name: "a source on a detached HEAD and no --into",
      setup: () => git(repo("web"), "checkout", "-q", "--detach"),
      options: {},
      refusals: () => ({
        web: [
          refusal(
            "no-target",
            "ERR_REFUSED",
            `${repo("web")} has a detached HEAD: no branch to land web into; pass --into BRANCH`,
            `${repo("web")} is on a detached HEAD: land --into BRANCH`,
          ),
        ],
      }),
    },
    {
      name: "--into a branch no source has",
      setup: () => {},
      options: { into: "nope" },
      refusals: () =>
        Object.fromEntries(
          SOURCES.map((s) => [
            s,
            [
              refusal(
                "target-missing",
                "ERR_REFUSED",
                `${s} has no branch nope to land into`,
                `land --into a branch ${repo(s)} has, or create nope there first`,
              ),
            ],
          ]),
        ),
    },
    {
      name: "--into the task's own branch",
      setup: () => {},
      options: { into: "ariel/t1" },
      refusals: () =>
        Object.fromEntries(
          SOURCES.map((s) => [
            s,
            [
              refusal(
                "same-branch",
                "ERR_REFUSED",
                `${s}: the target ariel/t1 is the task's own branch`,
                "land --into the branch the work should go to",
              ),
            ],
          ]),
        ),
    },
    {
      name: "a leg whose branch is gone",
      setup: () => {
        git(legPath("docs"), "checkout", "-q", "--detach");
        git(repo("docs"), "branch", "-D", "ariel/t1");
      },
      options: {},
      refusals: () => ({
        docs: [
          refusal(
            "branch-missing",
            "ERR_BRANCH_MISSING",
            "branch ariel/t1 of docs (task t1) no longer exists",
            `recreate ariel/t1 in ${repo("docs")} (git branch ariel/t1 COMMIT; git log -g lists its commits), then land again`,
          ),
        ],
      }),
    },
    {
      name: "an earlier land still landing (crashed)",
      setup: pendingLand,
      options: {},
      refusals: () =>
        Object.fromEntries(
          SOURCES.map((s) => [
            s,
            [
              refusal(
                "land-pending",
                "ERR_LAND_PENDING",
                "an earlier land of task t1 did not finish; run ariel-worktree reconcile",
                "an earlier land of this task did not finish: ariel-worktree reconcile finishes it, then land again",
              ),
            ],
          ]),
        ),
    },
  ])("$name", async ({ setup, options, refusals }) => {
    await task();
    await setup();
    const before = picture();
    const landBefore = (await record()).land;
    const r = await land(options);
    const want = refusals();
    expect(r.plan.legs.map((l) => [l.source, l.refusals])).toEqual(SOURCES.map((s) => [s, want[s] ?? []]));
    expect([r.plan.refused, r.landed, r.deletedBranches, "hooks" in r, "removal" in r]).toEqual([
      true,
      false,
      [],
      false,
      false,
    ]);
    expect(r.record.land).toEqual(landBefore);
    expect(picture()).toEqual(before);
  });

  it("--remove with a dirty leg: the removal's refusal, checked before anything lands", async () => {
    const { base } = await task();
    writeFile(join(legPath("web"), "notes.txt"), "not committed\n");
    const before = picture();
    const r = await land({ remove: true });
    expect([r.landed, r.removal?.refused, r.deletedBranches, r.plan.refused, r.plan.changes]).toEqual([
      false,
      true,
      [],
      false,
      3,
    ]);
    expect(r.removal?.plan.legs.map((l) => [l.source, l.standing.map((x) => [x.code, x.reason])])).toEqual([
      ["api", []],
      ["web", [["ERR_DIRTY", "dirty"]]],
      ["docs", []],
    ]);
    expect(SOURCES.map((s) => tipOf(s))).toEqual(SOURCES.map((s) => base[s]));
    expect(picture()).toEqual(before);
    expect([(await record()).state, existsSync(legPath("web"))]).toEqual(["active", true]);
  });

  it("--remove and a plan that refuses: nothing lands, nothing is removed", async () => {
    await task();
    writeFile(join(repo("api"), "work.txt"), "someone else's\n");
    commitAll(repo("api"), "meanwhile on main");
    const before = picture();
    const r = await land({ remove: true });
    expect([r.landed, r.plan.refused, "removal" in r, r.deletedBranches]).toEqual([false, true, false, []]);
    expect(picture()).toEqual(before);
    expect(SOURCES.map((s) => existsSync(legPath(s)))).toEqual([true, true, true]);
  });
});

/** Everything a dry run must leave alone: refs, worktrees, checkouts, every file under .ariel/. */
const everything = () => ({ ...picture(), ariel: files(join(root, ".ariel")) });

describe("landTask: a dry run plans and writes nothing", () => {
  it("plans every leg's move (from, to, commits, checkout) and leaves refs, worktrees and files alone", async () => {
    const { base, tip } = await task();
    const before = everything();
    const r = await land({ dryRun: true, strategy: "ff" });
    expect(r.plan).toEqual({
      task: "t1",
      strategy: "ff",
      refused: false,
      changes: 3,
      legs: SOURCES.map((s) => ({
        source: s,
        repo: repo(s),
        branch: "ariel/t1",
        target: "main",
        action: "land",
        from: base[s],
        to: tip[s],
        checkout: repo(s),
        commits: 1,
        refusals: [],
        uncommitted: [],
      })),
    });
    expect([r.landed, r.deletedBranches, "removal" in r, "hooks" in r]).toEqual([false, [], false, false]);
    expect(r.lifecycle).toEqual({ ports: [], portRange: [20000, 29999], hooks: [], warnings: [] });
    expect(r.record).toEqual(await record());
    expect(everything()).toEqual(before);
  });

  it("merge: the merge commits are made as objects only; no branch points at them", async () => {
    const { base, tip } = await task();
    const before = everything();
    const r = await land({ dryRun: true });
    for (const [i, s] of SOURCES.entries()) {
      const to = r.plan.legs[i]!.to!;
      expect(git(repo(s), "rev-list", "--parents", "-n1", to)).toBe(`${to} ${base[s]} ${tip[s]}`);
      expect(git(repo(s), "branch", "--contains", to)).toBe("");
    }
    expect(everything()).toEqual(before);
  });

  it("--remove: the removal's dry run too, nothing removed", async () => {
    await task();
    const before = everything();
    const r = await land({ dryRun: true, remove: true });
    expect([r.removal?.refused, r.removal?.plan.legs.map((l) => l.source), r.landed]).toEqual([
      false,
      [...SOURCES],
      false,
    ]);
    expect(everything()).toEqual(before);
    expect(SOURCES.map((s) => existsSync(legPath(s)))).toEqual([true, true, true]);
  });

  it("a refused plan: the refusals, no lifecycle, nothing written", async () => {
    await task();
    writeFile(join(repo("api"), "README.md"), "local edit\n");
    const before = everything();
    const r = await land({ dryRun: true });
    expect([r.plan.refused, r.plan.legs[0]?.refusals.map((x) => x.code), "lifecycle" in r]).toEqual([
      true,
      ["ERR_TARGET_DIRTY"],
      false,
    ]);
    expect(everything()).toEqual(before);
  });

  it("refuses while another process holds the task's lease (ERR_LEASE_HELD, 75), as the real run would", async () => {
    await task();
    const e = await withLease(root, "t1", { owner: "another" }, () => arielErrorOf(land({ dryRun: true })));
    expect([e.code, e.exit]).toEqual(["ERR_LEASE_HELD", 75]);
  });
});

/** Web's `target` moves on (someone else commits); its new tip. */
function moveWeb(target: string, base: string): string {
  writeFile(join(repo("web"), "other.txt"), "x\n");
  const moved = commitAll(repo("web"), "meanwhile on web");
  if (target !== "main") {
    git(repo("web"), "branch", "-f", target, moved);
    git(repo("web"), "reset", "-q", "--hard", base);
  }
  return moved;
}

/** True for the git call that moves api's target: the fast-forward in its checkout or the ref update. */
const movesApi = (args: readonly string[], cwd: string) =>
  cwd === repo("api") &&
  (args.includes("--ff-only") || (args[0] === "update-ref" && args.includes("ariel land t1")));

describe("landTask: a later leg fails, the landed legs move back", () => {
  it.each([
    { target: "main", into: undefined, checkedOut: true },
    { target: "release", into: "release", checkedOut: false },
  ])(
    "$target (checked out: $checkedOut): ERR_CONFLICT (75), api moved back, the land rolled-back",
    async ({ target, into }) => {
      const { base, tip } = await task();
      if (into) for (const s of SOURCES) git(repo(s), "branch", target, "main");
      let moved = "";
      const p = portsThen(movesApi, () => {
        moved = moveWeb(target, base.web);
      });
      const e = await arielErrorOf(land(into ? { into } : {}, p));
      expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
        "ERR_CONFLICT",
        75,
        `${target} of web moved since land checked it`,
        `look at it (git -C ${repo("web")} log ${target}), then land again`,
        { source: "web", target, expected: base.web, found: moved },
      ]);
      expect(SOURCES.map((s) => tipOf(s, target))).toEqual([base.api, moved, base.docs]);
      for (const s of SOURCES) {
        expect([
          git(repo(s), "symbolic-ref", "--short", "HEAD"),
          git(repo(s), "status", "--porcelain"),
        ]).toEqual(["main", ""]);
      }
      expect(existsSync(join(repo("api"), "work.txt"))).toBe(false);
      if (into) {
        expect(SOURCES.map((s) => tipOf(s))).toEqual([base.api, base.web, base.docs]);
        expect(git(repo("api"), "reflog", "show", "-n2", "--format=%gs", "refs/heads/release")).toBe(
          "ariel land t1 (undo)\nariel land t1",
        );
      }
      const landed = (await record()).land!;
      const apiTo = landed.legs[0]!.to;
      expect(git(repo("api"), "rev-list", "--parents", "-n1", apiTo)).toBe(`${apiTo} ${base.api} ${tip.api}`);
      const checkout = (s: Source) => (into ? null : repo(s));
      expect(landed).toEqual({
        strategy: "merge",
        state: "rolled-back",
        startedAt: NOW,
        legs: SOURCES.map((s, i) =>
          step(s, base[s], landed.legs[i]!.to, "rolled-back", { target, checkout: checkout(s) }),
        ),
      });
      // Nothing pending: a new land goes through.
      const again = await land(into ? { into } : {});
      expect([again.landed, again.record.land?.state]).toEqual([true, "landed"]);
    },
  );

  it("the last leg fails: both legs landed before it move back, in their checkouts", async () => {
    const { base, tip } = await task();
    let moved = "";
    const p = portsThen(
      (args, cwd) => cwd === repo("web") && args.includes("--ff-only"),
      () => {
        writeFile(join(repo("docs"), "other.txt"), "x\n");
        moved = commitAll(repo("docs"), "meanwhile on docs");
      },
    );
    const e = await arielErrorOf(land({ strategy: "ff" }, p));
    expect([e.code, e.context]).toEqual([
      "ERR_CONFLICT",
      { source: "docs", target: "main", expected: base.docs, found: moved },
    ]);
    expect(SOURCES.map((s) => tipOf(s))).toEqual([base.api, base.web, moved]);
    expect(SOURCES.map((s) => git(repo(s), "status", "--porcelain"))).toEqual(["", "", ""]);
    expect((await record()).land).toEqual({
      strategy: "ff",
      state: "rolled-back",
      startedAt: NOW,
      legs: SOURCES.map((s) => step(s, base[s], tip[s], "rolled-back")),
    });
  });

  it("a target checkout made dirty between the check and its landing: ERR_TARGET_DIRTY, api moved back", async () => {
    const { base } = await task();
    const p = portsThen(movesApi, () => writeFile(join(repo("web"), "late.txt"), "x\n"));
    const e = await arielErrorOf(land({ strategy: "ff" }, p));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_TARGET_DIRTY",
      3,
      `${repo("web")} has uncommitted changes: late.txt`,
      { source: "web", target: "main", checkout: repo("web") },
    ]);
    expect(SOURCES.map((s) => tipOf(s))).toEqual([base.api, base.web, base.docs]);
    expect((await record()).land?.legs.map((l) => [l.source, l.state])).toEqual(
      SOURCES.map((s) => [s, "rolled-back"]),
    );
  });

  it("a git that breaks part-way (not a coded error): ERR_INTERNAL naming it, api moved back", async () => {
    const { base } = await task();
    const p = ports();
    let landed = false;
    const run: Ports["git"]["run"] = async (args, options) => {
      if (landed && options.cwd === repo("web") && args.includes("--ff-only"))
        throw new Error("git vanished\nmore");
      const r = await p.git.run(args, options);
      if (movesApi(args, options.cwd)) landed = true;
      return r;
    };
    const e = await arielErrorOf(land({ strategy: "ff" }, { ...p, git: { run } }));
    expect([e.code, e.message]).toEqual(["ERR_INTERNAL", "internal error: git vanished"]);
    expect(SOURCES.map((s) => tipOf(s))).toEqual([base.api, base.web, base.docs]);
    expect((await record()).land?.state).toBe("rolled-back");
  });

  it("a landed leg that cannot be undone (its target moved on too): kept, the land stays landing for reconcile", async () => {
    const { base, tip } = await task();
    let apiMoved = "";
    let webMoved = "";
    const p = portsThen(movesApi, () => {
      writeFile(join(repo("api"), "after.txt"), "y\n");
      apiMoved = commitAll(repo("api"), "on top of the land");
      webMoved = moveWeb("main", base.web);
    });
    const e = await arielErrorOf(land({ strategy: "ff" }, p));
    expect([e.code, e.context.source]).toEqual(["ERR_CONFLICT", "web"]);
    expect([tipOf("api"), tipOf("api") === tip.api, tipOf("web"), tipOf("docs")]).toEqual([
      apiMoved,
      false,
      webMoved,
      base.docs,
    ]);
    expect((await record()).land).toEqual({
      strategy: "ff",
      state: "landing",
      startedAt: NOW,
      legs: [
        step("api", base.api, tip.api, "landed"),
        step("web", base.web, tip.web, "rolled-back"),
        step("docs", base.docs, tip.docs, "rolled-back"),
      ],
    });
    const again = await land({ strategy: "ff" });
    expect(again.plan.legs.map((l) => l.refusals[0]?.code)).toEqual([
      "ERR_LAND_PENDING",
      "ERR_LAND_PENDING",
      "ERR_LAND_PENDING",
    ]);
  });

  it("the lease lost part-way (ERR_FENCED): nothing more is changed, not even moved back", async () => {
    const { base, tip } = await task();
    const p = portsThen(movesApi, () => stealLease(root, "t1"));
    const e = await arielErrorOf(land({ strategy: "ff" }, p));
    expect([e.code, e.exit]).toEqual(["ERR_FENCED", 75]);
    expect(SOURCES.map((s) => tipOf(s))).toEqual([tip.api, base.web, base.docs]);
    expect((await record()).land?.legs.map((l) => l.state)).toEqual(["pending", "pending", "pending"]);
  });
});

/** The workspace's own (untracked) config with these hooks. */
const hooks = (h: Record<string, string>) =>
  writeFile(join(root, "ariel.config.json"), `${JSON.stringify({ hooks: h })}\n`);
const hookLog = () => readFileSync(join(root, "hooks.log"), "utf8");
const LOG_MAIN =
  'echo "$ARIEL_HOOK $(git -C "$ARIEL_WORKSPACE_ROOT/api" rev-parse main)" >> "$ARIEL_WORKSPACE_ROOT/hooks.log"';

describe("landTask: hooks", () => {
  it("pre-land runs before any target moves, post-land after every leg landed, in each landing leg", async () => {
    const { base, tip } = await task();
    git(legPath("docs"), "reset", "-q", "--hard", base.docs); // docs has nothing to land: no hook there
    hooks({ "pre-land": LOG_MAIN, "post-land": LOG_MAIN });
    const r = await land({ noHooks: false, strategy: "ff" });
    expect(hookLog()).toBe(
      [
        `pre-land ${base.api}`,
        `pre-land ${base.api}`,
        `post-land ${tip.api}`,
        `post-land ${tip.api}`,
        "",
      ].join("\n"),
    );
    expect(r.hooks?.map((h) => h.results.map((x) => [x.event, x.source, x.status]))).toEqual([
      [
        ["pre-land", "api", "ok"],
        ["pre-land", "web", "ok"],
      ],
      [
        ["post-land", "api", "ok"],
        ["post-land", "web", "ok"],
      ],
    ]);
  });

  it("a failing pre-land refuses the land: ERR_HOOK_REFUSED (3) naming the hook and its log, nothing landed", async () => {
    const { base } = await task();
    hooks({ "pre-land": "exit 4", "post-land": LOG_MAIN });
    const before = picture();
    const e = await arielErrorOf(land({ noHooks: false }));
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_HOOK_REFUSED",
      3,
      `api: pre-land hook "exit 4" exited 4; nothing was landed`,
      `read ${root}/.ariel/hooks/t1.log and fix the cause, or land with --no-hooks`,
      { task: "t1", source: "api", event: "pre-land", log: `${root}/.ariel/hooks/t1.log` },
    ]);
    expect(SOURCES.map((s) => tipOf(s))).toEqual(SOURCES.map((s) => base[s]));
    expect(picture()).toEqual(before);
    expect(existsSync(join(root, "hooks.log"))).toBe(false);
  });

  it("a failing post-land: the land stands, the failure is in the result", async () => {
    const { tip } = await task();
    hooks({ "post-land": "exit 5" });
    const r = await land({ noHooks: false, strategy: "ff" });
    expect(SOURCES.map((s) => tipOf(s))).toEqual(SOURCES.map((s) => tip[s]));
    expect([r.landed, r.record.land?.state]).toEqual([true, "landed"]);
    const post = r.hooks?.find((h) => h.results.some((x) => x.event === "post-land"));
    expect(post?.failed.map((f) => [f.source, f.exit])).toEqual([
      ["api", 5],
      ["web", 5],
      ["docs", 5],
    ]);
  });

  it("--no-hooks runs neither hook", async () => {
    const { tip } = await task();
    hooks({ "pre-land": "exit 1", "post-land": LOG_MAIN });
    const r = await land({ strategy: "ff" });
    expect([r.landed, SOURCES.map((s) => tipOf(s)), existsSync(join(root, "hooks.log"))]).toEqual([
      true,
      SOURCES.map((s) => tip[s]),
      false,
    ]);
    expect(r.hooks?.flatMap((h) => h.results)).toEqual([]);
  });

  it("legs whose worktrees were removed land from their branches and run no hook", async () => {
    const { base, tip } = await task();
    hooks({ "pre-land": LOG_MAIN, "post-land": LOG_MAIN });
    expect(
      (await removeTask(ports(), { root, taskId: "t1", sources: ["api", "web"], noHooks: true })).refused,
    ).toBe(false);
    const r = await land({ noHooks: false, strategy: "ff" });
    expect([r.landed, SOURCES.map((s) => tipOf(s))]).toEqual([true, SOURCES.map((s) => tip[s])]);
    expect(hookLog()).toBe(`pre-land ${base.api}\npost-land ${tip.api}\n`); // docs' hooks only
    git(legPath("docs"), "commit", "-q", "--allow-empty", "-m", "more in docs");
    expect(
      (await removeTask(ports(), { root, taskId: "t1", sources: ["docs"], noHooks: true })).refused,
    ).toBe(false);
    const alone = await land({ noHooks: false, strategy: "ff" });
    expect([alone.landed, "hooks" in alone, hookLog().split("\n").length]).toEqual([true, false, 3]);
  });

  it("a dry run lists the pre-land and post-land hooks of each landing leg, then (--remove) the pre-remove ones; runs none", async () => {
    await task();
    hooks({ "pre-land": LOG_MAIN, "post-land": LOG_MAIN, "pre-remove": LOG_MAIN });
    const before = everything();
    const plan = (over: Partial<LandTaskOptions>) =>
      land({ dryRun: true, noHooks: false, ...over }).then((r) =>
        r.lifecycle?.hooks.map((h) => [h.event, h.source, h.trusted]),
      );
    const each = (event: string) => SOURCES.map((s) => [event, s, true]);
    expect(await plan({})).toEqual([...each("pre-land"), ...each("post-land")]);
    expect(await plan({ remove: true })).toEqual([
      ...each("pre-land"),
      ...each("post-land"),
      ...each("pre-remove"),
    ]);
    expect(await plan({ remove: true, noHooks: true })).toEqual([]);
    expect(everything()).toEqual(before);
  });

  it("a dry run with nothing to land lists only the removal's hooks", async () => {
    await task(false);
    hooks({ "pre-land": LOG_MAIN, "pre-remove": LOG_MAIN });
    const r = await land({ dryRun: true, noHooks: false, remove: true });
    expect(r.lifecycle?.hooks.map((h) => [h.event, h.source])).toEqual(SOURCES.map((s) => ["pre-remove", s]));
    const alone = await land({ dryRun: true, noHooks: false });
    expect("lifecycle" in alone).toBe(false);
  });
});

describe("landTask: --remove", () => {
  it("merge: lands, removes the task, deletes each branch main now contains", async () => {
    const { tip } = await task();
    const r = await land({ remove: true });
    expect([r.landed, r.removal?.refused, r.removal?.record.state, (await record()).state]).toEqual([
      true,
      false,
      "closed",
      "closed",
    ]);
    expect(r.deletedBranches).toEqual(
      SOURCES.map((s) => ({ source: s, branch: "ariel/t1", commit: tip[s] })),
    );
    for (const s of SOURCES) {
      expect([git(repo(s), "branch", "--list", "ariel/t1"), existsSync(legPath(s))]).toEqual(["", false]);
      expect(git(repo(s), "show", "main:work.txt")).toBe(`${s} work`);
    }
  });

  it("squash: lands and removes, keeps the branches main does not contain", async () => {
    const { tip } = await task();
    const r = await land({ remove: true, strategy: "squash" });
    expect([r.landed, r.removal?.refused, r.deletedBranches]).toEqual([true, false, []]);
    expect(SOURCES.map((s) => tipOf(s, "ariel/t1"))).toEqual(SOURCES.map((s) => tip[s]));
    expect(SOURCES.map((s) => existsSync(legPath(s)))).toEqual([false, false, false]);
  });
});

describe("landTask: --remove and the removal's pre-remove hook", () => {
  it.each([
    [true, ""],
    [false, "pre-remove\npre-remove\npre-remove\n"],
  ])("--no-hooks %s: the pre-remove hooks that ran: %j", async (noHooks, ran) => {
    await task();
    hooks({ "pre-remove": 'echo "$ARIEL_HOOK" >> "$ARIEL_WORKSPACE_ROOT/hooks.log"' });
    const r = await land({ remove: true, strategy: "ff", noHooks });
    expect([r.landed, r.removal?.refused]).toEqual([true, false]);
    expect(existsSync(join(root, "hooks.log")) ? hookLog() : "").toBe(ran);
  });
});

describe("landTask: bad input changes nothing", () => {
  it.each([
    ["an unknown task", { taskId: "nope" }, "ERR_TASK_NOT_FOUND", 66],
    ["a task id that is no name", { taskId: "../t1" }, "ERR_INVALID_TASK_ID", 65],
    ["an --into that is no branch name", { into: "bad..name" }, "ERR_INVALID_BRANCH", 65],
    ["a dry run of an unknown task", { taskId: "nope", dryRun: true }, "ERR_TASK_NOT_FOUND", 66],
  ] as const)("%s: %s", async (_, over, code, exit) => {
    await task();
    const before = everything();
    const e = await arielErrorOf(land(over));
    expect([e.code, e.exit]).toEqual([code, exit]);
    expect(everything()).toEqual(before);
  });
});

describe("requireLandGit", () => {
  const old = vi.mocked(ensureGit);
  it.each([
    [[2, 38, 0], true],
    [[2, 38, 1], true],
    [[2, 39, 0], true],
    [[3, 0, 0], true],
    [[2, 37, 99], false],
    [[2, 37, 0], false],
    [[1, 99, 99], false],
  ] as const)("git %j: allowed %s", async (v, ok) => {
    old.mockResolvedValueOnce([...v]);
    const out = await requireLandGit().then(
      () => null,
      (e: unknown) => e,
    );
    if (ok) expect(out).toBeNull();
    else {
      expect(out).toMatchObject({
        code: "ERR_GIT_TOO_OLD",
        exit: 69,
        message: `land needs git 2.38.0 or newer (git merge-tree --write-tree); this is git ${v.join(".")}`,
        hint: "upgrade git to 2.38.0 or newer; nothing was changed",
      });
    }
  });

  it("is checked before anything is looked at: an old git refuses the land, nothing changed", async () => {
    await task();
    const before = everything();
    old.mockResolvedValueOnce([2, 37, 1]);
    const e = await arielErrorOf(land());
    expect([e.code, e.exit]).toEqual(["ERR_GIT_TOO_OLD", 69]);
    expect(everything()).toEqual(before);
    expect(LAND_MIN_GIT).toEqual([2, 38, 0]);
  });
});

describe("landRecords", () => {
  const fields = (s: Source, over: Record<string, unknown>) => ({
    v: 1,
    type: "land",
    task: "t1",
    source: s,
    branch: "ariel/t1",
    target: "main",
    strategy: "ff",
    ...over,
  });

  it("one record per leg: the recorded step of each leg that landed, up-to-date for one that did not move", async () => {
    const { base, tip } = await task();
    git(legPath("web"), "reset", "-q", "--hard", base.web);
    const r = await land({ strategy: "ff" });
    expect(landRecords(r)).toEqual([
      fields("api", { outcome: "landed", from: base.api, to: tip.api }),
      fields("web", { outcome: "up-to-date", from: base.web, to: base.web }),
      fields("docs", { outcome: "landed", from: base.docs, to: tip.docs }),
    ]);
  });

  it("a dry run, or a land that moved nothing, is up-to-date everywhere; a target of none is null", async () => {
    const { base, tip } = await task();
    const dry = await land({ strategy: "ff", dryRun: true });
    expect(landRecords(dry)).toEqual(
      SOURCES.map((s) => fields(s, { outcome: "up-to-date", from: base[s], to: tip[s] })),
    );
    git(repo("web"), "checkout", "-q", "--detach");
    const refused = await land({ strategy: "ff" });
    expect(landRecords(refused)[1]).toEqual(
      fields("web", { target: null, outcome: "up-to-date", from: null, to: null }),
    );
  });

  it("after a land, a new land that moves nothing still reads up-to-date (the old steps are not its own)", async () => {
    await task();
    await land({ strategy: "ff" });
    const again = await land({ strategy: "ff" });
    expect(landRecords(again).map((x) => x.outcome)).toEqual(["up-to-date", "up-to-date", "up-to-date"]);
  });
});

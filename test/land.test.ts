/**
 * ariel-worktree land and diff on real repositories: every leg is checked before any branch
 * moves; a conflict in one leg of three lands nothing anywhere; kill -9 between two legs'
 * landings is finished by reconcile; --remove deletes only branches the target contains.
 */
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { records, startPausedAt } from "./helpers/cli.ts";
import { commitAll, GIT_TEST_ENV, git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";
import { errors, legPath, taskFile, wt } from "./worktree-fixtures.ts";

const SOURCES = ["api", "web", "docs"];
let root = "";

/** The tip of every branch of every source (what land may move). */
function tips(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of SOURCES)
    out[s] = git(join(root, s), "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/");
  return out;
}

/** One commit `subject` in task t1's leg of `source`, changing `file`. */
function commitInLeg(source: string, file: string, text: string, subject: string): string {
  const leg = legPath(root, "t1", source);
  writeFile(join(leg, file), text);
  return commitAll(leg, subject);
}

beforeEach(async () => {
  root = tempDir("ariel-land-");
  for (const s of SOURCES) initRepo(join(root, s), { "README.md": `# ${s}\n`, ".gitignore": ".ariel/\n" });
  const r = await wt(root, ["add", "--task", "t1", ...SOURCES.flatMap((s) => ["--source", s])]);
  expect(r.code, r.stderr).toBe(0);
  for (const s of SOURCES) commitInLeg(s, "work.txt", `${s} work\n`, `work in ${s}`);
});
afterEach(() => removeDir(root));

describe("land", () => {
  it("a conflict in one leg of three: exit 3 naming the files, nothing landed anywhere", async () => {
    writeFile(join(root, "web/work.txt"), "someone else's\n");
    commitAll(join(root, "web"), "meanwhile on main");
    const before = tips();
    const r = await wt(root, ["land", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    const errs = errors(r.stderr);
    expect(errs.map((e) => [e.code, e.source, e.items])).toEqual([
      ["ERR_LAND_CONFLICT", "web", ["work.txt"]],
    ]);
    expect(tips()).toEqual(before);
    expect(taskFile(root, "t1").land).toBeUndefined();
  });

  it("-n plans every leg (plan records, --detailed-exitcode 2) and changes nothing", async () => {
    const before = tips();
    const r = await wt(root, [
      "land",
      "-n",
      "--detailed-exitcode",
      "--task",
      "t1",
      "--json",
      "--strategy",
      "squash",
    ]);
    expect(r.code, r.stderr).toBe(2);
    const plans = records(r.stdout);
    expect(plans.map((p) => [p.type, p.action, p.source, p.target, p.strategy, p.commits])).toEqual(
      SOURCES.map((s) => ["plan", "task.land", s, "main", "squash", 1]),
    );
    expect(Object.keys(plans[0] ?? {}).slice(0, 2)).toEqual(["v", "type"]);
    expect(tips()).toEqual(before);
  });

  it.each([
    ["merge", 2],
    ["squash", 1],
    ["rebase", 1],
    ["ff", 1],
  ])(
    "--strategy %s lands every leg on its checked-out main (parents of the new tip: %i)",
    async (strategy, parents) => {
      const r = await wt(root, ["land", "--task", "t1", "--strategy", strategy, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(records(r.stdout).map((x) => [x.source, x.outcome])).toEqual(SOURCES.map((s) => [s, "landed"]));
      for (const s of SOURCES) {
        const repo = join(root, s);
        expect(git(repo, "show", "main:work.txt")).toBe(`${s} work`);
        expect(git(repo, "status", "--porcelain")).toBe(""); // the checkout followed its branch
        expect(git(repo, "log", "-1", "--format=%P", "main").split(" ")).toHaveLength(parents);
      }
      expect(taskFile(root, "t1").land).toMatchObject({ strategy, state: "landed" });
      const again = await wt(root, [
        "land",
        "--task",
        "t1",
        "--strategy",
        strategy,
        "-n",
        "--detailed-exitcode",
      ]);
      expect(again.code, again.stderr).toBe(0); // nothing left to land
    },
  );

  it("ff refuses a target that moved on (ERR_NOT_FAST_FORWARD), nothing landed", async () => {
    writeFile(join(root, "docs/other.txt"), "x\n");
    commitAll(join(root, "docs"), "meanwhile");
    const before = tips();
    const r = await wt(root, ["land", "--task", "t1", "--strategy", "ff", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => [e.code, e.source])).toEqual([["ERR_NOT_FAST_FORWARD", "docs"]]);
    expect(tips()).toEqual(before);
  });

  it("a dirty checkout of the target refuses (ERR_TARGET_DIRTY); --into a branch not checked out moves the ref only", async () => {
    writeFile(join(root, "api/README.md"), "local edit\n");
    const r = await wt(root, ["land", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => [e.code, e.source])).toEqual([["ERR_TARGET_DIRTY", "api"]]);
    for (const s of SOURCES) git(join(root, s), "branch", "release", "main");
    const into = await wt(root, ["land", "--task", "t1", "--into", "release", "--strategy", "ff"]);
    expect(into.code, into.stderr).toBe(0);
    expect(git(join(root, "api"), "rev-parse", "release")).toBe(
      git(legPath(root, "t1", "api"), "rev-parse", "HEAD"),
    );
    expect(git(join(root, "api"), "show", "HEAD:README.md")).toBe("# api"); // main untouched
  });

  it("kill -9 between two legs' landings: the record says so, reconcile finishes the land", async () => {
    const paused = await startPausedAt("worktree", "land:after-ref", ["land", "--task", "t1"], {
      cwd: root,
      env: { ...GIT_TEST_ENV, ARIEL_OWNER: "tester" },
    });
    expect(await paused.kill()).toEqual({ code: null, signal: "SIGKILL" });
    const land = taskFile(root, "t1").land as {
      state: string;
      legs: { source: string; state: string; to: string }[];
    };
    expect(land.state).toBe("landing");
    expect(land.legs.map((l) => l.state)).toEqual(["pending", "pending", "pending"]);
    // api's main moved (the kill came before its step was recorded); web and docs not yet.
    expect(git(join(root, "api"), "rev-parse", "main")).toBe(land.legs[0]?.to);
    expect(git(join(root, "web"), "rev-parse", "main")).not.toBe(land.legs[1]?.to);
    const blocked = await wt(root, ["land", "--task", "t1", "--json"]);
    expect(blocked.code).toBe(3);
    expect(errors(blocked.stderr)[0]?.code).toBe("ERR_LAND_PENDING");
    const plan = await wt(root, ["reconcile", "-n", "--json"]);
    expect(records(plan.stdout).map((s) => [s.fix, s.source])).toEqual([
      ["mark-landed", "api"],
      ["finish-land", "web"],
      ["finish-land", "docs"],
    ]);
    const rec = await wt(root, ["reconcile", "--json"]);
    expect(rec.code, rec.stderr).toBe(0);
    const after = taskFile(root, "t1").land as typeof land;
    expect(after.state).toBe("landed");
    for (const [i, s] of SOURCES.entries()) {
      expect(git(join(root, s), "rev-parse", "main")).toBe(after.legs[i]?.to);
      expect(git(join(root, s), "status", "--porcelain")).toBe("");
    }
    const again = await wt(root, ["reconcile", "-n", "--detailed-exitcode"]);
    expect(again.code).toBe(0);
  });

  it("a target that moves between the check and its landing: the landed legs are moved back, exit 75", async () => {
    const release = join(root, "release");
    const paused = await startPausedAt("worktree", "land:after-ref", ["land", "--task", "t1", "--json"], {
      cwd: root,
      env: { ...GIT_TEST_ENV, ARIEL_OWNER: "tester", ARIEL_TEST_RELEASE_FILE: release },
    });
    // api has landed; web's main moves on before web's turn.
    const apiFrom = (taskFile(root, "t1").land as { legs: { from: string }[] }).legs[0]?.from;
    writeFile(join(root, "web/other.txt"), "x\n");
    const webTip = commitAll(join(root, "web"), "meanwhile on web");
    writeFile(release, "");
    const r = await paused.done;
    expect(r.code).toBe(75);
    const json = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .join("\n");
    expect(errors(json).map((e) => [e.code, e.source])).toEqual([["ERR_CONFLICT", "web"]]);
    expect(git(join(root, "api"), "rev-parse", "main")).toBe(apiFrom);
    expect(git(join(root, "api"), "status", "--porcelain")).toBe("");
    expect(git(join(root, "web"), "rev-parse", "main")).toBe(webTip);
    const land = taskFile(root, "t1").land as { state: string; legs: { state: string }[] };
    expect([land.state, land.legs.map((l) => l.state)]).toEqual([
      "rolled-back",
      ["rolled-back", "rolled-back", "rolled-back"],
    ]);
    const again = await wt(root, ["land", "--task", "t1"]);
    expect(again.code, again.stderr).toBe(0); // nothing pending: a new land goes through
  });

  it("--remove removes the task and deletes the branches main now contains (merge)", async () => {
    const r = await wt(root, ["land", "--task", "t1", "--remove", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(records(r.stdout).map((x) => [x.source, x.outcome, x.branchDeleted])).toEqual(
      SOURCES.map((s) => [s, "landed", true]),
    );
    for (const s of SOURCES) expect(git(join(root, s), "branch", "--list", "ariel/t1")).toBe("");
    expect(taskFile(root, "t1").state).toBe("closed");
  });

  it("--remove after squash keeps the branches (main does not contain their commits)", async () => {
    const r = await wt(root, ["land", "--task", "t1", "--remove", "--strategy", "squash", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(records(r.stdout).map((x) => x.branchDeleted)).toEqual([false, false, false]);
    for (const s of SOURCES) expect(git(join(root, s), "branch", "--list", "ariel/t1")).toBe("ariel/t1");
  });

  it("--strategy rebase replays the leg's commits on a target that moved on (linear, authors kept)", async () => {
    const leg = legPath(root, "t1", "api");
    writeFile(join(leg, "more.txt"), "more\n");
    git(leg, "add", "-A");
    git(
      leg,
      "-c",
      "user.name=Other",
      "commit",
      "-q",
      "--author",
      "Other Author <other@example.invalid>",
      "-m",
      "more in api",
    );
    writeFile(join(root, "api/main-only.txt"), "x\n");
    const mainTip = commitAll(join(root, "api"), "meanwhile on main");
    const r = await wt(root, ["land", "--task", "t1", "--strategy", "rebase"]);
    expect(r.code, r.stderr).toBe(0);
    const api = join(root, "api");
    expect(
      git(api, "log", "--format=%s|%an|%P", "-3", "main")
        .split("\n")
        .map((l) => l.split("|").slice(0, 2)),
    ).toEqual([
      ["more in api", "Other Author"],
      ["work in api", "Ariel Test"],
      ["meanwhile on main", "Ariel Test"],
    ]);
    expect(git(api, "rev-list", "--count", "--merges", `${mainTip}..main`)).toBe("0");
    expect(git(api, "ls-tree", "--name-only", "main").split("\n")).toEqual([
      ".gitignore",
      "README.md",
      "main-only.txt",
      "more.txt",
      "work.txt",
    ]);
    // Landed by rebase, the branch is not in main, yet main has all of it: a merge is a no-op.
    const again = await wt(root, ["land", "--task", "t1", "-n", "--detailed-exitcode", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(records(again.stdout).map((p) => p.action)).toEqual([
      "task.land.skip",
      "task.land.skip",
      "task.land.skip",
    ]);
  });

  it("--remove with a dirty leg is refused before anything lands (as remove refuses it)", async () => {
    writeFile(join(legPath(root, "t1", "web"), "notes.txt"), "not committed\n");
    const before = tips();
    const r = await wt(root, ["land", "--task", "t1", "--remove", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => [e.code, e.source])).toEqual([["ERR_DIRTY", "web"]]);
    expect(tips()).toEqual(before);
    expect(taskFile(root, "t1").state).toBe("active");
  });

  it("git older than 2.38 (no merge-tree --write-tree): exit 69 with the reason, nothing landed", async () => {
    const fake = join(root, "old-git");
    writeFile(
      fake,
      `#!/bin/sh\nif [ "$1" = version ]; then echo "git version 2.37.1"; exit 0; fi\nexec git "$@"\n`,
    );
    chmodSync(fake, 0o755);
    const before = tips();
    const r = await wt(root, ["land", "--task", "t1", "--json"], { env: { ARIEL_GIT: fake } });
    expect(r.code).toBe(69);
    const [err] = errors(r.stderr);
    expect([err?.code, err?.message]).toEqual([
      "ERR_GIT_TOO_OLD",
      "land needs git 2.38.0 or newer (git merge-tree --write-tree); this is git 2.37.1",
    ]);
    expect(tips()).toEqual(before);
  });

  it("rejects an unknown strategy (64) and an unknown task (66)", async () => {
    expect((await wt(root, ["land", "--task", "t1", "--strategy", "octopus"])).code).toBe(64);
    expect((await wt(root, ["land", "--task", "nope"])).code).toBe(66);
  });
});

describe("diff", () => {
  it("per leg: commits ahead of base, files changed, uncommitted work (--json records)", async () => {
    commitInLeg("api", "second.txt", "two\n", "second in api");
    writeFile(join(legPath(root, "t1", "web"), "draft.txt"), "wip\n");
    const r = await wt(root, ["diff", "--task", "t1", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const legs = records(r.stdout);
    // Without --stat and --patch, no `stat` or `patch` field.
    const fields = [
      "v",
      "type",
      "task",
      "source",
      "branch",
      "base",
      "head",
      "path",
      "state",
      "commits",
      "files",
    ];
    expect(legs.map((l) => Object.keys(l))).toEqual(SOURCES.map(() => [...fields, "uncommitted"]));
    expect(
      legs.map((l) => [l.source, (l.commits as { subject: string }[]).map((c) => c.subject), l.uncommitted]),
    ).toEqual([
      ["api", ["second in api", "work in api"], []],
      ["web", ["work in web"], ["draft.txt"]],
      ["docs", ["work in docs"], []],
    ]);
    expect(legs[0]?.files).toEqual([
      { path: "second.txt", status: "A", added: 1, deleted: 0 },
      { path: "work.txt", status: "A", added: 1, deleted: 0 },
    ]);
  });

  it("a removed leg is read from its branch in the source", async () => {
    expect((await wt(root, ["remove", "--task", "t1", "--source", "docs"])).code).toBe(0);
    const r = await wt(root, ["diff", "--task", "t1", "--source", "docs", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(
      records(r.stdout).map((l) => [
        l.state,
        (l.commits as { subject: string }[]).map((c) => c.subject),
        l.uncommitted,
      ]),
    ).toEqual([["removed", ["work in docs"], []]]);
    // Its patch is the branch's commits alone: a removed leg has no worktree to add to it.
    const patched = records(
      (await wt(root, ["diff", "--task", "t1", "--source", "docs", "--patch", "--json"])).stdout,
    );
    const [leg] = patched;
    expect(leg?.patch).toBe(
      git(join(root, "docs"), "diff", "--patch", leg?.base as string, leg?.head as string) + "\n",
    );
  });

  it("--stat and --patch add git's text; a person gets a summary line per leg", async () => {
    const r = await wt(root, ["diff", "--task", "t1", "--source", "api", "--patch", "--stat"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("api\tariel/t1\t1 commit ahead of");
    expect(r.stdout).toContain(" work.txt | 1 +");
    expect(r.stdout).toContain("+api work");
  });
});

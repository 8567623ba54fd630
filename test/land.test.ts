/**
 * ariel-worktree land and diff on real repositories: every leg is checked before any branch
 * moves; a conflict in one leg of three lands nothing anywhere; kill -9 between two legs'
 * landings is finished by reconcile; --remove deletes only branches the target contains.
 */
import { chmodSync, renameSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  LAND_REFUSALS,
  type LandRefusalReason,
  landRefusalHint,
  landRemovalHint,
  REFUSALS,
  type RefusalReason,
} from "../packages/core/src/mod.ts";
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

  // A target checked out is moved back in its checkout (reset --keep); one checked out nowhere
  // (--into a ref) by a compare-and-swap update-ref. Both are undone.
  it.each([
    { target: "main", checkedOut: true, into: [] },
    { target: "release", checkedOut: false, into: ["--into", "release"] },
  ])(
    "a target that moves between the check and its landing ($target, checked out: $checkedOut): the landed legs are moved back, exit 75",
    async ({ target, into }) => {
      for (const s of SOURCES) if (target !== "main") git(join(root, s), "branch", target, "main");
      const mains = SOURCES.map((s) => git(join(root, s), "rev-parse", "main"));
      const release = join(root, "release-file");
      const paused = await startPausedAt(
        "worktree",
        "land:after-ref",
        ["land", "--task", "t1", ...into, "--json"],
        {
          cwd: root,
          env: { ...GIT_TEST_ENV, ARIEL_OWNER: "tester", ARIEL_TEST_RELEASE_FILE: release },
        },
      );
      // api has landed; web's target moves on before web's turn.
      const apiLeg = (taskFile(root, "t1").land as { legs: { from: string; to: string }[] }).legs[0]!;
      expect(git(join(root, "api"), "rev-parse", target)).toBe(apiLeg.to);
      const web = join(root, "web");
      writeFile(join(web, "other.txt"), "x\n");
      const webTip = commitAll(web, "meanwhile on web");
      if (target !== "main") {
        git(web, "branch", "-f", target, webTip);
        git(web, "reset", "-q", "--hard", mains[1]!);
      }
      writeFile(release, "");
      const r = await paused.done;
      expect(r.code).toBe(75);
      const json = r.stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .join("\n");
      expect(errors(json).map((e) => [e.code, e.source])).toEqual([["ERR_CONFLICT", "web"]]);
      expect(git(join(root, "api"), "rev-parse", target)).toBe(apiLeg.from);
      expect(git(join(root, "api"), "status", "--porcelain")).toBe("");
      expect(git(web, "rev-parse", target)).toBe(webTip);
      // The checkouts are where they were: main, clean, at its old commit (unless it was the target).
      for (const [i, s] of SOURCES.entries()) {
        expect(git(join(root, s), "symbolic-ref", "--short", "HEAD")).toBe("main");
        if (target !== "main") expect(git(join(root, s), "rev-parse", "main")).toBe(mains[i]);
      }
      const land = taskFile(root, "t1").land as { state: string; legs: { state: string }[] };
      expect([land.state, land.legs.map((l) => l.state)]).toEqual([
        "rolled-back",
        ["rolled-back", "rolled-back", "rolled-back"],
      ]);
      const again = await wt(root, ["land", "--task", "t1", ...into]);
      expect(again.code, again.stderr).toBe(0); // nothing pending: a new land goes through
    },
  );

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

  it("a leg whose worktree went while it is read (removed as its run ended) is read from its branch", async () => {
    // The moment between a removal's rmdir and its record: the record still says active.
    const path = legPath(root, "t1", "docs");
    renameSync(path, `${path}.gone`);
    try {
      const r = await wt(root, ["diff", "--task", "t1", "--source", "docs", "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(
        records(r.stdout).map((l) => [
          l.state,
          (l.commits as { subject: string }[]).map((c) => c.subject),
          l.uncommitted,
        ]),
      ).toEqual([["active", ["work in docs"], []]]);
    } finally {
      renameSync(`${path}.gone`, path);
    }
  });

  it("--stat and --patch add git's text; a person gets a summary line per leg", async () => {
    const r = await wt(root, ["diff", "--task", "t1", "--source", "api", "--patch", "--stat"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("api\tariel/t1\t1 commit ahead of");
    expect(r.stdout).toContain(" work.txt | 1 +");
    expect(r.stdout).toContain("+api work");
  });
});

/** Every `--flag` of `hint` outside a whole `ariel-worktree CMD …` command it spells out. */
function looseFlags(hint: string): string[] {
  const bare = hint.replace(/ariel-worktree [a-z]+( ('[^']*'|[^\s;,]+))*/g, "");
  return bare.match(/--[a-z-]+/g) ?? [];
}

describe("land: every reason at once, hints that work (issue 32)", () => {
  const LAND_FLAGS = ["--task", "--into", "--strategy", "--remove", "--no-hooks", "--dry-run", "--json"];

  it("a conflict in one leg and a dirty leg with --remove: both said in one answer, nothing changed", async () => {
    writeFile(join(root, "web/work.txt"), "someone else's\n");
    commitAll(join(root, "web"), "meanwhile on main");
    writeFile(join(legPath(root, "t1", "api"), "notes.txt"), "not committed\n");
    const before = tips();
    const r = await wt(root, ["land", "--task", "t1", "--remove"]);
    const api = legPath(root, "t1", "api");
    const web = legPath(root, "t1", "web");
    expect([r.code, r.stdout]).toEqual([3, ""]);
    expect(r.stderr).toBe(
      [
        `ariel-worktree: error: ${api} has uncommitted changes: notes.txt [ERR_DIRTY]`,
        `ariel-worktree: hint: commit or stash the changes in ${api} (land takes commits only), or land without --remove and keep them: ariel-worktree remove --task t1 --source api --snapshot; nothing was changed`,
        "ariel-worktree: error: web: ariel/t1 does not merge cleanly into main: work.txt [ERR_LAND_CONFLICT]",
        `ariel-worktree: hint: in ${web}: git merge main, resolve the conflicts and commit, then land again; nothing was changed`,
        "ariel-worktree: nothing landed: api (dirty), web (conflict) refused; ariel-worktree diff --task t1 shows the task",
        "",
      ].join("\n"),
    );
    for (const line of r.stderr.split("\n").filter((l) => l.startsWith("ariel-worktree: hint: ")))
      for (const flag of looseFlags(line)) expect(LAND_FLAGS).toContain(flag);
    const json = await wt(root, ["land", "--task", "t1", "--remove", "--json"]);
    expect(errors(json.stderr).map((e) => [e.code, e.source, e.reason, e.remove ?? false])).toEqual([
      ["ERR_DIRTY", "api", "dirty", true],
      ["ERR_LAND_CONFLICT", "web", "conflict", false],
    ]);
    expect(tips()).toEqual(before);
    expect(taskFile(root, "t1").state).toBe("active");
  });

  it("a conflict on a removed worktree names restore first", async () => {
    const rm = await wt(root, ["remove", "--task", "t1", "--source", "web"]);
    expect(rm.code, rm.stderr).toBe(0);
    writeFile(join(root, "web/work.txt"), "someone else's\n");
    commitAll(join(root, "web"), "meanwhile on main");
    const r = await wt(root, ["land", "--task", "t1"]);
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n").filter((l) => l.includes("hint:"))).toEqual([
      "ariel-worktree: hint: bring the leg back first: ariel-worktree restore --task t1 --source web; then in its worktree git merge main, resolve the conflicts and commit, and land again; nothing was changed",
    ]);
  });

  it("every land refusal's hint names only flags land accepts", () => {
    const reasons = Object.keys(LAND_REFUSALS) as LandRefusalReason[];
    const leg = { source: "api", repo: "/w/api", branch: "ariel/t1", target: "main", checkout: "/w/api" };
    for (const reason of reasons) {
      for (const worktree of ["/w/.ariel/worktrees/t1/api", null]) {
        const hint = landRefusalHint("t1", { ...leg, worktree }, reason);
        expect(
          looseFlags(hint).filter((f) => !LAND_FLAGS.includes(f)),
          `${reason}: ${hint}`,
        ).toEqual([]);
      }
    }
    for (const reason of Object.keys(REFUSALS) as RefusalReason[]) {
      const hint = landRemovalHint("t1", { source: "api", worktreePath: "/w/x" }, reason);
      expect(
        looseFlags(hint).filter((f) => !LAND_FLAGS.includes(f)),
        `${reason}: ${hint}`,
      ).toEqual([]);
    }
  });

  it("--remove says what it removed and which branches it deleted; gc then says nothing of them", async () => {
    const r = await wt(root, ["land", "--task", "t1", "--remove"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      "ariel-worktree: removed task t1: api (removed), web (removed), docs (removed); deleted branches ariel/t1 in api, ariel/t1 in web, ariel/t1 in docs\n",
    );
    const gc = await wt(root, ["gc", "--prune-merged", "--older-than", "0s", "-n"]);
    expect(gc.code, gc.stderr).toBe(0);
    // The closed task is archived; its branches are gone already, which is no "not-merged".
    expect(gc.stdout).toContain("task.archive\tt1");
    expect(gc.stdout + gc.stderr).not.toContain("not-merged");
  });

  it("--remove after a squash says the branches were kept: the target does not contain them", async () => {
    const r = await wt(root, ["land", "--task", "t1", "--remove", "--strategy", "squash"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      "ariel-worktree: removed task t1: api (removed), web (removed), docs (removed); deleted no branch; kept ariel/t1 in api (not contained in the target), ariel/t1 in web (not contained in the target), ariel/t1 in docs (not contained in the target)\n",
    );
  });

  it("--remove --json: each land record says what became of its worktree and branch; a squash keeps the branches", async () => {
    const r = await wt(root, ["land", "--task", "t1", "--remove", "--strategy", "squash", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(records(r.stdout).map((x) => [x.source, x.outcome, x.worktree, x.branchDeleted])).toEqual(
      SOURCES.map((s) => [s, "landed", "removed", false]),
    );
    expect(r.stderr).toBe("");
  });
});

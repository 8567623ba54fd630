/**
 * ariel-worktree adopt, hook claude and path on real repositories: a worktree made elsewhere
 * becomes a leg (recorded, locked, fingerprinted) and is then protected like any leg; every
 * refusal changes nothing; Claude Code's recorded hook events drive create and remove.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REPO_ROOT, runAriel } from "./helpers/cli.ts";
import { commitAll, git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";
import { errors, gitState, legPath, picture, taskFile, wt } from "./worktree-fixtures.ts";

let root = "";
let api = "";

beforeEach(() => {
  root = realpathSync(tempDir("ariel-adopt-"));
  api = join(root, "api");
  initRepo(api, { "README.md": "# api\n", ".gitignore": ".ariel/\n.worktrees/\n.claude/\n" });
});
afterEach(() => removeDir(root));

/** A worktree of api made by git itself at `api/.worktrees/<name>` on branch `name`. */
function gitWorktree(name: string): string {
  const path = join(api, ".worktrees", name);
  git(api, "worktree", "add", "-q", "-b", name, path);
  return path;
}

describe("adopt", () => {
  it("records, locks and fingerprints a worktree git made; path and verify find it", async () => {
    const path = gitWorktree("spike");
    const r = await wt(root, ["adopt", path, "--task", "s1", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const leg = taskFile(root, "s1").legs[0];
    expect(leg).toMatchObject({
      source: "api",
      branch: "spike",
      worktreePath: path,
      overlay: [],
      adopted: true,
      state: "active",
    });
    expect(leg?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(git(api, "worktree", "list", "--porcelain")).toContain(`worktree ${path}\nHEAD`);
    expect(git(api, "worktree", "list", "--porcelain")).toContain("locked ariel:s1");
    expect((await wt(root, ["path", "s1"])).stdout).toBe(`${path}\n`);
    expect((await wt(root, ["verify", "--task", "s1"])).code).toBe(0);
    // Ours now, and in order: reconcile has nothing to fix, and reports nothing as not ours.
    const rec = await wt(root, ["reconcile", "-n", "--detailed-exitcode", "--json"]);
    expect([rec.code, rec.stdout, rec.stderr]).toEqual([0, "", ""]);
  });

  it("with uncommitted work, remove refuses it as any leg (3, nothing changed); --snapshot then removes it", async () => {
    const path = gitWorktree("wip");
    expect((await wt(root, ["adopt", path, "--task", "w1"])).code).toBe(0);
    writeFile(join(path, "draft.txt"), "not committed\n");
    const before = gitState(api, path);
    const r = await wt(root, ["remove", "--task", "w1", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => e.code)).toEqual(["ERR_DIRTY"]);
    expect(gitState(api, path)).toEqual(before);
    expect(readFileSync(join(path, "draft.txt"), "utf8")).toBe("not committed\n");
    const snap = await wt(root, ["remove", "--task", "w1", "--snapshot"]);
    expect(snap.code, snap.stderr).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(git(api, "show", "refs/ariel/snapshots/w1/wip:draft.txt")).toBe("not committed");
  });

  const refusals: [string, () => string, string, number][] = [
    ["the main worktree", () => api, "ERR_MAIN_WORKTREE", 3],
    [
      "a worktree locked by someone else",
      () => {
        const p = gitWorktree("theirs");
        git(api, "worktree", "lock", "--reason", "other tool", p);
        return p;
      },
      "ERR_FOREIGN_LOCK",
      3,
    ],
    [
      "a worktree of a repository that is no source",
      () => {
        const outside = realpathSync(tempDir("ariel-foreign-"));
        initRepo(outside);
        const p = join(root, "foreign-wt");
        git(outside, "worktree", "add", "-q", "-b", "f", p);
        return p;
      },
      "ERR_FOREIGN_REPO",
      3,
    ],
    [
      "a worktree outside the workspace root",
      () => {
        const p = join(realpathSync(tempDir("ariel-out-")), "wt");
        git(api, "worktree", "add", "-q", "-b", "out", p);
        return p;
      },
      "ERR_PATH_ESCAPE",
      77,
    ],
    [
      "a directory inside a worktree",
      () => {
        const p = gitWorktree("inner");
        writeFile(join(p, "sub/x.txt"), "x\n");
        return join(p, "sub");
      },
      "ERR_NOINPUT",
      66,
    ],
  ];

  it.each(refusals)("refuses %s (nothing changed)", async (_name, make, code, exit) => {
    const path = make();
    const before = gitState(api);
    const r = await wt(root, ["adopt", path, "--task", "a1", "--json"]);
    expect(r.code).toBe(exit);
    expect(errors(r.stderr).map((e) => e.code)).toEqual([code]);
    expect(gitState(api)).toEqual(before);
    expect(existsSync(join(root, ".ariel/tasks/a1.json"))).toBe(false);
  });

  it("refuses a worktree already in a task (ERR_IN_TASK), by its record or by its lock", async () => {
    const path = gitWorktree("twice");
    expect((await wt(root, ["adopt", path, "--task", "a1"])).code).toBe(0);
    const again = await wt(root, ["adopt", path, "--task", "a2", "--json"]);
    expect(again.code).toBe(3);
    expect(errors(again.stderr).map((e) => e.code)).toEqual(["ERR_IN_TASK"]);
    expect((await wt(root, ["add", "--task", "t9", "--source", "api"])).code).toBe(0);
    const made = await wt(root, ["adopt", legPath(root, "t9", "api"), "--task", "a3", "--json"]);
    expect(errors(made.stderr).map((e) => e.code)).toEqual(["ERR_IN_TASK"]);
  });
});

/** A recorded Claude Code event with the paths of this test put in. */
function payload(name: string, paths: { repo?: string; worktree?: string }): string {
  return readFileSync(join(REPO_ROOT, "test/fixtures/claude-hooks", name), "utf8")
    .replaceAll("__REPO__", paths.repo ?? "")
    .replaceAll("__WORKTREE__", paths.worktree ?? "");
}

const hook = (input: string) => wt(root, ["hook", "claude"], { input });

describe("hook claude", () => {
  it.each([
    ["create-name.json", "bright-running-fox"],
    ["create-worktree-name.json", "agent-a1b2c3d4"],
    ["create-worktree-path.json", "feature-auth"],
  ])("%s: makes task %s and prints only its worktree's path", async (file, task) => {
    const r = await hook(payload(file, { repo: api }));
    expect(r.code, r.stderr).toBe(0);
    const path = legPath(root, task, "api");
    expect(r.stdout).toBe(`${path}\n`);
    expect(taskFile(root, task).legs[0]).toMatchObject({
      source: "api",
      branch: `ariel/${task}`,
      state: "active",
    });
    expect(git(path, "rev-parse", "HEAD")).toBe(git(api, "rev-parse", "main"));
  });

  it("a base_path that does not exist yet (.claude/worktrees in a fresh repository): the repository holding it, workspace named", async () => {
    const base = join(api, ".claude/worktrees");
    const event = payload("create-worktree-name.json", { repo: api }).replace(
      `"base_path": "${api}"`,
      `"base_path": "${base}"`,
    );
    expect(event).toContain(base);
    const r = await hook(event);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${legPath(root, "agent-a1b2c3d4", "api")}\n`);
    expect(existsSync(base)).toBe(false); // ariel's worktree root is used, not Claude Code's path
  });

  it("a base_path that does not exist yet, no workspace named: the root is found from its nearest existing ancestor", async () => {
    const base = join(api, ".claude/worktrees");
    const event = payload("create-name.json", { repo: api })
      .replace(`"cwd": "${api}"`, `"cwd": "${base}"`)
      .replace(/\n}\s*$/, `,\n  "base_path": "${base}"\n}\n`);
    expect(JSON.parse(event)).toMatchObject({ base_path: base, cwd: base });
    const r = await runAriel("worktree", ["hook", "claude"], {
      cwd: root, // a plain directory above the repository: the event's directory decides
      input: event,
      env: { ARIEL_OWNER: "tester" },
    });
    expect(r.code, r.stderr).toBe(0);
    const path = join(api, ".ariel/worktrees/bright-running-fox/api");
    expect(r.stdout).toBe(`${path}\n`);
    expect(git(path, "rev-parse", "--abbrev-ref", "HEAD")).toBe("ariel/bright-running-fox");
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("a base_path outside every repository is still refused, nothing made", async () => {
    const outside = join(root, "nowhere/.claude/worktrees");
    const event = payload("create-worktree-name.json", { repo: api }).replace(
      `"base_path": "${api}"`,
      `"base_path": "${outside}"`,
    );
    const r = await wt(root, ["hook", "claude", "--json"], { input: event });
    expect(r.code, r.stderr).toBe(66);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_SOURCE_NOT_FOUND" });
    expect(r.stdout).toBe("");
    expect(existsSync(join(root, "nowhere"))).toBe(false);
    expect(existsSync(join(root, ".ariel/tasks/agent-a1b2c3d4.json"))).toBe(false);
  });

  it("WorktreeRemove: a clean worktree is removed (branch kept); a dirty one is snapshotted and kept", async () => {
    const clean = (await hook(payload("create-name.json", { repo: api }))).stdout.trim();
    const removed = await hook(payload("remove.json", { worktree: clean }));
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe("");
    expect(existsSync(clean)).toBe(false);
    expect(git(api, "branch", "--list", "ariel/bright-running-fox")).toContain("ariel/bright-running-fox");

    const dirty = (await hook(payload("create-worktree-name.json", { repo: api }))).stdout.trim();
    writeFile(join(dirty, "draft.txt"), "unsaved\n");
    commitAll(api, "main moves on"); // nothing to do with the worktree
    const kept = await hook(payload("remove.json", { worktree: dirty }));
    expect(kept.code, kept.stderr).toBe(0);
    expect(readFileSync(join(dirty, "draft.txt"), "utf8")).toBe("unsaved\n");
    expect(git(api, "show", "refs/ariel/snapshots/agent-a1b2c3d4/api:draft.txt")).toBe("unsaved");
    expect(kept.stderr).toContain("ariel-worktree remove --task agent-a1b2c3d4 --snapshot");
    expect(taskFile(root, "agent-a1b2c3d4").state).toBe("active");
  });

  // Local work alone is saved (above); with it, a refusal a snapshot cannot answer refuses the
  // whole removal: no snapshot ref, no record change, the worktree byte for byte as it was.
  it.each([
    {
      refusal: "a foreign lock",
      make: (path: string) => {
        git(api, "worktree", "unlock", path);
        git(api, "worktree", "lock", "--reason", "other tool", path);
      },
      codes: ["ERR_FOREIGN_LOCK", "ERR_DIRTY"],
    },
    {
      refusal: "a branch mismatch",
      make: (path: string) => git(path, "switch", "-q", "-c", "elsewhere"),
      codes: ["ERR_BRANCH_MISMATCH", "ERR_DIRTY"],
    },
  ])(
    "WorktreeRemove of a worktree with local work and $refusal: refused (3), no snapshot, nothing changed",
    async ({ make, codes }) => {
      const path = (await hook(payload("create-worktree-name.json", { repo: api }))).stdout.trim();
      writeFile(join(path, "draft.txt"), "unsaved\n");
      make(path);
      const before = {
        files: picture(path),
        tasks: picture(join(root, ".ariel/tasks")),
        git: gitState(api, path),
      };
      const r = await wt(root, ["hook", "claude", "--json"], {
        input: payload("remove.json", { worktree: path }),
      });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe("");
      expect(errors(r.stderr).map((e) => [e.code, e.task, e.source])).toEqual(
        codes.map((c) => [c, "agent-a1b2c3d4", "api"]),
      );
      expect({
        files: picture(path),
        tasks: picture(join(root, ".ariel/tasks")),
        git: gitState(api, path),
      }).toEqual(before);
      expect(git(api, "for-each-ref", "refs/ariel/snapshots/")).toBe("");
      expect(taskFile(root, "agent-a1b2c3d4").state).toBe("active");
    },
  );

  it("WorktreeRemove refused: the hint names the whole command that goes further, never a flag the hook lacks", async () => {
    const path = (await hook(payload("create-name.json", { repo: api }))).stdout.trim();
    git(path, "checkout", "-q", "-b", "elsewhere");
    const r = await hook(payload("remove.json", { worktree: path }));
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n").filter((l) => l.includes("hint:"))).toEqual([
      "ariel-worktree: hint: ariel-worktree remove -n --task bright-running-fox --source api shows what stands in the way and how past it; nothing was changed",
    ]);
    expect(existsSync(path)).toBe(true);
  });

  it("a worktree of no task is left alone (ERR_NOT_OURS, 3)", async () => {
    const path = gitWorktree("mine");
    const r = await hook(payload("remove.json", { worktree: path }));
    expect(r.code).toBe(3);
    expect(existsSync(path)).toBe(true);
  });

  it.each([
    ["not JSON", "{"],
    ["an unknown event", '{"hook_event_name":"PreToolUse","cwd":"/"}'],
    ["a create without a name", '{"hook_event_name":"WorktreeCreate","cwd":"/"}'],
    ["a remove without worktree_path", '{"hook_event_name":"WorktreeRemove"}'],
  ])("%s: exit 65, nothing on stdout", async (_name, input) => {
    const r = await hook(input);
    expect(r.code).toBe(65);
    expect(r.stdout).toBe("");
  });
});

describe("docs/lifecycle.md", () => {
  it("its Claude Code settings snippet is valid JSON running this hook for both events", () => {
    const doc = readFileSync(join(REPO_ROOT, "docs/lifecycle.md"), "utf8");
    const block = /<!-- claude-settings:begin -->\n```json\n([\s\S]*?)```\n<!-- claude-settings:end -->/.exec(
      doc,
    )?.[1];
    const settings = JSON.parse(block ?? "null") as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    expect(Object.keys(settings.hooks)).toEqual(["WorktreeCreate", "WorktreeRemove"]);
    for (const entries of Object.values(settings.hooks)) {
      expect(entries.flatMap((e) => e.hooks.map((h) => h.command))).toEqual(["ariel-worktree hook claude"]);
    }
  });
});

describe("path", () => {
  it("prints a leg's path, the task directory for several legs; unknown task or source exits 1", async () => {
    initRepo(join(root, "web"));
    expect((await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web"])).code).toBe(0);
    expect((await wt(root, ["path", "t1", "web"])).stdout).toBe(`${legPath(root, "t1", "web")}\n`);
    expect((await wt(root, ["path", "t1"])).stdout).toBe(`${join(root, ".ariel/worktrees/t1")}\n`);
    const unknown = await wt(root, ["path", "nope"]);
    expect([unknown.code, unknown.stdout]).toEqual([1, ""]);
    const leg = await wt(root, ["path", "t1", "wbe"]);
    expect(leg.code).toBe(1);
    expect(leg.stderr).toContain('did you mean "web"');
  });

  it('a leg deleted behind ariel\'s back exits 1 with nothing on stdout, so `cd "$(…)"` stops there', async () => {
    expect((await wt(root, ["add", "--task", "t1", "--source", "api"])).code).toBe(0);
    removeDir(legPath(root, "t1", "api"));
    const r = await wt(root, ["path", "t1"]);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toBe(
      `ariel-worktree: error: leg "api" of task "t1" is not on disk: ${legPath(root, "t1", "api")} is missing [ERR_PATH_UNKNOWN]\n` +
        "ariel-worktree: hint: ariel-worktree reconcile marks it missing, then ariel-worktree restore --task t1 --source api makes it again\n",
    );
  });
});

/**
 * ariel-worktree remove: every refusal exits 3 and leaves the worktree, its files and git's
 * state intact byte for byte; every --allow override and --snapshot shows what was kept; branches
 * are never touched.
 */
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { initRepo } from "./helpers/git.ts";
import {
  branches,
  editTaskFile,
  errors,
  git,
  gitState,
  legPath,
  makeWorkspace,
  picture,
  records,
  removeDir,
  SECRET,
  taskFile,
  writeFile,
  wt,
} from "./worktree-fixtures.ts";

let root = "";
let path = "";
let api = "";

beforeEach(async () => {
  root = makeWorkspace(["api"]);
  api = join(root, "api");
  path = legPath(root, "t1", "api");
  const r = await wt(root, ["add", "--task", "t1", "--source", "api"]);
  expect(r.code).toBe(0);
});
afterEach(() => removeDir(root));

/** A change that makes remove refuse, with the refusal code(s) expected. */
interface Case {
  name: string;
  codes: string[];
  allow: string[];
  change: () => void;
}

const cases: Case[] = [
  {
    name: "modified tracked file",
    codes: ["ERR_DIRTY"],
    allow: ["dirty"],
    change: () => writeFile(join(path, "README.md"), "edited\n"),
  },
  {
    name: "staged file",
    codes: ["ERR_DIRTY"],
    allow: ["dirty"],
    change: () => {
      writeFile(join(path, "src/main.txt"), "staged\n");
      git(path, "add", "src/main.txt");
    },
  },
  {
    name: "untracked file",
    codes: ["ERR_DIRTY"],
    allow: ["dirty"],
    change: () => writeFile(join(path, "notes/new.txt"), "n\n"),
  },
  {
    name: "staged rename",
    codes: ["ERR_DIRTY"],
    allow: ["dirty"],
    change: () => git(path, "mv", "src/main.txt", "src/renamed.txt"),
  },
  {
    name: "edited ignored overlay (.env)",
    codes: ["ERR_OVERLAY_CHANGED"],
    allow: ["overlay-changed"],
    change: () => writeFile(join(path, ".env"), `${SECRET}EXTRA=1\n`),
  },
  {
    name: "deleted overlay copy",
    codes: ["ERR_OVERLAY_CHANGED"],
    allow: ["overlay-changed"],
    change: () => rmSync(join(path, ".env")),
  },
  {
    name: "edited tracked skip-worktree overlay (.mcp.json)",
    codes: ["ERR_OVERLAY_CHANGED"],
    allow: ["overlay-changed"],
    change: () => writeFile(join(path, ".mcp.json"), "{}\n"),
  },
  {
    name: "modified skip-worktree file",
    codes: ["ERR_SKIP_WORKTREE_MODIFIED"],
    allow: ["skip-worktree"],
    change: () => {
      git(path, "update-index", "--skip-worktree", "src/main.txt");
      writeFile(join(path, "src/main.txt"), "hidden edit\n");
    },
  },
  {
    name: "modified assume-unchanged file",
    codes: ["ERR_SKIP_WORKTREE_MODIFIED"],
    allow: ["skip-worktree"],
    change: () => {
      git(path, "update-index", "--assume-unchanged", "README.md");
      writeFile(join(path, "README.md"), "hidden edit\n");
    },
  },
  {
    name: "foreign lock",
    codes: ["ERR_FOREIGN_LOCK"],
    allow: ["foreign-lock"],
    change: () => {
      git(api, "worktree", "unlock", path);
      git(api, "worktree", "lock", "--reason", "ci job 7", path);
    },
  },
  {
    name: "another branch checked out",
    codes: ["ERR_BRANCH_MISMATCH"],
    allow: ["branch-mismatch"],
    change: () => git(path, "switch", "-q", "-c", "other"),
  },
  {
    name: "detached HEAD with unique commits",
    codes: ["ERR_BRANCH_MISMATCH", "ERR_UNREACHABLE_COMMITS"],
    allow: ["branch-mismatch", "unreachable"],
    change: () => {
      git(path, "switch", "-q", "--detach");
      git(path, "commit", "-q", "--allow-empty", "-m", "only here");
    },
  },
  {
    name: "detached, committed, switched back (the commit only in HEAD's reflog)",
    codes: ["ERR_REFLOG_COMMITS"],
    allow: ["reflog"],
    change: () => {
      git(path, "switch", "-q", "--detach");
      git(path, "commit", "-q", "--allow-empty", "-m", "left behind");
      git(path, "switch", "-q", "ariel/t1");
    },
  },
  {
    name: "amended commit (the pre-amend commit only in HEAD's reflog)",
    codes: ["ERR_REFLOG_COMMITS"],
    allow: ["reflog"],
    change: () => {
      git(path, "commit", "-q", "--allow-empty", "-m", "first try");
      git(path, "commit", "-q", "--amend", "--allow-empty", "-m", "second try");
    },
  },
];

function state() {
  return {
    files: picture(root),
    git: gitState(api, path),
    record: readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8"),
  };
}

describe("remove refuses and changes nothing", () => {
  it.each(cases)("$name → exit 3 $codes", async (c) => {
    c.change();
    const before = state();
    const r = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(errors(r.stderr).map((e) => e.code)).toEqual(c.codes);
    expect(errors(r.stderr)[0]).toMatchObject({ exit: 3, task: "t1", source: "api", path });
    expect(state()).toEqual(before);
  });

  it.each(cases)("$name → removed with --allow $allow, branches kept", async (c) => {
    c.change();
    const refs = branches(api);
    const partial = await wt(root, [
      "remove",
      "--task",
      "t1",
      "--allow",
      c.allow[0]!,
      ...c.allow.slice(1).flatMap(() => []),
    ]);
    if (c.allow.length > 1) {
      expect(partial.code).toBe(3);
      const r = await wt(root, ["remove", "--task", "t1", ...c.allow.flatMap((a) => ["--allow", a])]);
      expect(r.code).toBe(0);
    } else expect(partial.code).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(branches(api)).toBe(refs);
    expect(taskFile(root, "t1").state).toBe("closed");
  });

  it("the main worktree is never removed, and --allow main-worktree is a usage error", async () => {
    editTaskFile(root, "t1", (r) => {
      (r.legs as { worktreePath: string }[])[0]!.worktreePath = api;
    });
    const before = state();
    const r = await wt(root, ["remove", "--task", "t1", "--json", "--allow", "dirty", "--snapshot"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => e.code)).toEqual(["ERR_MAIN_WORKTREE"]);
    const u = await wt(root, ["remove", "--task", "t1", "--allow", "main-worktree"]);
    expect(u.code).toBe(64);
    expect(state()).toEqual(before);
  });

  it("a worktree that is not ours (outside the worktree root) is refused", async () => {
    const foreign = join(root, "foreign-wt");
    git(api, "worktree", "add", "-q", "-b", "foreign", foreign);
    editTaskFile(root, "t1", (r) => {
      (r.legs as { worktreePath: string }[])[0]!.worktreePath = foreign;
    });
    const before = state();
    const r = await wt(root, [
      "remove",
      "--task",
      "t1",
      "--json",
      "--allow",
      "dirty",
      "--allow",
      "foreign-lock",
    ]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => e.code)).toEqual(["ERR_NOT_OURS"]);
    expect(state()).toEqual(before);
  });

  it("a directory git does not know as a worktree is not ours", async () => {
    git(api, "worktree", "unlock", path);
    git(api, "worktree", "remove", "--force", path);
    writeFile(join(path, "precious.txt"), "keep me\n");
    const before = state();
    const r = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => e.code)).toEqual(["ERR_NOT_OURS"]);
    expect(state()).toEqual(before);
  });

  it("one refusing leg stops every leg", async () => {
    removeDir(root);
    root = makeWorkspace(["api", "web"]);
    await wt(root, ["add", "--task", "t2", "--source", "api", "--source", "web"]);
    writeFile(join(legPath(root, "t2", "web"), "wip.txt"), "wip\n");
    const before = picture(root);
    const r = await wt(root, ["remove", "--task", "t2", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr)).toEqual([
      expect.objectContaining({ code: "ERR_DIRTY", source: "web", items: ["wip.txt"] }),
    ]);
    expect(picture(root)).toEqual(before);
  });

  it("--allow of a reason that did not occur is fine", async () => {
    const r = await wt(root, ["remove", "--task", "t1", "--allow", "dirty", "--allow", "unreachable"]);
    expect(r.code).toBe(0);
    expect(existsSync(path)).toBe(false);
  });

  it("a deleted worktree directory: its admin entry goes, and restore can bring it back", async () => {
    rmSync(path, { recursive: true });
    const refs = branches(api);
    const r = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout)[0]).toMatchObject({ outcome: "removed" });
    expect(git(api, "worktree", "list", "--porcelain")).not.toContain(path);
    expect(branches(api)).toBe(refs);
    expect((await wt(root, ["restore", "--task", "t1"])).code).toBe(0);
    expect(readFileSync(join(path, ".env"), "utf8")).toBe(SECRET);
  });

  it("a deleted worktree directory locked by someone else is still a foreign lock", async () => {
    git(api, "worktree", "unlock", path);
    git(api, "worktree", "lock", "--reason", "ci job 7", path);
    rmSync(path, { recursive: true });
    const before = state();
    const r = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => e.code)).toEqual(["ERR_FOREIGN_LOCK"]);
    expect(state()).toEqual(before);
    expect((await wt(root, ["remove", "--task", "t1", "--allow", "foreign-lock"])).code).toBe(0);
    expect(git(api, "worktree", "list", "--porcelain")).not.toContain(path);
  });

  it("a symbolic link in place of the worktree is not ours: nothing behind it is deleted", async () => {
    const moved = join(root, "moved");
    renameSync(path, moved);
    writeFile(join(moved, "precious.txt"), "keep me\n");
    symlinkSync(moved, path);
    const before = picture(moved);
    for (const extra of [["-n"], [], ["--allow", "dirty"]]) {
      const r = await wt(root, ["remove", "--task", "t1", "--json", ...extra]);
      expect(r.code).toBe(3);
      expect(errors(r.stderr).map((e) => e.code)).toEqual(["ERR_NOT_OURS"]);
      expect(picture(moved)).toEqual(before);
      expect(readFileSync(join(moved, "precious.txt"), "utf8")).toBe("keep me\n");
    }
  });

  it("a missing worktree is forgotten without touching anything else", async () => {
    rmSync(path, { recursive: true });
    git(api, "worktree", "unlock", path);
    git(api, "worktree", "prune");
    const r = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout)[0]).toMatchObject({ outcome: "removed" });
  });
});

describe("remove --snapshot and restore", () => {
  it("saves all local work under refs/ariel/snapshots/<task>/<leg>, and restore brings it back", async () => {
    writeFile(join(path, "README.md"), "edited\n");
    writeFile(join(path, "src/main.txt"), "staged\n");
    git(path, "add", "src/main.txt");
    writeFile(join(path, "notes/new.txt"), "untracked\n");
    writeFile(join(path, ".env"), `${SECRET}EXTRA=1\n`);
    git(path, "update-index", "--assume-unchanged", "src/main.txt");
    const head = git(path, "rev-parse", "HEAD");
    const files = picture(path);
    const refs = branches(api);
    const dry = await wt(root, ["remove", "--task", "t1", "--snapshot", "-n", "--json"]);
    expect(records(dry.stdout)).toEqual([
      expect.objectContaining({
        action: "worktree.remove",
        snapshot: true,
        allowed: ["dirty", "overlay-changed"],
      }),
    ]);
    const r = await wt(root, ["remove", "--task", "t1", "--snapshot", "--json"]);
    expect(r.code).toBe(0);
    const out = records(r.stdout)[0]!;
    expect(out).toMatchObject({ outcome: "snapshotted", snapshotRef: "refs/ariel/snapshots/t1/api" });
    expect(existsSync(path)).toBe(false);
    expect(branches(api)).toBe(refs);
    const ref = "refs/ariel/snapshots/t1/api";
    expect(git(api, "rev-parse", `${ref}^1`)).toBe(head);
    expect(git(api, "show", `${ref}:README.md`)).toBe("edited");
    expect(git(api, "show", `${ref}:src/main.txt`)).toBe("staged");
    expect(git(api, "show", `${ref}:notes/new.txt`)).toBe("untracked");
    expect(git(api, "show", `${ref}:.env`)).toBe(`${SECRET}EXTRA=1`);
    expect(git(api, "show", `${ref}:.mcp.json`)).toBe(git(api, "show", "HEAD:.mcp.json"));
    const rec = taskFile(root, "t1");
    expect(rec.artifacts).toEqual([
      expect.objectContaining({ kind: "snapshot", ref, source: "api", commit: out.snapshotCommit }),
    ]);
    expect(rec.legs[0]?.state).toBe("snapshotted");

    const back = await wt(root, ["restore", "--task", "t1", "--json"]);
    expect(back.stderr).toBe("");
    expect(back.code).toBe(0);
    const { index: _i, ...now } = picture(path);
    const { index: _j, ...was } = files;
    expect(now).toEqual(was);
    expect(git(path, "rev-parse", "HEAD")).toBe(head);
    expect(git(path, "status", "--porcelain", "--untracked-files=all")).toBe(
      "M README.md\n M src/main.txt\n?? notes/new.txt",
    );
    expect(git(api, "worktree", "list", "--porcelain")).toContain("locked ariel:t1");
    expect(taskFile(root, "t1").state).toBe("active");
    const again = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(again.code).toBe(3);
    expect(errors(again.stderr).map((e) => e.code)).toEqual(["ERR_DIRTY", "ERR_OVERLAY_CHANGED"]);
  });

  it("keeps a detached HEAD's unique commits reachable", async () => {
    git(path, "switch", "-q", "--detach");
    writeFile(join(path, "work.txt"), "w\n");
    git(path, "add", "work.txt");
    git(path, "commit", "-q", "-m", "only here");
    const lost = git(path, "rev-parse", "HEAD");
    const refused = await wt(root, ["remove", "--task", "t1", "--snapshot", "--json"]);
    expect(refused.code).toBe(3);
    expect(errors(refused.stderr).map((e) => e.code)).toEqual(["ERR_BRANCH_MISMATCH"]);
    const r = await wt(root, ["remove", "--task", "t1", "--snapshot", "--allow", "branch-mismatch"]);
    expect(r.code).toBe(0);
    expect(git(api, "rev-parse", "refs/ariel/snapshots/t1/api^1")).toBe(lost);
    expect(git(api, "rev-list", "--all")).toContain(lost);
  });

  it("restore of a plainly removed leg re-makes it from its branch with a fresh overlay", async () => {
    git(path, "commit", "-q", "--allow-empty", "-m", "agent");
    const tip = git(path, "rev-parse", "HEAD");
    expect((await wt(root, ["remove", "--task", "t1"])).code).toBe(0);
    const dry = await wt(root, ["restore", "--task", "t1", "-n", "--detailed-exitcode", "--json"]);
    expect(dry.code).toBe(2);
    expect(records(dry.stdout)).toEqual([
      { v: 1, type: "plan", action: "worktree.restore", task: "t1", source: "api", branch: "ariel/t1", path },
    ]);
    expect(existsSync(path)).toBe(false);
    const r = await wt(root, ["restore", "--task", "t1"]);
    expect(r.code).toBe(0);
    expect(git(path, "rev-parse", "HEAD")).toBe(tip);
    expect(readFileSync(join(path, ".env"), "utf8")).toBe(SECRET);
    expect(git(path, "status", "--porcelain")).toBe("");
    expect((await wt(root, ["remove", "--task", "t1"])).code).toBe(0);
  });

  it("restore carries the snapshot over a branch that moved on elsewhere", async () => {
    writeFile(join(path, "README.md"), "local edit\n");
    expect((await wt(root, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
    const other = join(root, "other-wt");
    git(api, "worktree", "add", "-q", other, "ariel/t1");
    writeFile(join(other, "src/main.txt"), "moved on\n");
    git(other, "commit", "-q", "-am", "elsewhere");
    git(api, "worktree", "remove", other);
    const r = await wt(root, ["restore", "--task", "t1"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(path, "README.md"), "utf8")).toBe("local edit\n");
    expect(readFileSync(join(path, "src/main.txt"), "utf8")).toBe("moved on\n");
    expect(git(path, "status", "--porcelain")).toBe("M README.md");
  });

  it("restore refuses a snapshot that no longer applies and leaves no worktree behind", async () => {
    writeFile(join(path, "README.md"), "local edit\n");
    expect((await wt(root, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
    const other = join(root, "other-wt");
    git(api, "worktree", "add", "-q", other, "ariel/t1");
    writeFile(join(other, "README.md"), "conflicting\n");
    git(other, "commit", "-q", "-am", "elsewhere");
    git(api, "worktree", "remove", other);
    const before = { files: picture(root), git: gitState(api) };
    const r = await wt(root, ["restore", "--task", "t1", "--json"]);
    expect(r.code).toBe(1);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_GIT", git: "read-tree" });
    expect({ files: picture(root), git: gitState(api) }).toEqual(before);
  });
});

describe("submodules inside a leg", () => {
  /** A leg whose source has submodule `lib`, initialized in the worktree (its repository then lives in the worktree's admin dir). */
  async function legWithSubmodule(): Promise<{ sub: string; lib: string }> {
    const lib = join(root, "lib");
    initRepo(lib, { "lib.txt": "lib\n" });
    git(api, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../lib", "lib");
    git(api, "commit", "-q", "-m", "add lib");
    const r = await wt(root, ["add", "--task", "t2", "--source", "api"]);
    expect(r.code).toBe(0);
    const leg = legPath(root, "t2", "api");
    git(leg, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q");
    return { sub: join(leg, "lib"), lib };
  }

  it("a branch with commits only in the leg's submodule refuses (exit 3), --snapshot does not cover it", async () => {
    const { sub } = await legWithSubmodule();
    const recorded = git(sub, "rev-parse", "HEAD");
    git(sub, "switch", "-q", "-c", "feature");
    writeFile(join(sub, "work.txt"), "precious\n");
    git(sub, "add", "work.txt");
    git(sub, "commit", "-q", "-m", "precious");
    const precious = git(sub, "rev-parse", "HEAD");
    git(sub, "switch", "-q", "--detach", recorded);
    expect(git(legPath(root, "t2", "api"), "status", "--porcelain")).toBe("");
    for (const extra of [[], ["--snapshot"], ["--allow", "unreachable,dirty"]]) {
      const r = await wt(root, ["remove", "--task", "t2", "--json", ...extra]);
      expect(r.code).toBe(3);
      expect(errors(r.stderr)).toEqual([
        expect.objectContaining({
          code: "ERR_SUBMODULE_COMMITS",
          reason: "submodule-commits",
          items: [`lib@${precious}`],
        }),
      ]);
      expect(git(sub, "rev-parse", "feature")).toBe(precious);
    }
    const r = await wt(root, ["remove", "--task", "t2", "--allow", "submodule-commits"]);
    expect(r.code).toBe(0);
  });

  it("a stash inside the leg's submodule refuses too; a fresh submodule does not", async () => {
    const { sub } = await legWithSubmodule();
    writeFile(join(sub, "lib.txt"), "stashed\n");
    git(sub, "stash", "-q");
    const r = await wt(root, ["remove", "--task", "t2", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_SUBMODULE_COMMITS" });
    git(sub, "stash", "drop", "-q");
    expect((await wt(root, ["remove", "--task", "t2"])).code).toBe(0);
  });
});

describe("a submodule's own config never runs outside (a sandboxed run can write it)", () => {
  /**
   * A leg with submodule `lib` whose config a run rewrote: a clean filter its own attributes
   * name, a hooks dir with `post-index-change`, an fsmonitor hook; each leaves a mark when run.
   * `lib/lib.txt` is changed, `lib/same.txt` touched only (git must hash it to see it is the same).
   */
  async function hostileSubmodule(): Promise<{ sub: string; leg: string; marks: string }> {
    const lib = join(root, "lib");
    initRepo(lib, { "lib.txt": "lib\n", "same.txt": "same\n" });
    git(api, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../lib", "lib");
    git(api, "commit", "-q", "-m", "add lib");
    expect((await wt(root, ["add", "--task", "t2", "--source", "api"])).code).toBe(0);
    const leg = legPath(root, "t2", "api");
    git(leg, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q");
    const sub = join(leg, "lib");
    const marks = join(root, "marks");
    const hooks = join(root, "hooks");
    for (const hook of [
      "post-index-change",
      "fsmonitor",
      "pre-commit",
      "post-checkout",
      "reference-transaction",
    ]) {
      writeFile(join(hooks, hook), `#!/bin/sh\nmkdir -p ${marks} && touch ${marks}/${hook}\n`);
      chmodSync(join(hooks, hook), 0o755);
    }
    git(sub, "config", "filter.evil.clean", `sh -c 'mkdir -p ${marks} && touch ${marks}/filter; cat'`);
    git(sub, "config", "core.hooksPath", hooks);
    git(sub, "config", "core.fsmonitor", join(hooks, "fsmonitor"));
    writeFile(join(sub, ".gitattributes"), "* filter=evil\n");
    writeFile(join(sub, "lib.txt"), "changed in the submodule\n");
    const later = new Date(Date.now() + 5000);
    utimesSync(join(sub, "same.txt"), later, later);
    return { sub, leg, marks };
  }

  it("remove, --snapshot, list, diff and reconcile see the submodule's work and start nothing of its", async () => {
    const { sub, leg, marks } = await hostileSubmodule();
    const r = await wt(root, ["remove", "--task", "t2", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => [e.code, e.items])).toEqual([
      ["ERR_NESTED_WORK", ["lib/lib.txt", "lib/.gitattributes"]],
    ]);
    expect((await wt(root, ["remove", "--task", "t2", "--json", "--snapshot"])).code).toBe(3);
    const list = await wt(root, ["list", "--task", "t2", "--json"]);
    expect(list.code).toBe(0);
    const rows = records(list.stdout).filter((x) => x.type === "worktree");
    expect(rows.map((x) => [x.source, x.status])).toEqual([["api", "dirty"]]);
    expect((await wt(root, ["diff", "--task", "t2", "--patch", "--json"])).code).toBe(0);
    expect((await wt(root, ["reconcile", "--dry-run", "--json"])).code).toBe(0);
    writeFile(join(leg, "top.txt"), "the leg's own work\n");
    const snap = await wt(root, ["remove", "--task", "t2", "--json", "--snapshot", "--allow", "nested-work"]);
    expect(snap.code).toBe(0);
    expect(existsSync(marks)).toBe(false);
    expect(existsSync(sub)).toBe(false);
  });

  it("a promisor remote the submodule's config names is never fetched from", async () => {
    const { sub, marks } = await hostileSubmodule();
    git(sub, "config", "core.repositoryformatversion", "1");
    git(sub, "config", "extensions.partialClone", "origin");
    git(sub, "config", "remote.origin.promisor", "true");
    git(
      sub,
      "config",
      "remote.origin.uploadpack",
      `sh -c 'mkdir -p ${marks} && touch ${marks}/uploadpack' #`,
    );
    writeFile(join(git(sub, "rev-parse", "--absolute-git-dir"), "refs/heads/missing"), `${"1".repeat(40)}\n`);
    const r = await wt(root, ["remove", "--task", "t2", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => [e.code, e.items])).toEqual([
      ["ERR_SUBMODULE_COMMITS", ["lib"]],
      ["ERR_NESTED_WORK", ["lib/lib.txt", "lib/.gitattributes"]],
    ]);
    expect(existsSync(marks)).toBe(false);
  });
});

describe("git repositories nested in a leg", () => {
  it("one cloned or made there with work of its own refuses (exit 3), --snapshot does not cover it", async () => {
    const lib = join(path, "vendor/lib");
    writeFile(join(lib, "a.txt"), "committed there\n");
    git(lib, "init", "-q", "-b", "main");
    git(lib, "add", "a.txt");
    git(lib, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "nested");
    writeFile(join(lib, "b.txt"), "committed nowhere\n");
    const before = state();
    for (const extra of [[], ["--snapshot"], ["--allow", "dirty"]]) {
      const r = await wt(root, ["remove", "--task", "t1", "--json", ...extra]);
      expect(r.code).toBe(3);
      const nested = errors(r.stderr).find((e) => e.code === "ERR_NESTED_WORK");
      expect(nested).toMatchObject({
        reason: "nested-work",
        message: `git repositories nested in ${path} hold work that exists only there: vendor/lib/`,
        items: ["vendor/lib/"],
      });
      expect(state()).toEqual(before);
    }
    const r = await wt(root, ["remove", "--task", "t1", "--allow", "nested-work,dirty"]);
    expect(r.code).toBe(0);
    expect(existsSync(path)).toBe(false);
  });

  it("uncommitted work in a submodule initialized in the leg refuses, even with --snapshot", async () => {
    const lib = join(root, "lib");
    initRepo(lib, { "lib.txt": "lib\n" });
    git(api, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../lib", "lib");
    git(api, "commit", "-q", "-m", "add lib");
    expect((await wt(root, ["add", "--task", "t2", "--source", "api"])).code).toBe(0);
    const leg = legPath(root, "t2", "api");
    git(leg, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q");
    writeFile(join(leg, "lib/lib.txt"), "changed in the submodule\n");
    const r = await wt(root, ["remove", "--task", "t2", "--json", "--snapshot"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => [e.code, e.items])).toEqual([["ERR_NESTED_WORK", ["lib/lib.txt"]]]);
    expect(readFileSync(join(leg, "lib/lib.txt"), "utf8")).toBe("changed in the submodule\n");
  });
});

describe("commits only the leg's HEAD reflog holds", () => {
  /** Detach, commit, switch back: the commit is in HEAD's reflog (removed with the worktree) only. */
  function leaveCommitBehind(): string {
    git(path, "switch", "-q", "--detach");
    writeFile(join(path, "left.txt"), "left behind\n");
    git(path, "add", "left.txt");
    git(path, "commit", "-q", "-m", "left behind");
    const lost = git(path, "rev-parse", "HEAD");
    git(path, "switch", "-q", "ariel/t1");
    return lost;
  }

  it("refuses with the commit named; --allow dirty does not drop it", async () => {
    const lost = leaveCommitBehind();
    writeFile(join(path, "wip.txt"), "wip\n");
    const before = state();
    const r = await wt(root, ["remove", "--task", "t1", "--json", "--allow", "dirty"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr)).toEqual([
      expect.objectContaining({
        code: "ERR_REFLOG_COMMITS",
        reason: "reflog",
        exit: 3,
        items: [lost],
        message: `HEAD's reflog or per-worktree refs of ${path} hold 1 commit(s) no other ref and not HEAD reaches (left by a detached HEAD, a reset, a rebase, a bisect or a deleted branch): ${lost.slice(0, 12)}`,
        hint: "git log -g and git for-each-ref refs/worktree refs/bisect refs/rewritten show them; --snapshot keeps them, --allow reflog drops them, or branch the ones you want; nothing was changed",
      }),
    ]);
    expect(state()).toEqual(before);
    const plain = await wt(root, ["remove", "--task", "t1", "--allow", "dirty"]);
    expect(plain.stderr).toContain(
      "refused, nothing changed: api (reflog); next: ariel-worktree remove --task t1 --snapshot",
    );
  });

  it("a commit a branch holds is not refused", async () => {
    const lost = leaveCommitBehind();
    git(api, "branch", "kept", lost);
    expect((await wt(root, ["remove", "--task", "t1"])).code).toBe(0);
  });

  // Per-worktree refs live in .git/worktrees/<id>/refs/ and go with the worktree: they hold nothing.
  /** A commit outside HEAD's history and reflog (commit-tree), held only by `ref` of the leg. */
  function keepUnder(ref: string): string {
    const c = git(path, "commit-tree", "-p", "HEAD", "-m", `kept under ${ref}`, "HEAD^{tree}");
    git(path, "update-ref", ref, c);
    return c;
  }

  it.each(["refs/worktree/keep", "refs/bisect/bad", "refs/rewritten/onto/x"])(
    "a commit only %s holds is refused as reflog; --snapshot keeps it",
    async (ref) => {
      const c = keepUnder(ref);
      expect(existsSync(join(git(path, "rev-parse", "--absolute-git-dir"), ref))).toBe(true);
      const before = state();
      const r = await wt(root, ["remove", "--task", "t1", "--json"]);
      expect(r.code).toBe(3);
      expect(errors(r.stderr)).toEqual([expect.objectContaining({ code: "ERR_REFLOG_COMMITS", items: [c] })]);
      expect(state()).toEqual(before);
      const head = git(path, "rev-parse", "HEAD");
      expect((await wt(root, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
      const snap = "refs/ariel/snapshots/t1/api";
      expect(git(api, "rev-list", "--parents", "-n1", snap).split(" ").slice(1)).toEqual([head, c]);
      expect(existsSync(path)).toBe(false);
    },
  );

  it("restore recreates the per-worktree refs under their names; the next plain remove refuses them again", async () => {
    const x = keepUnder("refs/worktree/x");
    const bad = keepUnder("refs/bisect/bad");
    const good = git(path, "rev-parse", "HEAD"); // a per-worktree ref at a commit the branch holds
    git(path, "update-ref", "refs/bisect/good-1", good);
    const r = await wt(root, ["remove", "--task", "t1", "--snapshot", "--json"]);
    expect(r.code).toBe(0);
    const ref = "refs/ariel/snapshots/t1/api";
    // The kept commits in rev-list's order, then the refs by name.
    expect(git(api, "log", "-1", "--format=%B", ref).split("\n").sort()).toEqual(
      [
        "",
        "ariel snapshot of task t1 (api)",
        `Ariel-Kept-From-Reflog: ${bad}`,
        `Ariel-Kept-From-Reflog: ${x}`,
        `Ariel-Kept-Ref: refs/bisect/bad ${bad}`,
        `Ariel-Kept-Ref: refs/bisect/good-1 ${good}`,
        `Ariel-Kept-Ref: refs/worktree/x ${x}`,
      ].sort(),
    );
    const restored = await wt(root, ["restore", "--task", "t1", "--json"]);
    expect([restored.code, restored.stderr]).toEqual([0, ""]);
    expect(
      git(path, "rev-parse", "refs/worktree/x", "refs/bisect/bad", "refs/bisect/good-1").split("\n"),
    ).toEqual([x, bad, good]);
    // In the worktree's own admin dir (per-worktree), not in the shared refs.
    const admin = git(path, "rev-parse", "--absolute-git-dir");
    expect(existsSync(join(admin, "refs/worktree/x"))).toBe(true);
    expect(git(api, "for-each-ref", "--format=%(refname)", "refs/worktree", "refs/bisect")).toBe("");
    // Under their names only: HEAD's reflog does not get them as well.
    const reflog = git(path, "log", "-g", "--format=%H", "HEAD").split("\n");
    expect([reflog.includes(x), reflog.includes(bad)]).toEqual([false, false]);
    // gc drops a restored leg's snapshot ref: the names alone keep the commits, and remove refuses again.
    git(api, "update-ref", "-d", ref);
    const again = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(again.code).toBe(3);
    expect(errors(again.stderr)).toEqual([
      expect.objectContaining({ code: "ERR_REFLOG_COMMITS", items: expect.arrayContaining([x, bad]) }),
    ]);
    expect(errors(again.stderr)[0]?.items).toHaveLength(2);
  });

  it("restore writes no ref a snapshot names outside the per-worktree namespaces", async () => {
    const x = keepUnder("refs/worktree/x");
    expect((await wt(root, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
    const ref = "refs/ariel/snapshots/t1/api";
    const snap = git(api, "rev-parse", ref);
    const main = git(api, "rev-parse", "refs/heads/main");
    // A snapshot commit whose message was written by someone else: it names a branch, a shared
    // ref and a name git refuses, beside one per-worktree ref.
    const forged = git(
      api,
      "commit-tree",
      "-p",
      `${snap}^1`,
      "-p",
      x,
      "-m",
      [
        "forged",
        "",
        `Ariel-Kept-Ref: refs/heads/main ${x}`,
        `Ariel-Kept-Ref: refs/ariel/snapshots/t1/other ${x}`,
        `Ariel-Kept-Ref: refs/worktree/a..b ${x}`,
        `Ariel-Kept-Ref: refs/worktree/ok ${x}`,
      ].join("\n"),
      `${snap}^{tree}`,
    );
    git(api, "update-ref", ref, forged);
    editTaskFile(root, "t1", (rec) => {
      for (const a of rec.artifacts as { ref: string; commit: string }[])
        if (a.ref === ref) a.commit = forged;
    });
    const restored = await wt(root, ["restore", "--task", "t1", "--json"]);
    expect([restored.code, restored.stderr]).toEqual([0, ""]);
    expect(git(api, "rev-parse", "refs/heads/main")).toBe(main);
    expect(
      git(path, "for-each-ref", "--format=%(refname) %(objectname)", "refs/worktree", "refs/ariel"),
    ).toBe([`refs/ariel/snapshots/t1/api ${forged}`, `refs/worktree/ok ${x}`].join("\n"));
  });

  it("detached commits only refs/worktree/ holds are refused as unreachable", async () => {
    git(path, "switch", "-q", "--detach");
    git(path, "commit", "-q", "--allow-empty", "-m", "held by a per-worktree ref");
    const c = git(path, "rev-parse", "HEAD");
    git(path, "update-ref", "refs/worktree/keep", c);
    const r = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => [e.code, e.items])).toEqual([
      ["ERR_BRANCH_MISMATCH", undefined],
      ["ERR_UNREACHABLE_COMMITS", [c]],
    ]);
    const dropped = await wt(root, ["remove", "--task", "t1", "--allow", "branch-mismatch,unreachable"]);
    expect(dropped.code).toBe(0);
    expect(git(api, "rev-list", "--all", "--reflog").split("\n")).not.toContain(c);
  });

  it("--snapshot keeps them as parents of the snapshot; restore puts them back in HEAD's reflog", async () => {
    const lost = leaveCommitBehind();
    const head = git(path, "rev-parse", "HEAD");
    const r = await wt(root, ["remove", "--task", "t1", "--snapshot", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout)[0]).toMatchObject({ outcome: "snapshotted" });
    const ref = "refs/ariel/snapshots/t1/api";
    expect(git(api, "rev-list", "--parents", "-n1", ref).split(" ").slice(1)).toEqual([head, lost]);
    expect(git(api, "log", "-1", "--format=%B", ref)).toBe(
      `ariel snapshot of task t1 (api)\n\nAriel-Kept-From-Reflog: ${lost}`,
    );
    expect((await wt(root, ["restore", "--task", "t1"])).code).toBe(0);
    expect(git(path, "rev-parse", "HEAD")).toBe(head);
    expect(git(path, "log", "-g", "--format=%H", "HEAD").split("\n")).toContain(lost);
    // With the snapshot ref gone (gc drops it once restored), the reflog holds the commit again.
    git(api, "update-ref", "-d", ref);
    const again = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(again.code).toBe(3);
    expect(errors(again.stderr)).toEqual([
      expect.objectContaining({ code: "ERR_REFLOG_COMMITS", items: [lost] }),
    ]);
  });

  it("many reflog entries: every tip is kept, none lost", async () => {
    const tips: string[] = [];
    for (let i = 0; i < 30; i++) {
      git(path, "switch", "-q", "--detach", "ariel/t1");
      git(path, "commit", "-q", "--allow-empty", "-m", `try ${i}`);
      if (i % 10 === 9) git(path, "commit", "-q", "--allow-empty", "-m", `more ${i}`);
      tips.push(git(path, "rev-parse", "HEAD"));
    }
    git(path, "switch", "-q", "ariel/t1");
    const refused = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(errors(refused.stderr)[0]).toMatchObject({ code: "ERR_REFLOG_COMMITS", exit: 3 });
    expect(String(errors(refused.stderr)[0]?.message)).toContain(" 33 commit(s) ");
    expect((await wt(root, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
    const parents = git(api, "rev-list", "--parents", "-n1", "refs/ariel/snapshots/t1/api")
      .split(" ")
      .slice(2);
    expect(new Set(parents)).toEqual(new Set(tips));
  });
});

describe("the leg's checked-out branch was deleted", () => {
  /** Commit on the branch, then delete it under the worktree (git branch -d refuses; update-ref does not). */
  function deleteBranch(): string {
    writeFile(join(path, "work.txt"), "committed\n");
    git(path, "add", "work.txt");
    git(path, "commit", "-q", "-m", "on the branch");
    const tip = git(path, "rev-parse", "HEAD");
    git(path, "update-ref", "-d", "refs/heads/ariel/t1");
    writeFile(join(path, "wip.txt"), "uncommitted\n");
    return tip;
  }

  it("refuses as branch-missing and reflog, not only dirty; --allow dirty or --snapshot alone do not pass", async () => {
    const tip = deleteBranch();
    const before = picture(root);
    for (const [extra, codes] of [
      [[], ["ERR_BRANCH_MISSING", "ERR_DIRTY", "ERR_REFLOG_COMMITS"]],
      [
        ["--allow", "dirty"],
        ["ERR_BRANCH_MISSING", "ERR_REFLOG_COMMITS"],
      ],
      [["--snapshot"], ["ERR_BRANCH_MISSING"]],
    ] as const) {
      const r = await wt(root, ["remove", "--task", "t1", "--json", ...extra]);
      expect(r.code).toBe(3);
      expect(errors(r.stderr).map((e) => e.code)).toEqual(codes);
      expect(picture(root)).toEqual(before);
    }
    const r = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(errors(r.stderr)[0]).toMatchObject({
      message: `${path} has branch ariel/t1 checked out, which no longer exists`,
      reason: "branch-missing",
    });
    expect(errors(r.stderr)[2]).toMatchObject({ items: [tip] });
    expect(taskFile(root, "t1").state).toBe("active");
  });

  it("--snapshot --allow branch-missing keeps the commits and the work; restore after the branch is back", async () => {
    const tip = deleteBranch();
    const r = await wt(root, ["remove", "--task", "t1", "--snapshot", "--allow", "branch-missing", "--json"]);
    expect(r.code).toBe(0);
    const ref = "refs/ariel/snapshots/t1/api";
    expect(git(api, "rev-parse", `${ref}^1`)).toBe(tip);
    expect(git(api, "show", `${ref}:wip.txt`)).toBe("uncommitted");
    expect(taskFile(root, "t1").legs[0]?.head).toBe(tip);
    const gone = await wt(root, ["restore", "--task", "t1", "--json"]);
    expect(gone.code).toBe(66);
    expect(errors(gone.stderr)[0]).toMatchObject({
      hint: `recreate it (git -C ${api} branch ariel/t1 ${tip}) and retry`,
    });
    git(api, "branch", "ariel/t1", tip);
    expect((await wt(root, ["restore", "--task", "t1"])).code).toBe(0);
    expect(git(path, "status", "--porcelain", "--untracked-files=all")).toBe("?? wip.txt");
    expect(readFileSync(join(path, "work.txt"), "utf8")).toBe("committed\n");
  });

  it("every loss named (--allow branch-missing,dirty,reflog) removes it", async () => {
    deleteBranch();
    const r = await wt(root, ["remove", "--task", "t1", "--allow", "branch-missing,dirty,reflog"]);
    expect(r.code).toBe(0);
    expect(existsSync(path)).toBe(false);
  });
});

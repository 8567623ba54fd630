/**
 * A record is a stranger's input: an export file tampered with is refused by import (65,
 * nothing changed), and a record written straight to .ariel/tasks/ naming refs that are not the
 * task's own makes gc and restore refuse (ERR_REF_PROTECTED, 3) instead of deleting or
 * applying them. gc reports each outcome as it happened and exits non-zero when something
 * planned was not done.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initRepo, tempDir } from "./helpers/git.ts";
import {
  editTaskFile,
  errors,
  git,
  gitState,
  legPath,
  makeWorkspace,
  picture,
  records,
  removeDir,
  taskFile,
  writeFile,
  wt,
} from "./worktree-fixtures.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

/** Two workspaces with a clone each of one upstream repository, and task t1 exported from a. */
async function exported(): Promise<{ a: string; b: string; out: string }> {
  const base = tempDir("ariel-hostile-");
  dirs.push(base);
  const upstream = join(base, "upstream");
  initRepo(upstream, { "README.md": "# api\n", ".gitignore": ".ariel/\n" });
  const a = join(base, "a");
  const b = join(base, "b");
  for (const ws of [a, b]) git(base, "clone", "-q", upstream, join(ws, "api"));
  const out = join(base, "t1.ariel");
  expect((await wt(a, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
  writeFile(join(legPath(a, "t1", "api"), "wip.txt"), "local work\n");
  expect((await wt(a, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
  expect((await wt(a, ["export", "--task", "t1", "-o", out])).code).toBe(0);
  return { a, b, out };
}

type Header = {
  record: { artifacts: Record<string, unknown>[]; legs: Record<string, unknown>[] };
  bundles: { source: string; refs: string[] }[];
};

/** Rewrite the header of export `out` with `change` applied, keeping its bundles. */
function tamper(out: string, change: (h: Header, main: string) => void, main: string): void {
  const data = readFileSync(out);
  const nl = data.indexOf(10, 20);
  const header = JSON.parse(data.subarray(20, nl).toString()) as Header;
  change(header, main);
  const head = Buffer.from(`ariel-task-export 1\n${JSON.stringify(header)}\n`);
  writeFileSync(out, Buffer.concat([head, data.subarray(nl + 1)]));
}

describe("import: every field of the record is checked (65, nothing changed)", () => {
  it.each<[string, (h: Header, main: string) => void]>([
    [
      "a snapshot artifact naming refs/heads/main",
      (h, main) => {
        h.record.artifacts = [{ kind: "snapshot", ref: "refs/heads/main", source: "api", commit: main }];
      },
    ],
    [
      "a ../ snapshot ref",
      (h) => {
        const ref = "refs/ariel/snapshots/t1/../../heads/main";
        h.record.artifacts[0]!.ref = ref;
        h.bundles[0]!.refs.push(ref);
      },
    ],
    [
      "a snapshot ref of another task",
      (h) => {
        h.record.artifacts[0]!.ref = "refs/ariel/snapshots/t2/api";
        h.bundles[0]!.refs.push("refs/ariel/snapshots/t2/api");
      },
    ],
    [
      "a snapshot ref its bundle does not carry",
      (h) => {
        h.record.artifacts[0]!.ref = "refs/ariel/snapshots/t1/other";
      },
    ],
    ["a bundle listing refs/heads/main", (h) => h.bundles[0]!.refs.push("refs/heads/main")],
    [
      "a ../ bundle source",
      (h) => {
        h.bundles[0]!.source = "../a/api";
      },
    ],
    [
      "an absolute bundle source",
      (h) => {
        h.bundles[0]!.source = "/etc";
      },
    ],
    [
      "a ../ worktree path",
      (h) => {
        h.record.legs[0]!.worktreePath = "/tmp/../etc/t1/api";
      },
    ],
  ])("%s", async (_name, change) => {
    const { b, out } = await exported();
    const api = join(b, "api");
    const main = git(api, "rev-parse", "refs/heads/main");
    tamper(out, change, main);
    const before = picture(b);
    const refs = gitState(api);
    const r = await wt(b, ["import", out, "--json"]);
    expect(r.code, r.stderr).toBe(65);
    expect(errors(r.stderr)[0]).toMatchObject({
      code: "ERR_INVALID_INPUT",
      message: expect.stringMatching(new RegExp(`^${out}: not an ariel task export: `)),
    });
    expect(picture(b)).toEqual(before);
    expect(gitState(api)).toEqual(refs);
    // And so the next plain gc has nothing to drop.
    expect((await wt(b, ["gc"])).code).toBe(0);
    expect(git(api, "rev-parse", "refs/heads/main")).toBe(main);
  });

  it("the untampered export still imports, its snapshot applied", async () => {
    const { b, out } = await exported();
    const r = await wt(b, ["import", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(legPath(b, "t1", "api"), "wip.txt"), "utf8")).toBe("local work\n");
  });
});

describe("a hostile record on disk: no command changes a ref that is not the task's own", () => {
  let root = "";
  afterEach(() => removeDir(root));

  it("gc does not drop refs/heads/main named as a snapshot of an active task: refused (3), nothing changed", async () => {
    root = makeWorkspace(["api"]);
    const api = join(root, "api");
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const main = git(api, "rev-parse", "refs/heads/main");
    editTaskFile(root, "t1", (r) => {
      r.artifacts = [{ kind: "snapshot", ref: "refs/heads/main", source: "api", commit: main }];
    });
    const record = taskFile(root, "t1");
    const r = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect(r.code, r.stderr).toBe(3);
    expect(records(r.stdout)).toEqual([
      expect.objectContaining({
        action: "gc.snapshot.drop",
        ref: "refs/heads/main",
        outcome: "skipped",
        refusal: {
          code: "ERR_REF_PROTECTED",
          message: `ref "refs/heads/main" is not a branch of the task's legs: not changed`,
        },
      }),
    ]);
    expect(git(api, "rev-parse", "refs/heads/main")).toBe(main);
    expect(taskFile(root, "t1")).toEqual(record);
  });

  it("gc does not drop another task's snapshot ref named in this task's record", async () => {
    root = makeWorkspace(["api"]);
    const api = join(root, "api");
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const main = git(api, "rev-parse", "HEAD");
    git(api, "update-ref", "refs/ariel/snapshots/t2/api", main);
    editTaskFile(root, "t1", (r) => {
      r.artifacts = [{ kind: "snapshot", ref: "refs/ariel/snapshots/t2/api", source: "api", commit: main }];
    });
    const r = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect(r.code, r.stderr).toBe(3);
    expect(records(r.stdout)[0]).toMatchObject({
      outcome: "skipped",
      refusal: { code: "ERR_REF_PROTECTED" },
    });
    expect(git(api, "rev-parse", "refs/ariel/snapshots/t2/api")).toBe(main);
  });

  it("restore does not apply refs/heads/main named as the leg's snapshot: refused (3), nothing changed", async () => {
    root = makeWorkspace(["api"]);
    const api = join(root, "api");
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    writeFile(join(legPath(root, "t1", "api"), "wip.txt"), "work\n");
    expect((await wt(root, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
    const main = git(api, "rev-parse", "refs/heads/main");
    editTaskFile(root, "t1", (r) => {
      (r.artifacts as Record<string, unknown>[])[0]!.ref = "refs/heads/main";
      (r.artifacts as Record<string, unknown>[])[0]!.commit = main;
    });
    const before = picture(root);
    const refs = gitState(api);
    const r = await wt(root, ["restore", "--task", "t1", "--json"]);
    expect(r.code, r.stderr).toBe(3);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_REF_PROTECTED" });
    expect(picture(root)).toEqual(before);
    expect(gitState(api)).toEqual(refs);
  });
  it("remove --snapshot of a leg whose recorded path makes no valid snapshot ref: refused (3), nothing changed", async () => {
    root = makeWorkspace(["api"]);
    const api = join(root, "api");
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    // The worktree moved (by hand) to a directory whose name is no ref component.
    const leg = legPath(root, "t1", "api");
    const odd = join(root, ".ariel/worktrees/t1/x.lock");
    git(api, "worktree", "unlock", leg);
    git(api, "worktree", "move", leg, odd);
    git(api, "worktree", "lock", "--reason", "ariel:t1", odd);
    editTaskFile(root, "t1", (r) => {
      (r.legs as Record<string, unknown>[])[0]!.worktreePath = odd;
    });
    writeFile(join(odd, "wip.txt"), "work\n");
    const before = picture(root);
    const refs = gitState(api);
    const r = await wt(root, ["remove", "--task", "t1", "--snapshot", "--json"]);
    expect(r.code, r.stderr).toBe(3);
    expect(errors(r.stderr)[0]).toMatchObject({
      code: "ERR_REF_PROTECTED",
      ref: "refs/ariel/snapshots/t1/x.lock",
    });
    expect(picture(root)).toEqual(before);
    expect(gitState(api)).toEqual(refs);
  });
});

describe("gc reports what happened", () => {
  let root = "";
  afterEach(() => removeDir(root));

  /** Task t1 snapshotted, restored: its snapshot ref is what gc drops next. */
  async function restored(): Promise<string> {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    writeFile(join(legPath(root, "t1", "api"), "wip.txt"), "work\n");
    expect((await wt(root, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
    expect((await wt(root, ["restore", "--task", "t1"])).code).toBe(0);
    return join(root, "api");
  }

  it("a snapshot ref that moved since the plan is kept and reported skipped, exit 1", async () => {
    const api = await restored();
    const ref = "refs/ariel/snapshots/t1/api";
    const was = git(api, "rev-parse", ref);
    const main = git(api, "rev-parse", "refs/heads/main");
    git(api, "update-ref", ref, main);
    const record = taskFile(root, "t1");
    // The record still names the old commit: the ref moved under it.
    const r = await wt(root, ["gc", "--older-than", "0", "--json"]);
    expect(r.code, r.stderr).toBe(1);
    expect(records(r.stdout)).toEqual([
      expect.objectContaining({
        action: "gc.snapshot.drop",
        outcome: "skipped",
        refusal: { code: "ERR_CONFLICT", message: `${ref} moved to ${main} (was ${was}); kept` },
      }),
    ]);
    expect(git(api, "rev-parse", ref)).toBe(main);
    expect(taskFile(root, "t1")).toEqual(record);
    const text = await wt(root, ["gc", "--older-than", "0"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(
      /^snapshot\.drop\s+t1 refs\/ariel\/snapshots\/t1\/api\s+skipped: ERR_CONFLICT$/m,
    );
    expect(text.stderr).toContain("0 done, 1 skipped");
  });

  it("a task skipped by the plan (leased) counts in the summary", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    expect((await wt(root, ["remove", "--task", "t1", "--allow", "overlay-changed"])).code).toBe(0);
    const lease = {
      v: 1,
      type: "lease",
      taskId: "t1",
      owner: "racer",
      token: 9,
      pid: process.pid,
      processStart: null,
      host: hostname(),
      acquiredAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    };
    writeFileSync(join(root, ".ariel/leases/t1.json"), `${JSON.stringify(lease)}\n`);
    const r = await wt(root, ["gc", "--older-than", "0"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("skip t1: leased");
    expect(r.stderr).toContain("0 done, 1 skipped");
  });
});

/**
 * ariel-worktree export / import: a task moved between two workspaces holding clones of one
 * repository, its local work carried by the snapshot ref, verified by verify; a file naming
 * paths outside the target root is refused (77) with nothing written.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initRepo, tempDir } from "./helpers/git.ts";
import { errors, git, legPath, picture, records, removeDir, writeFile, wt } from "./worktree-fixtures.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

/** Two workspaces with a clone each of one upstream repository. */
function pair(): { a: string; b: string; out: string } {
  const base = tempDir("ariel-handoff-");
  dirs.push(base);
  const upstream = join(base, "upstream");
  initRepo(upstream, { "README.md": "# api\n", ".gitignore": ".ariel/\n" });
  const a = join(base, "a");
  const b = join(base, "b");
  for (const ws of [a, b]) git(base, "clone", "-q", upstream, join(ws, "api"));
  return { a, b, out: join(base, "t1.ariel") };
}

describe("ariel-worktree export / import", () => {
  it("moves a task with its commits and snapshotted local work; verify passes there", async () => {
    const { a, b, out } = pair();
    expect((await wt(a, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const legA = legPath(a, "t1", "api");
    writeFile(join(legA, "feature.txt"), "committed\n");
    git(legA, "add", "feature.txt");
    git(legA, "commit", "-qm", "feature");
    const tip = git(legA, "rev-parse", "HEAD");
    writeFile(join(legA, "wip.txt"), "local work\n");
    expect((await wt(a, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
    const ex = await wt(a, ["export", "--task", "t1", "-o", out, "--json"]);
    expect(ex.code).toBe(0);
    expect(records(ex.stdout)[0]).toMatchObject({
      type: "export",
      task: "t1",
      file: out,
      refs: ["refs/heads/ariel/t1", "refs/ariel/snapshots/t1/api"],
    });
    expect(readFileSync(out).subarray(0, 20).toString()).toBe("ariel-task-export 1\n");

    const im = await wt(b, ["import", out, "--json"]);
    expect(im.stderr).toBe("");
    expect(im.code).toBe(0);
    const legB = legPath(b, "t1", "api");
    expect(records(im.stdout)[0]).toMatchObject({
      taskId: "t1",
      workspace: { root: b },
      state: "active",
      legs: [{ source: "api", sourcePath: join(b, "api"), worktreePath: legB, state: "active", head: tip }],
    });
    expect(git(legB, "rev-parse", "HEAD")).toBe(tip);
    expect(readFileSync(join(legB, "feature.txt"), "utf8")).toBe("committed\n");
    expect(readFileSync(join(legB, "wip.txt"), "utf8")).toBe("local work\n");
    expect((await wt(b, ["verify", "--task", "t1"])).code).toBe(0);
    // Importing again: the task exists there now.
    const again = await wt(b, ["import", out, "--json"]);
    expect(again.code).toBe(3);
    expect(errors(again.stderr)[0]).toMatchObject({ code: "ERR_TASK_CONFLICT" });
  });

  it("a file whose record names a source outside the target root is refused (77), nothing written", async () => {
    const { a, b, out } = pair();
    expect((await wt(a, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    expect((await wt(a, ["export", "--task", "t1", "-o", out])).code).toBe(0);
    const data = readFileSync(out);
    const nl = data.indexOf(10, 20);
    const header = JSON.parse(data.subarray(20, nl).toString());
    header.record.legs[0].source = "../a/api";
    writeFileSync(
      out,
      Buffer.concat([Buffer.from(`ariel-task-export 1\n${JSON.stringify(header)}\n`), data.subarray(nl + 1)]),
    );
    const before = picture(b);
    const r = await wt(b, ["import", out, "--json"]);
    expect(r.code).toBe(77);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_PATH_ESCAPE" });
    expect(picture(b)).toEqual(before);
  });

  it("refuses a header listing another branch of the bundle (65): main is not moved, nothing written", async () => {
    const { a, b, out } = pair();
    expect((await wt(a, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const legA = legPath(a, "t1", "api");
    writeFile(join(legA, "x.txt"), "x\n");
    git(legA, "add", "x.txt");
    git(legA, "commit", "-qm", "x");
    // A bundle that also carries main at the task's commit, and a header that lists it.
    expect((await wt(a, ["export", "--task", "t1", "-o", out])).code).toBe(0);
    const data = readFileSync(out);
    const nl = data.indexOf(10, 20);
    const header = JSON.parse(data.subarray(20, nl).toString());
    const bundle = join(a, "evil.bundle");
    git(join(a, "api"), "update-ref", "refs/heads/main", git(legA, "rev-parse", "HEAD"));
    git(join(a, "api"), "bundle", "create", "-q", bundle, "refs/heads/ariel/t1", "refs/heads/main");
    const evil = readFileSync(bundle);
    header.bundles[0].refs.push("refs/heads/main");
    header.bundles[0].bytes = evil.length;
    writeFileSync(
      out,
      Buffer.concat([Buffer.from(`ariel-task-export 1\n${JSON.stringify(header)}\n`), evil]),
    );
    const mainBefore = git(join(b, "api"), "rev-parse", "refs/heads/main");
    const before = picture(b);
    const r = await wt(b, ["import", out, "--json"]);
    expect(r.code).toBe(65);
    expect(errors(r.stderr)[0]).toMatchObject({
      code: "ERR_INVALID_INPUT",
      message: `${out}: not an ariel task export: bundle 0: ref "refs/heads/main" is not under refs/ariel/snapshots/t1/`,
    });
    expect(git(join(b, "api"), "rev-parse", "refs/heads/main")).toBe(mainBefore);
    expect(picture(b)).toEqual(before);
  });

  it.each([
    ["not an export", "hello\n"],
    ["a truncated one", 'ariel-task-export 1\n{"v":1,"type":"export"'],
  ])("%s is ERR_INVALID_INPUT (65), nothing written", async (_n, text) => {
    const { b, out } = pair();
    writeFileSync(out, text);
    const before = picture(b);
    const r = await wt(b, ["import", out, "--json"]);
    expect(r.code).toBe(65);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_INVALID_INPUT" });
    expect(picture(b)).toEqual(before);
    expect(existsSync(join(b, ".ariel"))).toBe(false);
  });
});

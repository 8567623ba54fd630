/**
 * Work written into a leg while `remove` (or gc's removal) runs, after its checks: the removal
 * checks the leg again under the repository lock just before git deletes it, and refuses (3)
 * with the leg active, locked and untouched, instead of deleting the new work with
 * `git worktree remove --force --force`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { records, startPausedAt } from "./helpers/cli.ts";
import { GIT_TEST_ENV } from "./helpers/git.ts";
import {
  errors,
  git,
  legPath,
  makeWorkspace,
  removeDir,
  taskFile,
  writeFile,
  wt,
} from "./worktree-fixtures.ts";

let root = "";
afterEach(() => removeDir(root));

/** Start ariel-worktree paused at `point` until the test writes the release file. */
async function paused(point: string, args: string[]) {
  const release = join(root, ".ariel-test-release");
  const cli = await startPausedAt("worktree", point, args, {
    cwd: root,
    env: { ...GIT_TEST_ENV, ARIEL_OWNER: "tester", ARIEL_TEST_RELEASE_FILE: release },
  });
  return { done: cli.done, release: () => writeFileSync(release, "") };
}

/** The error records of stderr, past the pause marker line. */
const errorsOf = (stderr: string) =>
  errors(
    stderr
      .split("\n")
      .filter((l) => !l.startsWith("ariel-test-paused "))
      .join("\n"),
  );

/** git's lock reason of worktree `path` of repository `repo`, or null. */
function lockOf(repo: string, path: string): string | null {
  const entry = git(repo, "worktree", "list", "--porcelain")
    .split("\n\n")
    .find((e) => e.startsWith(`worktree ${path}\n`));
  const m = entry ? /^locked ?(.*)$/m.exec(entry) : null;
  return m ? (m[1] ?? "") : null;
}

describe("remove checks the leg again just before it deletes it", () => {
  it("a file written into a clean leg after the plan: refused (3), the file kept, the leg active and locked", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t"])).code).toBe(0);
    const leg = legPath(root, "t", "api");
    const rm = await paused("remove:before-leg", [
      "remove",
      "--task",
      "t",
      "--allow",
      "overlay-changed",
      "--json",
    ]);
    writeFile(join(leg, "late.txt"), "written while remove ran\n");
    rm.release();
    const r = await rm.done;
    expect(r.code, r.stderr).toBe(3);
    expect(errorsOf(r.stderr)[0]).toMatchObject({
      code: "ERR_DIRTY",
      message: expect.stringContaining("(written while remove ran; kept)"),
    });
    expect(readFileSync(join(leg, "late.txt"), "utf8")).toBe("written while remove ran\n");
    const record = taskFile(root, "t");
    expect(record.state).toBe("active");
    expect(record.legs[0]).toMatchObject({ state: "active" });
    expect(lockOf(join(root, "api"), leg)).toBe("ariel:t");
    // Once the new work is dealt with, remove goes through.
    git(leg, "add", "late.txt");
    git(leg, "commit", "-qm", "late");
    expect((await wt(root, ["remove", "--task", "t", "--allow", "overlay-changed"])).code).toBe(0);
    expect(existsSync(leg)).toBe(false);
  });

  it("a file written after the snapshot was taken: refused (3), both kept, the snapshot recorded", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t"])).code).toBe(0);
    const leg = legPath(root, "t", "api");
    writeFile(join(leg, "wip.txt"), "before\n");
    const rm = await paused("remove:after-snapshot", ["remove", "--task", "t", "--snapshot", "--json"]);
    writeFile(join(leg, "late.txt"), "after the snapshot\n");
    rm.release();
    const r = await rm.done;
    expect(r.code, r.stderr).toBe(3);
    expect(errorsOf(r.stderr)[0]).toMatchObject({
      code: "ERR_DIRTY",
      message: `${leg} changed after its snapshot refs/ariel/snapshots/t/api was taken (written while remove ran; kept)`,
    });
    expect(readFileSync(join(leg, "wip.txt"), "utf8")).toBe("before\n");
    expect(readFileSync(join(leg, "late.txt"), "utf8")).toBe("after the snapshot\n");
    const record = taskFile(root, "t");
    expect(record.state).toBe("active");
    expect(record.legs[0]).toMatchObject({ state: "active" });
    expect(record.artifacts).toEqual([expect.objectContaining({ ref: "refs/ariel/snapshots/t/api" })]);
    expect(lockOf(join(root, "api"), leg)).toBe("ariel:t");
    // A second remove --snapshot takes the new work along.
    expect((await wt(root, ["remove", "--task", "t", "--snapshot"])).code).toBe(0);
    expect((await wt(root, ["restore", "--task", "t"])).code).toBe(0);
    expect(readFileSync(join(leg, "late.txt"), "utf8")).toBe("after the snapshot\n");
  });

  it("a later leg gaining work after an earlier one was removed: that one removed, this one kept; the summary says so", async () => {
    root = makeWorkspace(["api", "web"]);
    expect((await wt(root, ["add", "--source", "api", "--source", "web", "--task", "t"])).code).toBe(0);
    const api = legPath(root, "t", "api");
    const web = legPath(root, "t", "web");
    const rm = await paused("remove:after-leg", ["remove", "--task", "t", "--allow", "overlay-changed"]);
    expect(existsSync(api)).toBe(false);
    writeFile(join(web, "late.txt"), "written while remove ran\n");
    rm.release();
    const r = await rm.done;
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(
      "ariel-worktree: refused after removing api: web (dirty); next: ariel-worktree remove --task t --snapshot\n",
    );
    expect(readFileSync(join(web, "late.txt"), "utf8")).toBe("written while remove ran\n");
    const record = taskFile(root, "t");
    expect(record.legs.map((l) => [l.source, l.state])).toEqual([
      ["api", "removed"],
      ["web", "active"],
    ]);
    expect(record.state).toBe("active");
    expect(lockOf(join(root, "web"), web)).toBe("ariel:t");
  });

  it("gc's removal checks again too: refused (3), the file kept", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--source", "api", "--task", "t"])).code).toBe(0);
    const leg = legPath(root, "t", "api");
    writeFile(join(leg, "wip.txt"), "before\n");
    const gc = await paused("remove:after-snapshot", [
      "gc",
      "--state",
      "active",
      "--older-than",
      "0",
      "--json",
    ]);
    writeFile(join(leg, "late.txt"), "after the snapshot\n");
    gc.release();
    const r = await gc.done;
    expect(r.code, r.stderr).toBe(3);
    expect(records(r.stdout)).toEqual([
      expect.objectContaining({
        action: "gc.task.remove",
        outcome: "skipped",
        refusal: expect.objectContaining({ code: "ERR_DIRTY" }),
      }),
    ]);
    expect(readFileSync(join(leg, "late.txt"), "utf8")).toBe("after the snapshot\n");
    expect(taskFile(root, "t").legs[0]).toMatchObject({ state: "active" });
  });
});

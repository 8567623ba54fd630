// Ten sandboxed runs over three repositories at once (docs/sandbox.md): each one's commits end
// on its own branch only; main and every other ref stay where they were, whatever each run
// tried; the stores stay whole.
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { records } from "./helpers/cli.ts";
import { git, removeDir, tempDir } from "./helpers/git.ts";
import { cleanUp, finishedHistory, multiRepoWorkspace, spawnD } from "./runs_helpers.ts";
import { describeSandbox, SANDBOX_ENV } from "./sandbox_helpers.ts";

const homes: string[] = [];
afterEach(() => {
  cleanUp();
  for (const h of homes.splice(0)) removeDir(h);
});

const REPOS = ["a", "b", "c"] as const;

describeSandbox("ten sandboxed runs over three repositories", () => {
  it("each run's commits are on its own branch only; nothing else moved", async () => {
    const root = multiRepoWorkspace(REPOS);
    const home = tempDir("ariel-sbx-home-");
    homes.push(home);
    const env = { ...SANDBOX_ENV, HOME: home };
    const before = Object.fromEntries(
      REPOS.map((r) => [r, git(join(root, r), "for-each-ref", "--format=%(refname) %(objectname)")]),
    );
    const work = (task: string) =>
      `echo ${task} > ${task}.txt && git add ${task}.txt && git commit -qm "${task} one" && ` +
      `git commit -q --allow-empty -m "${task} two"; ` +
      `git update-ref refs/heads/main HEAD 2>/dev/null; git branch -f main HEAD 2>/dev/null; ` +
      `git tag ${task}-tag; true`;
    const started = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const task = `t${i}`;
        const repo = REPOS[i % 3]!;
        return spawnD(
          root,
          [
            "--json",
            "--sandbox",
            "--isolate",
            "--keep",
            "--task",
            task,
            "--source",
            repo,
            "--",
            "sh",
            "-c",
            work(task),
          ],
          { env },
        ).then((r) => ({ task, repo, r }));
      }),
    );
    for (const s of started) expect([s.task, s.r.code, s.r.stderr]).toEqual([s.task, 0, ""]);
    await Promise.all(started.map((s) => finishedHistory(root, records(s.r.stdout)[0]!.runId as string)));
    for (const repo of REPOS) {
      const dir = join(root, repo);
      const mine = started.filter((s) => s.repo === repo).map((s) => s.task);
      const refs = git(dir, "for-each-ref", "--format=%(refname) %(objectname)").split("\n");
      const old = before[repo]!.split("\n");
      // main and the other refs as they were; a branch per task of this repository; its tags kept aside
      expect(refs.filter((l) => old.includes(l))).toEqual(old);
      const added = refs.filter((l) => !old.includes(l)).map((l) => l.split(" ")[0]!);
      expect(added.filter((r) => r.startsWith("refs/heads/")).sort()).toEqual(
        mine.map((t) => `refs/heads/ariel/${t}`).sort(),
      );
      expect(added.filter((r) => r.startsWith("refs/tags/"))).toEqual([]);
      for (const task of mine) {
        expect(git(dir, "log", "--format=%s", "-2", `ariel/${task}`)).toBe(`${task} two\n${task} one`);
        expect(
          git(dir, "log", "--format=%s", `main..ariel/${task}`)
            .split("\n")
            .every((m) => m.startsWith(`${task} `)),
        ).toBe(true);
      }
      expect(git(dir, "fsck", "--no-dangling")).toBe("");
    }
  });
});

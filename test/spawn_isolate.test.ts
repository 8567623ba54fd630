import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { arielIn, records } from "./helpers/cli.ts";
import { git, gitRaw } from "./helpers/git.ts";
import { tempWorkspaces } from "./helpers/temp.ts";
import { NODE, REPORT, readNdjson, runFiles, runSpawnWatching, sources } from "./spawn_helpers.ts";

const { ws } = tempWorkspaces();
const spawnIn = (root: string, args: readonly string[]) => arielIn("spawn", root, args);

/** Worktree paths git knows for a repository (its admin entries), besides the main one. */
function linkedWorktrees(repo: string): string[] {
  return git(repo, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length))
    .filter((p) => p !== repo);
}
const hasBranch = (repo: string, branch: string) =>
  gitRaw(repo, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`).code === 0;
const taskRecord = (root: string, task: string) =>
  JSON.parse(readFileSync(join(root, ".ariel/tasks", `${task}.json`), "utf8")) as {
    legs: { source: string; state: string; worktreePath: string }[];
  };

/** A child that leaves its worktree dirty when ARIEL_SOURCE is in `dirty`. */
const dirtying = (dirty: readonly string[]) => [
  NODE,
  "-e",
  `if(${JSON.stringify(dirty)}.includes(process.env.ARIEL_SOURCE))require('fs').writeFileSync('work.txt','x');` +
    "console.log(process.cwd())",
];

describe("ariel-spawn --isolate", () => {
  it("runs each source in its task worktree, removes the clean one and keeps the dirty one (branches kept)", async () => {
    const root = ws(["api", "web"]);
    const r = await spawnIn(root, [
      ...sources(["api", "web"]),
      "--isolate",
      "--task",
      "t1",
      "--json",
      "--",
      ...REPORT.slice(0, 2),
      `${REPORT[2]};if(process.env.ARIEL_SOURCE==='web')require('fs').writeFileSync('work.txt','x')`,
    ]);
    expect(r.code).toBe(0);
    const events = records(r.stdout);
    // A fan-out makes one task per source: t1-api, t1-web.
    const wt = (s: string) => join(root, ".ariel/worktrees", `t1-${s}`, s);
    const outputs = events.filter((e) => e.event === "output").map((e) => JSON.parse(e.line as string));
    expect(outputs).toEqual(
      ["api", "web"].map((s) => ({
        cwd: wt(s),
        env: {
          ARIEL_WORKSPACE_ROOT: root,
          ARIEL_WORKSPACE_HASH: expect.stringMatching(/^[0-9a-f]{16}$/),
          ARIEL_SOURCE: s,
          ARIEL_TASK: `t1-${s}`,
          ARIEL_WORKTREE: wt(s),
          ARIEL_BRANCH: `ariel/t1-${s}`,
          ARIEL_RUN_ID: events[0]?.runId,
        },
      })),
    );
    expect(
      events.filter((e) => String(e.event).startsWith("worktree.")).map((e) => [e.event, e.source, e.reason]),
    ).toEqual([
      ["worktree.created", "api", undefined],
      ["worktree.created", "web", undefined],
      ["worktree.removed", "api", undefined],
      ["worktree.kept", "web", "dirty"],
    ]);
    expect(events.find((e) => e.event === "worktree.kept")).toMatchObject({
      code: "ERR_DIRTY",
      worktree: wt("web"),
    });
    expect(existsSync(wt("api"))).toBe(false);
    expect(readFileSync(join(wt("web"), "work.txt"), "utf8")).toBe("x");
    expect(linkedWorktrees(join(root, "api"))).toEqual([]);
    expect(linkedWorktrees(join(root, "web"))).toEqual([wt("web")]);
    expect(hasBranch(join(root, "api"), "ariel/t1-api")).toBe(true);
    expect(hasBranch(join(root, "web"), "ariel/t1-web")).toBe(true);
    expect(hasBranch(join(root, "web"), "ariel/t1-api")).toBe(false);
    expect(taskRecord(root, "t1-api").legs.map((l) => [l.source, l.state])).toEqual([["api", "removed"]]);
    expect(taskRecord(root, "t1-web").legs.map((l) => [l.source, l.state])).toEqual([["web", "active"]]);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({
      type: "warning",
      code: "WARN_WORKTREE_KEPT",
      source: "web",
      reason: "dirty",
    });
  });

  it("passes a crash through and still removes the clean worktree", async () => {
    const root = ws(["api"]);
    const r = await spawnIn(root, [
      "--source",
      "api",
      "--isolate",
      "--task",
      "t2",
      "--",
      NODE,
      "-e",
      "process.exit(3)",
    ]);
    expect(r.code).toBe(3);
    expect(existsSync(join(root, ".ariel/worktrees/t2/api"))).toBe(false);
    expect(linkedWorktrees(join(root, "api"))).toEqual([]);
    expect(hasBranch(join(root, "api"), "ariel/t2")).toBe(true);
  });

  it("--snapshot saves the dirty work under refs/ariel/snapshots and removes the worktree", async () => {
    const root = ws(["api"]);
    const r = await spawnIn(root, [
      "--source",
      "api",
      "--isolate",
      "--task",
      "t3",
      "--snapshot",
      "--json",
      "--",
      ...dirtying(["api"]),
    ]);
    expect(r.code).toBe(0);
    const snap = records(r.stdout).find((e) => e.event === "worktree.snapshotted");
    expect(snap).toMatchObject({
      source: "api",
      task: "t3",
      ref: expect.stringMatching(/^refs\/ariel\/snapshots\/t3\//),
    });
    expect(existsSync(join(root, ".ariel/worktrees/t3/api"))).toBe(false);
    expect(git(join(root, "api"), "show", `${snap?.ref as string}:work.txt`)).toBe("x");
  });

  it("keeps a worktree whose commits only HEAD's reflog holds (reason reflog); --snapshot keeps them in the snapshot", async () => {
    const leaveCommit = [
      NODE,
      "-e",
      "const g=(...a)=>require('child_process').execFileSync('git',a);g('switch','-q','--detach');" +
        "g('-c','user.name=a','-c','user.email=a@b','commit','-q','--allow-empty','-m','left behind');" +
        "console.log(String(g('rev-parse','HEAD')).trim());g('switch','-q',process.env.ARIEL_BRANCH)",
    ];
    const root = ws(["api"]);
    const kept = await spawnIn(root, [
      "--source",
      "api",
      "--isolate",
      "--task",
      "t5",
      "--json",
      "--",
      ...leaveCommit,
    ]);
    expect(kept.code).toBe(0);
    const events = records(kept.stdout);
    const lost = String(events.find((e) => e.event === "output")?.line).trim();
    expect(events.find((e) => e.event === "worktree.kept")).toMatchObject({
      source: "api",
      reason: "reflog",
      code: "ERR_REFLOG_COMMITS",
    });
    expect(existsSync(join(root, ".ariel/worktrees/t5/api"))).toBe(true);
    expect(records(kept.stderr)).toContainEqual(
      expect.objectContaining({
        code: "WARN_WORKTREE_KEPT",
        reason: "reflog",
        hint: "ariel-worktree remove --task t5 --source api --snapshot",
      }),
    );

    const snap = await spawnIn(root, [
      "--source",
      "api",
      "--isolate",
      "--task",
      "t6",
      "--snapshot",
      "--json",
      "--",
      ...leaveCommit,
    ]);
    expect(snap.code).toBe(0);
    const out = records(snap.stdout);
    const lost6 = String(out.find((e) => e.event === "output")?.line).trim();
    const ref = out.find((e) => e.event === "worktree.snapshotted")?.ref as string;
    expect(ref).toBe("refs/ariel/snapshots/t6/api");
    expect(git(join(root, "api"), "rev-list", "--parents", "-n1", ref).split(" ")).toContain(lost6);
    expect(lost).toMatch(/^[0-9a-f]{40}$/);
  });

  it("--keep keeps every worktree", async () => {
    const root = ws(["api", "web"]);
    const r = await spawnIn(root, [
      ...sources(["api", "web"]),
      "--isolate",
      "--task",
      "t4",
      "--keep",
      "--json",
      "--",
      "true",
    ]);
    expect(r.code).toBe(0);
    const kept = records(r.stdout).filter((e) => e.event === "worktree.kept");
    expect(kept.map((e) => [e.source, e.reason])).toEqual([
      ["api", "keep"],
      ["web", "keep"],
    ]);
    expect(r.stderr).toBe("");
    expect(linkedWorktrees(join(root, "api"))).toEqual([join(root, ".ariel/worktrees/t4-api/api")]);
  });

  it("--span runs one process in the task directory holding every leg", async () => {
    const root = ws(["api", "web"]);
    const r = await spawnIn(root, [
      ...sources(["api", "web"]),
      "--isolate",
      "--task",
      "t5",
      "--span",
      "--json",
      "--",
      NODE,
      "-e",
      "console.log(JSON.stringify({cwd:process.cwd(),ls:require('fs').readdirSync('.').sort(),src:process.env.ARIEL_SOURCE??null,wt:process.env.ARIEL_WORKTREE}))",
    ]);
    expect(r.code).toBe(0);
    const events = records(r.stdout);
    expect(events.filter((e) => e.event === "process.started")).toHaveLength(1);
    const taskDir = join(root, ".ariel/worktrees/t5");
    expect(JSON.parse(events.find((e) => e.event === "output")?.line as string)).toEqual({
      cwd: taskDir,
      ls: ["api", "web"],
      src: null,
      wt: taskDir,
    });
    expect(events.filter((e) => e.event === "worktree.removed").map((e) => e.source)).toEqual(["api", "web"]);
  });

  it("refuses a workspace root that is not a git checkout (66), creating nothing", async () => {
    const root = ws(["api"]);
    const r = await spawnIn(root, ["--isolate", "--", "true"]);
    expect(r.code).toBe(66);
    expect(r.stderr).toContain("[ERR_NOT_A_CHECKOUT]");
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("--dry-run plans the worktrees and creates nothing", async () => {
    const root = ws(["api"]);
    const r = await spawnIn(root, [
      "--source",
      "api",
      "--isolate",
      "--task",
      "t6",
      "-n",
      "--json",
      "--detailed-exitcode",
      "--",
      "make",
    ]);
    expect(r.code).toBe(2);
    expect(records(r.stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "spawn.run",
        task: "t6",
        source: "api",
        cwd: join(root, ".ariel/worktrees/t6/api"),
        worktree: join(root, ".ariel/worktrees/t6/api"),
        branch: "ariel/t6",
        overlay: [],
        argv: ["make"],
        env: [
          "ARIEL_WORKSPACE_ROOT",
          "ARIEL_WORKSPACE_HASH",
          "ARIEL_SOURCE",
          "ARIEL_TASK",
          "ARIEL_WORKTREE",
          "ARIEL_BRANCH",
          "ARIEL_RUN_ID",
        ],
      },
    ]);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
    expect(hasBranch(join(root, "api"), "ariel/t6")).toBe(false);
    expect(linkedWorktrees(join(root, "api"))).toEqual([]);
  });

  it("SIGINT mid fan-out: every worktree removed or kept with a reason, nothing orphaned, run.finished written", async () => {
    const names = ["s1", "s2", "s3", "s4", "s5"];
    const root = ws(names);
    let ready = 0;
    let sent = false;
    const r = await runSpawnWatching(
      [
        ...sources(names),
        "--isolate",
        "--task",
        "t7",
        "-j",
        "3",
        "--json",
        "--",
        NODE,
        "-e",
        "if(process.env.ARIEL_SOURCE==='s2')require('fs').writeFileSync('work.txt','x');" +
          "process.on('SIGINT',()=>process.exit(9));console.log('ready');setTimeout(()=>{},30000)",
      ],
      { cwd: root },
      (line, pid) => {
        const e = JSON.parse(line);
        if (e.event === "output" && e.line === "ready") ready++;
        if (ready === 3 && !sent) {
          sent = true;
          process.kill(pid, "SIGINT");
        }
      },
    );
    expect(r.code).toBe(130);
    const events = records(r.stdout);
    expect(readNdjson(runFiles(root)[0] as string)).toEqual(events);
    expect(events.at(-1)).toMatchObject({
      event: "run.finished",
      interrupted: "SIGINT",
      summary: { targets: 5, succeeded: 0, failed: 3, skipped: 2, exit: 130 },
    });
    const created = events.filter((e) => e.event === "worktree.created").map((e) => e.source);
    expect(created).toEqual(names);
    const ends = new Map(
      events
        .filter((e) => /^worktree\.(removed|kept|snapshotted)$/.test(e.event as string))
        .map((e) => [e.source, e]),
    );
    expect([...ends.keys()].sort()).toEqual(names);
    expect(ends.get("s2")).toMatchObject({ event: "worktree.kept", reason: "dirty" });
    for (const n of names.filter((x) => x !== "s2")) expect(ends.get(n)?.event).toBe("worktree.removed");
    // nothing orphaned: git's admin entries match the legs the records (one task per source)
    // still call active
    const active: string[] = [];
    for (const n of names) {
      const [leg] = taskRecord(root, `t7-${n}`).legs;
      const entries = linkedWorktrees(join(root, n));
      expect(entries).toEqual(leg?.state === "active" ? [leg.worktreePath] : []);
      expect(hasBranch(join(root, n), `ariel/t7-${n}`)).toBe(true);
      if (leg?.state === "active") active.push(n);
    }
    expect(active).toEqual(["s2"]);
  });
});

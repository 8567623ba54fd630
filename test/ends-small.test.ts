/**
 * Ends that say what is left (issue 19, points 9–11), end to end on real repositories: `list`
 * shows every task that still holds something; `ariel-fleet events --follow` starts at now and
 * dates a line when it was written; du shows hardlinked bytes apart; spawn and list print a run
 * in one column order; gc names the leg it skips; `help contract` is bundled into every bin.
 */
import { spawn } from "node:child_process";
import { linkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CONTRACT_SUMMARY } from "../packages/core/src/contract_summary.ts";
import { sh } from "./e2e/runs_cases.ts";
import { stateHome } from "./fleet_helpers.ts";
import { type CliName, cliCommand, records, runAriel } from "./helpers/cli.ts";
import { cleanUp, multiRepoWorkspace, runs, spawnD, startRun } from "./runs_helpers.ts";
import { git, legPath, makeWorkspace, removeDir, writeFile, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => {
  if (root) removeDir(root);
  root = "";
  cleanUp();
});

describe("worktree list shows what is left (point 9)", () => {
  it("a closed task with a snapshotted leg is listed by default; one with nothing left only with --all", async () => {
    root = makeWorkspace(["api"]);
    for (const t of ["done", "saved", "open"])
      expect((await wt(root, ["add", "--task", t, "--source", "api"])).code).toBe(0);
    expect((await wt(root, ["remove", "--task", "done", "--allow", "overlay-changed"])).code).toBe(0);
    writeFile(join(legPath(root, "saved", "api"), "work.txt"), "unfinished\n");
    expect((await wt(root, ["remove", "--task", "saved", "--snapshot"])).code).toBe(0);
    const rows = async (args: string[]) =>
      records((await wt(root, ["list", "--json", "--no-bytes", ...args])).stdout).map((x) => [
        x.task,
        x.status,
      ]);
    expect(await rows([])).toEqual([
      ["open", "active"],
      ["saved", "snapshotted"],
    ]);
    expect(await rows(["--all"])).toEqual([
      ["done", "removed"],
      ["open", "active"],
      ["saved", "snapshotted"],
    ]);
  });
});

describe("ariel-fleet events (point 10)", () => {
  // A state dir of its own: the fleet sees only the workspace named with --workspace.
  let state: ReturnType<typeof stateHome> | null = null;
  afterEach(() => {
    if (state) removeDir(state.dir);
    state = null;
  });
  const fleet = (args: string[]) => {
    state ??= stateHome();
    return runAriel("fleet", args, { env: state.env });
  };

  it("an output line is dated when it was written, not when it was read", async () => {
    root = multiRepoWorkspace(["api"]);
    const rec = await startRun(root, ["--source", "api", ...sh("echo hello")]);
    expect((await runs(root, ["wait", rec.runId as string])).code).toBe(0);
    const evs = records((await fleet(["events", "--workspace", root, "--json"])).stdout).filter(
      (e) => e.runId === rec.runId,
    );
    const output = evs.find((e) => e.event === "output")!;
    const exited = evs.find((e) => e.event === "run.exited")!;
    expect(output.data).toBe("hello\n");
    expect(String(output.ts) <= String(exited.ts)).toBe(true);
  });

  it("--follow starts at now; --from CURSOR goes on right after an event", async () => {
    root = multiRepoWorkspace(["api"]);
    const old = await startRun(root, ["--source", "api", ...sh("echo old")]);
    await runs(root, ["wait", old.runId as string]);
    const listing = records((await fleet(["events", "--workspace", root, "--json"])).stdout);
    expect(listing.filter((e) => e.runId === old.runId).length).toBeGreaterThan(2);
    const rest = records(
      (await fleet(["events", "--workspace", root, "--json", "--from", listing[1]!.cursor as string])).stdout,
    );
    expect(rest.map((e) => [e.runId, e.seq, e.event])).toEqual(
      listing.slice(2).map((e) => [e.runId, e.seq, e.event]),
    );
    const bad = await fleet(["events", "--from", "not a cursor", "--json"]);
    expect([bad.code, records(bad.stderr)[0]?.code]).toEqual([64, "ERR_USAGE"]);
    const both = await fleet([
      "events",
      "--from",
      listing[0]!.cursor as string,
      "--since",
      "2026-01-01T00:00:00Z",
    ]);
    expect(both.code).toBe(64);

    const [exe, ...pre] = cliCommand("fleet");
    const child = spawn(exe!, [...pre, "events", "--follow", "--json", "--workspace", root], {
      env: { ...process.env, ...state!.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
    });
    try {
      // Attached: a run started after the follower began shows in it (it starts at now, so a
      // run that ended before it attached never would): start short runs until one shows.
      const seen = (id: unknown) => records(out).some((e) => e.runId === id);
      for (let i = 0; ; i++) {
        const ping = await startRun(root, ["--source", "api", ...sh("echo ping")]);
        const end = Date.now() + 2_000;
        while (!seen(ping.runId) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
        if (seen(ping.runId)) break;
        if (i >= 15) throw new Error(`the follower never attached: ${out}`);
      }
      const fresh = await startRun(root, ["--source", "api", ...sh("echo fresh")]);
      await expect
        .poll(
          () =>
            records(out)
              .filter((e) => e.runId === fresh.runId && e.event === "run.state")
              .at(-1)?.to,
          {
            timeout: 15_000,
          },
        )
        .toBe("exited");
      expect(records(out).filter((e) => e.runId === old.runId)).toEqual([]);
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("smaller ends (point 11)", () => {
  it("du shows hardlinked bytes in their own column, and says 1 task", async () => {
    root = makeWorkspace(["api"]);
    expect((await wt(root, ["add", "--task", "t1", "--source", "api"])).code).toBe(0);
    const big = join(root, "api", "big.bin");
    writeFileSync(big, Buffer.alloc(64 * 1024, 7));
    linkSync(big, join(legPath(root, "t1", "api"), "big.bin"));
    const [leg] = records((await wt(root, ["du", "--json"])).stdout);
    expect(leg!.hardlinked as number).toBeGreaterThanOrEqual(64 * 1024);
    const human = await wt(root, ["du"]);
    expect(human.stdout).toBe(
      `t1\tapi\t${leg!.checkout}\t${leg!.untracked}\t${leg!.ignored}\t${leg!.admin}\t${leg!.total}\t${leg!.hardlinked}\t${legPath(root, "t1", "api")}\n` +
        `(all)\t1 task\t${leg!.checkout}\t${leg!.untracked}\t${leg!.ignored}\t${leg!.admin}\t${leg!.total}\t${leg!.hardlinked}\t\n`,
    );
  });

  it("spawn --detach and runs list print a run's columns in the same order", async () => {
    root = "";
    const ws = multiRepoWorkspace(["api"]);
    const s = await spawnD(ws, ["--name", "agent", "--source", "api", "--", "sleep", "30"]);
    expect(s.code).toBe(0);
    const l = await runs(ws, ["list"]);
    const started = s.stdout.trim().split("\t");
    const listed = l.stdout.trim().split("\t");
    expect(started).toHaveLength(12);
    // TASK, then SANDBOX, the columns added last (decision 0107): the source of a run in its
    // checkout, and no sandbox.
    expect([started.slice(-2), listed.slice(-2)]).toEqual([
      ["api", "-"],
      ["api", "-"],
    ]);
    // The same run, the same columns; only the state and activity may have moved on (starting -> running).
    expect([...started.slice(0, 3), ...started.slice(5)]).toEqual([
      ...listed.slice(0, 3),
      ...listed.slice(5),
    ]);
    expect(started.slice(0, 2)).toEqual([listed[0], "agent"]);
    await runs(ws, ["kill", "agent"]);
  });

  it("gc names the leg of each branch it keeps (not merged), one line each, and counts in the singular", async () => {
    root = makeWorkspace(["api", "web"]);
    expect((await wt(root, ["add", "--source", "api", "--source", "web", "--task", "t1"])).code).toBe(0);
    for (const s of ["api", "web"]) {
      const leg = legPath(root, "t1", s);
      writeFile(join(leg, "feature.txt"), `${s}\n`);
      git(leg, "add", "feature.txt");
      git(leg, "commit", "-qm", "feature");
    }
    expect((await wt(root, ["remove", "--task", "t1", "--allow", "overlay-changed"])).code).toBe(0);
    const r = await wt(root, ["gc", "-n", "--older-than", "0", "--prune-merged"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "ariel-worktree: skip t1: not-merged (ariel/t1 in api)\nariel-worktree: skip t1: not-merged (ariel/t1 in web)\n",
    );
    // One action (the record's archive), said as one.
    expect(r.stderr).toContain("ariel-worktree: 1 action, ");
  });

  it.each<CliName>(["discover", "worktree", "spawn", "runs", "fleet"])(
    "ariel-%s help contract prints the contract in brief; --help points at it",
    async (cli) => {
      const c = await runAriel(cli, ["help", "contract"]);
      expect([c.code, c.stdout, c.stderr]).toEqual([0, CONTRACT_SUMMARY, ""]);
      expect(c.stdout).toContain("| 75          | TEMPFAIL        |");
      const h = await runAriel(cli, ["--help"]);
      expect(h.stdout.trimEnd().split("\n").at(-1)).toBe(
        `Exit statuses and record rules: ariel-${cli} help contract`,
      );
      // `help` alone is the help, in the CLIs without sub-commands too (it was a usage error there).
      const bare = await runAriel(cli, ["help"]);
      expect([bare.code, bare.stdout]).toEqual([0, h.stdout]);
    },
  );
});

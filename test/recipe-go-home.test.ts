/**
 * docs/runs.md's recipe "start five agents, go home", run as written: its three shell blocks,
 * in `sh`, with HOME a temp dir holding `~/ws` (five real repositories) and a fake `claude` on
 * PATH that fails in chalk leaving uncommitted work, and passes everywhere else.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { REPO_ROOT, records, testStateHome } from "./helpers/cli.ts";
import { tempDir } from "./helpers/git.ts";
import { cleanUp, multiRepoWorkspace, TEST_ENV } from "./runs_helpers.ts";

afterEach(cleanUp);

const REPOS = ["chalk", "debug", "express", "ms", "qs"];

/** The `sh` blocks of the recipe's section of docs/runs.md, in order. */
function recipeBlocks(): string[] {
  const doc = readFileSync(join(REPO_ROOT, "docs/runs.md"), "utf8");
  const start = doc.indexOf("## Recipe: start five agents, go home");
  const section = doc.slice(start, doc.indexOf("\n## ", start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** An agent that waits for `$HOME/go`, then fails in chalk with work left behind, else passes. */
const FAKE_CLAUDE = `#!/bin/sh
while [ ! -e "$HOME/go" ]; do sleep 0.05; done
if [ "$ARIEL_SOURCE" = chalk ]; then echo wip > wip.txt; exit 1; fi
echo "$ARIEL_SOURCE: all tests pass"
`;

interface Shell {
  code: Promise<number | null>;
  out: () => string;
  err: () => string;
}

function sh(script: string, env: Record<string, string>): Shell {
  const p = spawn("sh", ["-c", script], { env: { ...process.env, NO_COLOR: "1", ...env } });
  let out = "";
  let err = "";
  p.stdout.on("data", (b: Buffer) => {
    out += b.toString();
  });
  p.stderr.on("data", (b: Buffer) => {
    err += b.toString();
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
  const code = new Promise<number | null>((r) =>
    p.on("close", (c) => {
      clearTimeout(timer);
      r(c);
    }),
  );
  return { code, out: () => out, err: () => err };
}

it("start five agents, go home: the recipe runs as written", async () => {
  const home = tempDir("ariel-home-");
  const ws = multiRepoWorkspace(REPOS, join(home, "ws"));
  const bin = join(home, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "claude"), FAKE_CLAUDE);
  chmodSync(join(bin, "claude"), 0o755);
  const env = {
    ...TEST_ENV,
    HOME: home,
    PATH: `${bin}:${join(REPO_ROOT, "node_modules/.bin")}:${process.env.PATH}`,
    ARIEL_STATE_HOME: testStateHome(),
  };
  const [evening, waiting, morning] = recipeBlocks();
  expect([evening, waiting, morning].every((b) => b !== undefined)).toBe(true);

  // The evening. // after iso merge: drop -C (none was needed: `mkdir -p ~/ws/.ariel` makes ~/ws
  // the root from inside express and the recipe names its sources; after the iso merge a spawn
  // without --source from inside a repository targets that repository, which nothing here uses).
  const started = sh(evening!, env);
  expect(await started.code).toBe(0);
  const rows = started
    .out()
    .trim()
    .split("\n")
    .map((l) => l.split("\t"));
  expect(rows.map((r) => r[1])).toEqual(REPOS.map((r) => `agent@${r}`));
  const groups = new Set(rows.map((r) => r[2]));
  expect(groups.size).toBe(1);

  // A second shell blocks on `wait --all`; the agents are let go once it has chosen its runs.
  const go = join(home, "go");
  const waited = sh(waiting!, {
    ...env,
    ARIEL_TEST_HOOKS: "1",
    ARIEL_TEST_PAUSE_AT: "wait:selected",
    ARIEL_TEST_RELEASE_FILE: go,
  });
  await expect.poll(() => waited.err(), { timeout: 30_000 }).toContain("ariel-test-paused wait:selected");
  writeFileSync(go, "");
  expect(await waited.code).toBe(0);
  const chalk = records(
    (
      await new Promise<string>((resolve) => {
        const p = sh(`ariel-runs -C ${ws} list --all --json`, env);
        p.code.then(() => resolve(p.out()));
      })
    ).trim(),
  ).find((r) => r.name === "agent@chalk")!;
  const task = chalk.task as string;
  const summary =
    "ariel-runs: 5 runs: 4 exited, 1 failed: agent@chalk (1); kept agent@chalk (dirty): " +
    `ariel-worktree remove --task ${task} --source chalk --snapshot\n`;
  expect(waited.err().split("\n").slice(1).join("\n")).toBe(summary);
  expect(waited.out().trim().split("\n").at(-1)).toBe("worst status: 1");

  // The next morning.
  const next = sh(morning!, env);
  expect(await next.code).toBe(0);
  const err = next.err();
  // Both waits say the same line; list names the kept worktree with its command.
  expect(err).toBe(
    `${summary}${summary}ariel-runs: agent@chalk kept its worktree (dirty): ariel-worktree remove --task ${task} --source chalk --snapshot\n`,
  );
  const out = next.out().trim().split("\n");
  const listed = out.filter((l) => l.startsWith(String(chalk.runId)));
  // Two waits print all five runs each, list the one run left, worktree list its dirty leg.
  expect(listed.length).toBe(3);
  expect(listed.at(-1)!.split("\t").slice(1, 9)).toEqual([
    "agent@chalk",
    chalk.group,
    "failed",
    "-",
    "chalk",
    String((chalk.child as { pid: number }).pid),
    "1",
    "kept (dirty)",
  ]);
  const legs = out.filter((l) => l.startsWith(`${task}\t`)).map((l) => l.split("\t").slice(1, 3));
  expect(legs.filter(([source]) => source === "chalk")).toEqual([["chalk", "dirty"]]);
  expect(readFileSync(join(chalk.worktree as string, "wip.txt"), "utf8")).toBe("wip\n");
});

/**
 * What a person sees on a terminal, on real repositories: the CLIs read the terminal from the
 * run context (`term`), so a test can be one. `ariel-worktree list` prints sizes human-readable
 * and right-aligned there, a `(task)` total after a task's legs, and `-` with --no-bytes.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { command as worktree } from "../packages/cli-worktree/src/command.ts";
import { runCli, type Terminal } from "../packages/core/src/host/mod.ts";
import { GIT_TEST_ENV } from "./helpers/git.ts";
import { makeWorkspace, removeDir, writeFile, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => {
  if (root) removeDir(root);
  root = "";
});

const TTY: Terminal = { stdout: true, stderr: true, columns: 120, color: false };

async function listOnTerminal(args: string[]): Promise<{ code: number; lines: string[]; stderr: string }> {
  let out = "";
  let err = "";
  const code = await runCli(worktree, {
    version: "test",
    argv: ["list", ...args],
    stdout: {
      write: (t: string) => {
        out += t;
      },
    },
    stderr: {
      write: (t: string) => {
        err += t;
      },
    },
    env: { ...process.env, ...GIT_TEST_ENV, ARIEL_OWNER: "tester" },
    cwd: root,
    term: TTY,
  });
  return { code, lines: out.trimEnd().split("\n"), stderr: err };
}

describe("ariel-worktree list on a terminal", () => {
  it("shows sizes human-readable and right-aligned under BYTES", async () => {
    root = makeWorkspace(["api", "web"]);
    await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web"]);
    writeFile(join(root, ".ariel/worktrees/t1/web/big.bin"), "x".repeat(5000));
    const r = await listOnTerminal([]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const [header, ...rows] = r.lines as [string, ...string[]];
    expect(header).toMatch(/^TASK +SOURCE +STATUS +LOCK +BRANCH +BYTES +PATH$/);
    const end = header.indexOf("BYTES") + "BYTES".length;
    expect(rows).toHaveLength(3);
    // After the legs of a task with several, its total.
    expect(rows[2]).toMatch(/^t1 +\(task\) +\d+(\.\d)? KiB$/);
    for (const row of rows) {
      const cell = row.slice(0, end).split(/ {2,}/).pop() as string;
      expect(cell).toMatch(/^\d+(\.\d)? (B|KiB)$/);
      expect(row[end - 1]).toMatch(/[BiK]/); // the unit ends where the header does
    }
    expect(rows[1]).toContain(" KiB  ");
  });

  it("shows - for BYTES with --no-bytes", async () => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    const r = await listOnTerminal(["--no-bytes"]);
    expect(r.code).toBe(0);
    expect(r.lines[1]).toMatch(/^t1 +api +active +ariel:t1 +ariel\/t1 +- +\//);
  });
});

/**
 * Credentials in URLs never reach ariel's own output: when git fails because a hook (or a
 * remote) printed a URL with `user:password@`, the ERR_GIT message ariel prints quotes git's line
 * with the credential removed, in plain and --json mode, from ariel-worktree and ariel-spawn.
 * A child's own output that ariel-spawn passes through is the child's and stays untouched.
 */
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { records, runAriel } from "./helpers/cli.ts";
import { NODE } from "./spawn_helpers.ts";
import { errors, gitState, makeWorkspace, removeDir, writeFile, wt } from "./worktree-fixtures.ts";

const SECRET = /s3cr3tpw|sshpw|ghp_tok123/;
let root = "";
afterEach(() => removeDir(root));

/** A post-checkout hook in `repo` that prints credentialed URLs on stderr and fails. */
function leakyHook(repo: string): void {
  const hook = join(repo, ".git/hooks/post-checkout");
  writeFile(
    hook,
    "#!/bin/sh\n" +
      "echo 'fatal: could not read from https://deploy:s3cr3tpw@git.example.com/r.git and ssh://git:sshpw@h/r' >&2\n" +
      "echo 'remote: https://ghp_tok123@github.com/a/b' >&2\n" +
      "exit 1\n",
  );
  chmodSync(hook, 0o755);
}

const REDACTED = "fatal: could not read from https://git.example.com/r.git and ssh://h/r";

describe("ERR_GIT messages quoting a hook", () => {
  it.each([
    ["plain", []],
    ["--json", ["--json"]],
  ])(
    "ariel-worktree add (%s): exit 1, the message quotes git's line without the secret",
    async (_mode, flags) => {
      root = makeWorkspace(["api"]);
      const api = join(root, "api");
      leakyHook(api);
      const before = gitState(api);
      const r = await wt(root, ["add", "--task", "t1", "--source", "api", ...flags]);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(SECRET);
      expect(r.stdout).not.toMatch(SECRET);
      if (flags.length > 0) {
        expect(errors(r.stderr)).toMatchObject([
          { code: "ERR_GIT", message: `git worktree failed in ${api}: ${REDACTED}` },
        ]);
      } else {
        expect(r.stderr).toContain(
          `ariel-worktree: error: git worktree failed in ${api}: ${REDACTED} [ERR_GIT]\n`,
        );
      }
      expect(gitState(api)).toEqual(before); // the failed add was unwound
    },
  );

  it("ariel-spawn --isolate: the error ariel prints is redacted too", async () => {
    root = makeWorkspace(["api"]);
    leakyHook(join(root, "api"));
    const r = await runAriel(
      "spawn",
      ["-C", root, "--source", "api", "--isolate", "--task", "t1", "--", NODE, "-e", "0"],
      {
        cwd: root,
      },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(REDACTED);
    expect(r.stderr).not.toMatch(SECRET);
  });
});

describe("a child's pass-through output under ariel-spawn", () => {
  const PRINT = "console.log('out https://u:s3cr3tpw@h/r');console.error('err ssh://git:sshpw@h/r')";

  it("is the child's own and stays untouched", async () => {
    root = makeWorkspace(["api"]);
    const r = await runAriel("spawn", ["--source", "api", "--", NODE, "-e", PRINT], { cwd: root });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      "out https://u:s3cr3tpw@h/r\n",
      "err ssh://git:sshpw@h/r\n",
    ]);
  });

  it("is redacted where ariel records it (--json events)", async () => {
    root = makeWorkspace(["api"]);
    const r = await runAriel("spawn", ["--source", "api", "--json", "--", NODE, "-e", PRINT], { cwd: root });
    expect(r.code).toBe(0);
    const lines = records(r.stdout)
      .filter((e) => e.event === "output")
      .map((e) => [e.stream, e.line]);
    expect(lines.sort()).toEqual([
      ["stderr", "err ssh://h/r"],
      ["stdout", "out https://h/r"],
    ]);
  });
});

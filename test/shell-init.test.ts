/**
 * ariel-worktree shell-init: the `acd` function and its completion in real interactive bash, zsh
 * and fish, on a pseudo-terminal (tmux). Keys are typed as a person would: `acd al<Tab> a<Tab>` must
 * complete the task id and the source, and land the shell in that leg.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliEnv, REPO_ROOT } from "./helpers/cli.ts";
import { initRepo, removeDir, tempDir } from "./helpers/git.ts";
import { legPath, wt } from "./worktree-fixtures.ts";

const has = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;

let root = "";
let socket = "";

function tmux(...args: string[]): string {
  const r = spawnSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** What the terminal shows now (for a failure's message). */
function screen(): string {
  return tmux("capture-pane", "-p", "-t", "t");
}

/** Wait until `file` exists (the shell wrote it), showing the screen if it never does. */
async function waitForFile(file: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    if (existsSync(file)) {
      const text = readFileSync(file, "utf8");
      if (text.endsWith("\n")) return text;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the shell never wrote ${file}; screen:\n${tmux("capture-pane", "-p", "-t", "t")}`);
}

beforeEach(async () => {
  root = realpathSync(tempDir("ariel-acd-"));
  socket = join(root, "tmux.sock");
  for (const s of ["api", "web"]) initRepo(join(root, s));
  for (const t of ["alpha1", "beta2"]) {
    const r = await wt(root, ["add", "--task", t, "--source", "api", "--source", "web"]);
    expect(r.code, r.stderr).toBe(0);
  }
});
afterEach(async () => {
  spawnSync("tmux", ["-S", socket, "kill-server"]);
  // The shell ends after the server: retry while it may still write in the directory.
  for (let i = 0; ; i++) {
    try {
      removeDir(root);
      return;
    } catch (e) {
      if (i >= 50) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
});

/** How each shell starts bare, what it needs first, how it loads shell-init and names the last status. */
const SHELLS: [string, string[], string[], string, string][] = [
  ["bash", ["bash", "--norc", "--noprofile", "-i"], [], 'eval "$(ariel-worktree shell-init bash)"', "$?"],
  [
    "zsh",
    ["zsh", "-f", "-i"],
    ["autoload -Uz compinit && compinit -u -D"],
    'eval "$(ariel-worktree shell-init zsh)"',
    "$?",
  ],
  // fish reads no config with --no-config; `source` takes the function from a pipe.
  ["fish", ["fish", "--no-config", "-i"], [], "ariel-worktree shell-init fish | source", "$status"],
];

describe.each(SHELLS)("acd in %s", (shell, argv, setup, load, status) => {
  it.skipIf(!has("tmux") || !has(shell))(
    "completes task ids and sources, then changes to the leg",
    async () => {
      const env = cliEnv({ PATH: `${join(REPO_ROOT, "node_modules/.bin")}:${process.env.PATH}`, HOME: root });
      const envArgs = Object.entries(env)
        .filter(([k]) => /^(PATH|HOME|ARIEL_STATE_HOME|NO_COLOR|LANG|LC_ALL)$/.test(k))
        .map(([k, v]) => `${k}=${v}`);
      tmux(
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "160",
        "-y",
        "40",
        "-c",
        root,
        "env",
        "-i",
        ...envArgs,
        "TERM=xterm",
        "HISTFILE=/dev/null", // no history written into the test's directory as the shell ends
        ...argv,
      );
      const out = join(root, "pwd.txt");
      // Each set-up line ends by writing a file: the next keys are typed once the shell is there.
      for (const [i, line] of [...setup, load].entries()) {
        const ready = join(root, `ready${i}`);
        tmux("send-keys", "-t", "t", `${line}; echo ok > ${ready}`, "Enter");
        await waitForFile(ready);
      }
      // "al" completes to the only task starting so, "w" to the only source starting so.
      tmux("send-keys", "-t", "t", "acd al", "Tab");
      tmux("send-keys", "-t", "t", "w", "Tab");
      tmux("send-keys", "-t", "t", `&& pwd > ${out}`, "Enter");
      expect(await waitForFile(out), screen()).toBe(`${legPath(root, "alpha1", "web")}\n`);
      const bad = join(root, "bad.txt");
      tmux("send-keys", "-t", "t", `acd nope; echo "status ${status}" > ${bad}`, "Enter");
      expect(await waitForFile(bad), screen()).toBe("status 1\n");
    },
  );
});

/**
 * docs/sandbox.md's recipe "five agents with permissions off, none able to touch `main`", run as
 * written: its two shell blocks, in `sh`, with HOME a temp dir holding `~/app` (a real
 * repository) and a fake `claude` on PATH that commits its fix on its branch and then tries every
 * way it has to move `main` or write into the checkout.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { REPO_ROOT, testStateHome } from "./helpers/cli.ts";
import { git, initRepo, removeDir, tempDir } from "./helpers/git.ts";
import { cleanUp, TEST_ENV } from "./runs_helpers.ts";
import { describeSandbox, SANDBOX_ENV } from "./sandbox_helpers.ts";

const homes: string[] = [];
afterEach(() => {
  cleanUp();
  for (const h of homes.splice(0)) removeDir(h);
});

/** The `sh` blocks of the recipe's section of docs/sandbox.md, in order. */
function recipeBlocks(): string[] {
  const doc = readFileSync(join(REPO_ROOT, "docs/sandbox.md"), "utf8");
  const start = doc.indexOf("## Recipe: five agents with permissions off, none able to touch `main`");
  const section = doc.slice(start, doc.indexOf("\n## ", start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** An agent with its permissions off: its fix committed on its branch, then every try at main. */
const FAKE_CLAUDE = `#!/bin/sh
echo "fix by $ARIEL_TASK" > "fix-$ARIEL_TASK.txt"
git add "fix-$ARIEL_TASK.txt" && git commit -qm "fix by $ARIEL_TASK"
git update-ref refs/heads/main HEAD
git branch -f main HEAD
git -c core.hooksPath=/dev/null update-ref refs/heads/main HEAD
git push . HEAD:main
git -C "$HOME/app" commit -q --allow-empty -m "evil"
echo evil > "$HOME/app/evil.txt"
rm -f "$HOME/app/.git/refs/heads/main" "$HOME/app/.git/packed-refs"
true
`;

function sh(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn("sh", ["-c", script], { env: { ...process.env, NO_COLOR: "1", ...env } });
    let out = "";
    let err = "";
    p.stdout.on("data", (b: Buffer) => {
      out += b.toString();
    });
    p.stderr.on("data", (b: Buffer) => {
      err += b.toString();
    });
    const timer = setTimeout(() => p.kill("SIGKILL"), 120_000);
    p.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

describeSandbox("recipe: five agents with permissions off", () => {
  it("none able to touch main: the recipe runs as written", async () => {
    const home = tempDir("ariel-home-");
    homes.push(home);
    const app = join(home, "app");
    initRepo(app, { "README.md": "# app\n", ".gitignore": ".ariel/\n" });
    const main = git(app, "rev-parse", "main");
    const bin = join(home, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "claude"), FAKE_CLAUDE);
    chmodSync(join(bin, "claude"), 0o755);
    const env = {
      ...TEST_ENV,
      ...SANDBOX_ENV,
      HOME: home,
      PATH: `${bin}:${join(REPO_ROOT, "node_modules/.bin")}:${process.env.PATH}`,
      ARIEL_STATE_HOME: testStateHome(),
    };
    const [evening, morning] = recipeBlocks();
    expect([evening, morning].every((b) => b !== undefined)).toBe(true);
    const started = await sh(evening!, env);
    expect([started.code, started.err]).toEqual([0, expect.any(String)]);
    expect(started.out.trim().split("\n")).toHaveLength(5);
    const next = await sh(morning!, env);
    expect(next.code).toBe(0);
    // main moved only when the user landed agent-3; nothing the agents tried reached it
    expect(git(app, "rev-parse", "main^1")).toBe(main);
    expect(git(app, "log", "--format=%s", "-3", "main")).toContain("fix by agent-3");
    // On a failure, what the runs said (wait's status line, the diffs, the warnings) comes with it.
    const said = `evening stderr:\n${started.err}\nmorning stdout:\n${next.out}\nmorning stderr:\n${next.err}`;
    for (const i of [1, 2, 3, 4, 5]) {
      expect(git(app, "log", "--format=%s", "-1", `ariel/agent-${i}`), said).toBe(`fix by agent-${i}`);
    }
    expect(git(app, "log", "--format=%s", "main")).not.toContain("evil");
    expect(existsSync(join(app, "evil.txt"))).toBe(false);
    expect(git(app, "fsck", "--no-dangling")).toBe("");
  });
});

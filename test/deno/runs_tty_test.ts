// Runs on a terminal under Deno: the CLIs run from source there, and the pseudo-terminal addon
// is a Node addon, so ariel-spawn --detach --tty refuses with 69 and a hint, starting nothing;
// a tty run a Node monitor hosts is read and typed into from Deno (screen renders with the
// terminal emulator, send goes through the monitor) (docs/runs.md, "Runs on a terminal"). Run:
// node_modules/.bin/deno test -A --no-check test/deno/runs_tty_test.ts
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cliEnv, REPO_ROOT, records } from "../helpers/cli.ts";
import { runs, runsWorkspace, spawnD, TEST_ENV } from "../runs_helpers.ts";
import { runsTest as test } from "./runs_deno.ts";

test("--tty is refused with 69 and a hint; nothing starts; a piped run still does", async () => {
  const root = runsWorkspace();
  const r = await spawnD(root, ["--tty", "--name", "agent", "--json", "--", "sh", "-c", "echo hi"]);
  assert.equal(r.code, 69);
  assert.equal(r.stdout, "");
  const [err] = records(r.stderr);
  assert.equal(err?.code, "ERR_TTY_UNAVAILABLE");
  assert.match(String(err?.message), /--tty is not available here: Deno/);
  assert.match(String(err?.hint), /Node 20\+/);
  assert.equal(existsSync(join(root, ".ariel/runs")), false);
  const piped = await spawnD(root, ["--name", "piped", "--", "sh", "-c", "echo hi"]);
  assert.equal(piped.code, 0);
  assert.equal((await runs(root, ["wait", "piped"])).code, 0);
});

test("a tty run hosted by a Node monitor: screen and send work from Deno", async () => {
  const root = runsWorkspace();
  const argv = ["-C", root, "--detach", "--tty", "--size", "30x5", "--name", "t", "--", "sh", "-c"];
  const script = 'printf "name? "; read x; echo "got $x"; sleep 30';
  // Node itself (under Deno, process.execPath is deno): its monitor hosts the terminal.
  const bin = join(REPO_ROOT, "packages/cli-spawn/bin/ariel-spawn.mjs");
  const node = spawnSync("node", [bin, ...argv, script], { env: cliEnv(TEST_ENV), encoding: "utf8" });
  assert.equal(node.status, 0, node.stderr);
  const screen = async () => (await runs(root, ["screen", "t"])).stdout;
  for (let i = 0; i < 100 && !(await screen()).includes("name?"); i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(await screen(), "name?\n");
  assert.equal((await runs(root, ["send", "t", "deno", "--enter"])).code, 0);
  for (let i = 0; i < 100 && !(await screen()).includes("got"); i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(await screen(), "name? deno\ngot deno\n");
  const json = records((await runs(root, ["screen", "--json", "t"])).stdout)[0];
  assert.deepEqual([json?.cols, json?.rows, json?.cursor], [30, 5, { x: 0, y: 2 }]);
  assert.equal((await runs(root, ["kill", "t"])).code, 0);
});

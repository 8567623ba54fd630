// Runs on a terminal under Deno: the CLIs run from source there, and the pseudo-terminal addon
// is a Node addon, so ariel-spawn --detach --tty refuses with 69 and a hint, starting nothing
// (docs/runs.md, "Runs on a terminal"). Run:
// node_modules/.bin/deno test -A --no-check test/deno/runs_tty_test.ts
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { records } from "../helpers/cli.ts";
import { runs, runsWorkspace, spawnD } from "../runs_helpers.ts";
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

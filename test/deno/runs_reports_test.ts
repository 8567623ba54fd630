// What agents report, under Deno (the CLIs and so the monitor from source): the monitor wires the
// fake Claude Code's hooks to the CLI itself with its hidden reporter argument (there is no
// small bundle beside a source file), and the report still reaches the monitor. Run:
// node_modules/deno/deno test -A test/deno/runs_reports_test.ts
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, records } from "../helpers/cli.ts";
import { finishedHistory, runDir, runsWorkspace, spawnD } from "../runs_helpers.ts";
import { runsTest as test } from "./runs_deno.ts";

const CLAUDE = join(REPO_ROOT, "test/fixtures/agents/claude");

test("a wired run of Claude Code: its SessionStart hook runs the CLI as the reporter, the run is idle by its agent", async () => {
  const root = runsWorkspace();
  const r = await spawnD(root, ["--json", "--shared", "--name", "c", "--", CLAUDE], {
    env: { FAKE_CLAUDE_SESSION: "deno-session" },
  });
  assert.equal(r.code, 0, r.stderr);
  const runId = records(r.stdout)[0]?.runId as string;
  const settings = JSON.parse(readFileSync(join(runDir(root, runId), "claude-settings.json"), "utf8"));
  const command: string = settings.hooks.SessionStart[0].hooks[0].command;
  assert.match(command, / run -A --quiet .* --ariel-agent-report claude$/);
  // the fake agent ends once its hooks did (its stdin is closed): its history is whole
  const history = await finishedHistory(root, runId);
  const said = history
    .filter((e) => e.event === "agent.session" || e.event === "run.attention")
    .map((e) => (e.event === "agent.session" ? [e.event, e.id] : [e.event, e.to, e.by]));
  assert.deepEqual(said, [
    ["agent.session", "deno-session"],
    ["run.attention", "idle", "agent"],
  ]);
});

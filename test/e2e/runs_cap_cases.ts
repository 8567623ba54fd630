/**
 * How the output cap punches its holes (docs/runs.md, Size cap; decision 0040), run by the Node
 * suite (test/runs-cap.test.ts) and the Deno suite (test/deno/runs_test.ts) alike: through the
 * monitor's perl helper, else util-linux `fallocate` per hole, said once in the monitor log. The
 * monitor's PATH decides which it has. The caller runs `cleanUp` after each.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { childrenOf } from "../../packages/core/src/host/runs/_fixture.ts";
import { records } from "../helpers/cli.ts";
import { alive, readJson, runDir, runs, runsWorkspace, spawnD, until } from "../runs_helpers.ts";
import { sh } from "./runs_cases.ts";

const CAP = 16384; // segments of 4096 bytes
const LINE = "0123456789abcde\n";

/** A directory holding only the named tools (links to them), for a monitor's PATH. */
export function toolDir(root: string, tools: readonly string[]): string {
  const bin = join(root, ".bin");
  mkdirSync(bin);
  for (const t of tools) {
    const dir = (process.env.PATH ?? "").split(":").find((d) => d && existsSync(join(d, t)));
    if (!dir) throw new Error(`${t} not on PATH`);
    symlinkSync(join(dir, t), join(bin, t));
  }
  return bin;
}

/**
 * With only `tool` (perl or fallocate) to punch with on the monitor's PATH, a live child's
 * stream is capped all the same: the hole really frees its space, `logs` prints the kept tail,
 * no `output.uncapped`; the monitor log says once when the helper could not be used; the helper
 * is the monitor's child while it serves and holds nothing up: both exit when idle.
 */
export async function capWithOnly(tool: "perl" | "fallocate"): Promise<void> {
  const root = runsWorkspace();
  const PATH = toolDir(root, ["git", "sh", "yes", "head", "sleep", tool]);
  const r = await spawnD(root, ["--json", ...sh("yes 0123456789abcde | head -n 1536; sleep 30")], {
    env: { ARIEL_RUN_OUTPUT_CAP: String(CAP), ARIEL_RUN_OUTPUT_POLL_MS: "50", PATH },
  });
  assert.equal(r.code, 0, r.stderr);
  const rec = records(r.stdout)[0] as { runId: string; monitor: { pid: number } };
  const meta = join(runDir(root, rec.runId), "stdout.dropped");
  // `.dropped` is made durable before the hole is punched: wait for both (the hole really frees
  // its space; `until` fails the test if it never does).
  const stdout = join(runDir(root, rec.runId), "stdout");
  await until(
    () => existsSync(meta) && readJson(meta).dropped === 8192 && statSync(stdout).blocks * 512 <= CAP + 4096,
  );
  const j = await runs(root, ["logs", "--json", "--stream", "stdout", rec.runId]);
  const out = records(j.stdout);
  assert.deepEqual([out.length, out[0]?.seq, out.every((x) => x.data === LINE)], [1024, 8192, true]);
  assert.ok(
    !readFileSync(join(root, ".ariel/runs", `${rec.runId}.ndjson`), "utf8").includes("output.uncapped"),
  );
  const said = readFileSync(join(root, ".ariel/monitor.log"), "utf8")
    .split("\n")
    .filter((l) => l.includes("hole punch helper"))
    .map((l) => l.replace(/^.*?: output cap: /, ""));
  assert.deepEqual(
    said,
    tool === "perl" ? [] : ["hole punch helper unavailable (perl: ENOENT): using fallocate(1)"],
  );
  const helpers = childrenOf(rec.monitor.pid, "perl");
  assert.equal(helpers.length, tool === "perl" ? 1 : 0);
  assert.equal((await runs(root, ["kill", rec.runId, "--grace", "2s"])).code, 0);
  await until(() => !alive(rec.monitor.pid) && !helpers.some(alive));
}

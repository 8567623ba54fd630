// The whole vitest suite (unit, integration, end-to-end on Node), then one plain closing line
// `tests: N passed, N failed, N skipped` that CI and people can read at a glance.
// Extra arguments go to vitest: `npm test -- test/discover.e2e.test.ts`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "ariel-vitest-"));
const report = join(dir, "report.json");
const r = spawnSync(
  join(root, "node_modules/.bin/vitest"),
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit" },
);
let summary = "tests: no report was written";
try {
  const j = JSON.parse(readFileSync(report, "utf8"));
  const skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  summary = `tests: ${j.numPassedTests} passed, ${j.numFailedTests} failed, ${skipped} skipped`;
  if (j.numTotalTests === 0) summary += " (no test ran)";
} catch {}
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${summary}\n`);
process.exit(r.status ?? 1);

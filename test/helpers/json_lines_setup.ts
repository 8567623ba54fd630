/**
 * vitest setup: fails a test (or its file, for what came after the last test) whose CLIs printed
 * a `--json` line that is not a record with `v` and `type` first (helpers/json_lines.ts).
 */
import { afterAll, afterEach } from "vitest";
import { takeJsonLineProblems } from "./json_lines.ts";

function check(): void {
  const problems = takeJsonLineProblems();
  if (problems.length > 0) {
    throw new Error(`--json lines that are not records with v and type first:\n${problems.join("\n")}`);
  }
}

afterEach(check);
afterAll(check);

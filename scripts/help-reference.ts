/**
 * docs/help/<bin>.md: every help page of each CLI, rendered from its command definitions (the
 * same text `--help` prints). gen-schema writes them; with --check it reports a difference. Each
 * CLI's help_test.ts compares its page too, so a unit test run sees a changed description.
 */

import { command as discover } from "../packages/cli-discover/src/command.ts";
import { command as fleet } from "../packages/cli-fleet/src/command.ts";
import { command as mcp } from "../packages/cli-mcp/src/command.ts";
import { command as runs } from "../packages/cli-runs/src/command.ts";
import { command as spawn } from "../packages/cli-spawn/src/command.ts";
import { command as tui } from "../packages/cli-tui/src/command.ts";
import { command as worktree } from "../packages/cli-worktree/src/command.ts";
import { renderHelpReference } from "../packages/core/src/host/cli/help.ts";

/** File name (under docs/help/) → its text. */
export async function renderHelpFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const def of [discover, fleet, mcp, runs, spawn, tui, worktree]) {
    files[`${def.meta.name}.md`] = await renderHelpReference(def);
  }
  return files;
}

import { ArielError } from "../../errors.ts";
import type { ArgsDef } from "./define.ts";

/**
 * `-C DIR` / `--workspace-root DIR` / `--repo-root DIR`: the flag every ariel CLI takes, defined
 * once. Spread it into a command's args: `args: { ...WORKSPACE_ROOT_ARG, json: … }`.
 */
export const WORKSPACE_ROOT_ARG = {
  "workspace-root": {
    type: "string",
    alias: ["C", "repo-root"],
    valueHint: "DIR",
    description:
      "the workspace root (default: $ARIEL_WORKSPACE_ROOT, .ariel/ or the git top level above the cwd)",
  },
} as const satisfies ArgsDef;

/** `--json`: NDJSON records on stdout, errors and warnings as NDJSON on stderr. Defined once. */
export const JSON_ARG = {
  json: { type: "boolean", description: "NDJSON records on stdout (errors as NDJSON on stderr)" },
} as const satisfies ArgsDef;

/**
 * `-n` / `--dry-run` and `--detailed-exitcode`: the flags of every command that changes
 * something, defined once. The shell ({@link checkDryRunFlags}, called by `runCli`) refuses
 * `--detailed-exitcode` without `--dry-run` before the command runs; {@link dryRunExit} gives the
 * status a finished dry run exits with.
 */
export const DRY_RUN_ARGS = {
  "dry-run": { type: "boolean", alias: "n", description: "print the plan and change nothing" },
  "detailed-exitcode": {
    type: "boolean",
    description: "with --dry-run: exit 2 when something would be done, 0 when nothing would",
  },
} as const satisfies ArgsDef;

/** The parsed values of {@link DRY_RUN_ARGS}. */
export interface DryRunFlags {
  "dry-run"?: boolean | undefined;
  "detailed-exitcode"?: boolean | undefined;
}

/**
 * `--detailed-exitcode` only means something with `--dry-run`: ERR_USAGE (64) otherwise, checked
 * once for every command by the shell, before anything happens.
 *
 * @example
 * ```ts
 * checkDryRunFlags({ "dry-run": true, "detailed-exitcode": true }); // fine
 * checkDryRunFlags({ "detailed-exitcode": true }); // throws ERR_USAGE
 * ```
 */
export function checkDryRunFlags(values: Readonly<Record<string, unknown>>): void {
  if (values["detailed-exitcode"] === true && values["dry-run"] !== true) {
    throw new ArielError("ERR_USAGE", "--detailed-exitcode needs --dry-run");
  }
}

/**
 * The exit status of a finished dry run: 2 with `--detailed-exitcode` when `changes` > 0, else 0.
 *
 * @example
 * ```ts
 * dryRunExit({ "dry-run": true, "detailed-exitcode": true }, 3); // 2
 * dryRunExit({ "dry-run": true }, 3); // 0
 * ```
 */
export function dryRunExit(flags: DryRunFlags, changes: number): number {
  return flags["detailed-exitcode"] === true && changes > 0 ? 2 : 0;
}

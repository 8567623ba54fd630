import { ArielError, parseTargetArg, parseTargetLines, type TargetSpec } from "@ariel/core";
import {
  type CommandSpec,
  hostPorts,
  type IsolateRequest,
  runSpawn,
  worktreeIsolation,
} from "@ariel/core/host";

/** Default seconds between SIGTERM and SIGKILL when ariel-spawn stops children itself. */
const DEFAULT_GRACE_SECONDS = 5;

function intFlag(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new ArielError("ERR_USAGE", `--${name} needs an integer ≥ ${min}, got '${value}'`);
  }
  return Number(value);
}

/** ariel-spawn: run a command in each source of the workspace (or in their task worktrees). */
export const command: CommandSpec = {
  name: "ariel-spawn",
  description: "run a command in sources of the workspace, shared or in isolated worktrees",
  usage: "[OPTIONS] -- CMD [ARGS...]",
  flags: {
    "workspace-root": {
      type: "string",
      short: "C",
      aliases: ["repo-root"],
      valueHint: "DIR",
      description: "the workspace root (else $ARIEL_WORKSPACE_ROOT, .ariel/, the git top level, the cwd)",
    },
    source: {
      type: "string",
      multiple: true,
      valueHint: "NAME",
      description: "run in this source (repeatable; a path works too); '-' reads sources from stdin",
    },
    jobs: {
      type: "string",
      short: "j",
      valueHint: "N",
      description: "run up to N children at once (default 1)",
    },
    "fail-fast": {
      type: "boolean",
      description: "after a failure start no more and terminate the running children",
    },
    grace: {
      type: "string",
      valueHint: "SECONDS",
      description: `seconds between SIGTERM and SIGKILL when stopping children (default ${DEFAULT_GRACE_SECONDS})`,
    },
    isolate: { type: "boolean", description: "run each target in its own worktree of a task" },
    task: {
      type: "string",
      valueHint: "ID",
      description: "with --isolate: the task id (default: generated)",
    },
    base: { type: "string", valueHint: "REF", description: "with --isolate: start the worktrees at REF" },
    branch: {
      type: "string",
      valueHint: "NAME",
      description: "with --isolate: the branch (default ariel/<task>)",
    },
    span: {
      type: "boolean",
      description: "with --isolate: one process for the whole task, in the task directory",
    },
    keep: { type: "boolean", description: "with --isolate: keep the worktrees after the run" },
    snapshot: {
      type: "boolean",
      description: "with --isolate: snapshot local work to refs/ariel/snapshots/ and remove the worktrees",
    },
    json: { type: "boolean", description: "NDJSON event records on stdout (child output as output events)" },
    "dry-run": { type: "boolean", short: "n", description: "print the plan, start and create nothing" },
    "detailed-exitcode": {
      type: "boolean",
      description: "with --dry-run: exit 2 when there is something to run",
    },
  },
  async run(ctx) {
    const f = ctx.flags;
    if (ctx.rest.length === 0) {
      throw new ArielError("ERR_USAGE", "missing command: ariel-spawn [OPTIONS] -- CMD [ARGS...]");
    }
    const jobs = intFlag("jobs", f.jobs as string | undefined, 1, 1);
    const graceMs = intFlag("grace", f.grace as string | undefined, DEFAULT_GRACE_SECONDS, 0) * 1000;
    const isolate = f.isolate === true;
    for (const name of ["task", "base", "branch", "span", "keep", "snapshot"]) {
      if (f[name] !== undefined && !isolate) throw new ArielError("ERR_USAGE", `--${name} needs --isolate`);
    }
    if (f.keep && f.snapshot) throw new ArielError("ERR_USAGE", "--keep and --snapshot exclude each other");
    if (f["detailed-exitcode"] && !f["dry-run"]) {
      throw new ArielError("ERR_USAGE", "--detailed-exitcode needs --dry-run");
    }
    const sourceArgs = (f.source as string[] | undefined) ?? [];
    if (sourceArgs.filter((s) => s === "-").length > 1) {
      throw new ArielError("ERR_USAGE", "--source - given twice");
    }
    const targets: TargetSpec[] = [];
    for (const s of sourceArgs) {
      if (s === "-") targets.push(...(await parseTargetLines(process.stdin)));
      else targets.push(parseTargetArg(s));
    }
    if (sourceArgs.includes("-") && targets.length === 0) {
      ctx.log.warn("WARN_NO_TARGETS", "no sources on stdin: nothing to run");
      return 0;
    }
    const isolateReq: IsolateRequest | undefined = isolate
      ? {
          ...(f.task !== undefined ? { taskId: f.task as string } : {}),
          ...(f.base !== undefined ? { base: f.base as string } : {}),
          ...(f.branch !== undefined ? { branch: f.branch as string } : {}),
          span: f.span === true,
          onExit: f.keep ? "keep" : f.snapshot ? "snapshot" : "remove",
        }
      : undefined;
    return runSpawn(
      hostPorts({ env: ctx.env, cwd: ctx.cwd }),
      {
        ...(f["workspace-root"] !== undefined ? { workspaceRoot: f["workspace-root"] as string } : {}),
        targets,
        argv: ctx.rest,
        jobs,
        failFast: f["fail-fast"] === true,
        graceMs,
        json: f.json === true,
        dryRun: f["dry-run"] === true,
        detailedExitcode: f["detailed-exitcode"] === true,
        ...(isolateReq ? { isolate: isolateReq } : {}),
      },
      {
        out: ctx.out,
        stderr: process.stderr,
        log: ctx.log,
        abort: ctx.signal,
        stdinFree: !sourceArgs.includes("-"),
        tty: process.stdout.isTTY === true,
        isolation: worktreeIsolation,
      },
    );
  },
};

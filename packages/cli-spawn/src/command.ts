import {
  ArielError,
  checkShareNames,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_TTY_SIZE,
  type K8sSettings,
  loadConfig,
  ON_EXIT_TIMEOUT_MS,
  parseDuration,
  parseRestart,
  parseSize,
  parseTargetArg,
  parseTargetLines,
  parseTtySize,
  presetFor,
  resolveWorkspaceRoot,
  type TargetSpec,
  validateRunName,
  validateTaskId,
} from "@ariel/core";
import {
  type ArgsDef,
  blockingFs,
  type DetachRequest,
  DRY_RUN_ARGS,
  defineCommand,
  dryRunExit,
  hostPorts,
  type IsolateRequest,
  loadPty,
  type RunContext,
  runSpawn,
  type SandboxAsk,
  startDetached,
  startK8s,
  terminalSize,
  WORKSPACE_ROOT_ARG,
  worktreeIsolation,
} from "@ariel/core/host";
import {
  generatedNote,
  printDetachPlan,
  printK8sPlan,
  printPlan,
  printTasksLifecycle,
  type RenderIo,
  reportK8sStarted,
  reportRan,
  reportStarted,
} from "./render.ts";

/**
 * The ports of a local run, with synchronous file I/O (blockingFs): ariel-spawn is a short-lived
 * CLI, each thread-pool hop is start-up wall time (docs/benchmarks.md, decision 0033), and while
 * children run its file I/O is a few small durable writes (worktree records at a fan-out's ends).
 */
function localPorts(ctx: RunContext<typeof args>) {
  return hostPorts({ env: ctx.env, cwd: ctx.cwd, fs: blockingFs });
}

/** Default seconds between SIGTERM and SIGKILL when ariel-spawn stops children itself. */
const DEFAULT_GRACE_SECONDS = 5;
/** Default grace of a detached run's --timeout (ariel-runs kill has its own --grace). */
const DETACHED_GRACE_MS = DEFAULT_KILL_GRACE_MS;

function intFlag(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new ArielError("ERR_USAGE", `--${name} needs an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

const args = {
  ...WORKSPACE_ROOT_ARG,
  source: {
    type: "string",
    multiple: true,
    valueHint: "NAME",
    description:
      "run in this source (repeatable; a path works too); '-' reads sources from stdin (default: the source the cwd is in, else the root)",
  },
  jobs: {
    type: "string",
    alias: "j",
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
  task: { type: "string", valueHint: "ID", description: "with --isolate: the task id (default: generated)" },
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
  "with-changes": {
    type: "boolean",
    description: "with --isolate: carry each source's uncommitted changes into its worktree",
  },
  sparse: {
    type: "string",
    multiple: true,
    valueHint: "PATH",
    description: "with --isolate: cone-mode sparse checkout of only these directories; repeatable",
  },
  share: {
    type: "string",
    multiple: true,
    valueHint: "DIR",
    description:
      "with --isolate: give each new worktree its source's DIR (e.g. node_modules) as hardlinks when the lockfiles match; repeatable (default: config share)",
  },
  join: {
    type: "boolean",
    description: "with --isolate --task: work in the task even while other detached runs work in it",
  },
  shared: {
    type: "boolean",
    description:
      "with --detach, without --isolate: work in the checkout even while another detached run does",
  },
  keep: { type: "boolean", description: "with --isolate: keep the worktrees after the run" },
  "no-hooks": {
    type: "boolean",
    description: "with --isolate: run no lifecycle hook (post-create, pre-remove; docs/lifecycle.md)",
  },
  snapshot: {
    type: "boolean",
    description: "with --isolate: snapshot local work to refs/ariel/snapshots/ and remove the worktrees",
  },
  detach: {
    type: "boolean",
    alias: "d",
    description: "start in the background under the workspace's monitor; print one run record per target",
  },
  name: {
    type: "string",
    valueHint: "NAME",
    description: "with --detach: a name for the run (ariel-runs accepts it)",
  },
  restart: {
    type: "string",
    valueHint: "POLICY",
    description:
      "with --detach: on-failure[:N] restarts a failing child with backoff, at most N times in a row",
  },
  timeout: {
    type: "string",
    valueHint: "DURATION",
    description: "with --detach: end the run after DURATION (TERM, then KILL after --grace)",
  },
  "on-exit": {
    type: "string",
    valueHint: "CMD",
    description:
      "with --detach: run CMD (split on spaces, no shell) when the run ended, with ARIEL_EXIT_CODE",
  },
  "on-exit-timeout": {
    type: "string",
    valueHint: "DURATION",
    description:
      "with --on-exit: stop the hook after DURATION (TERM to its process group, KILL after --grace; default 60s)",
  },
  interactive: {
    type: "boolean",
    description: "with --detach: give the child a stdin that ariel-runs attach forwards to",
  },
  tty: {
    type: "boolean",
    description:
      "with --detach: run the child on a terminal the monitor owns (ariel-runs attach, screen, send)",
  },
  size: {
    type: "string",
    valueHint: "COLSxROWS",
    description: "with --tty: the terminal's size (default: this terminal's, else 80x24)",
  },
  agent: {
    type: "string",
    valueHint: "NAME",
    description:
      "with --tty or --sandbox: the agent (claude, codex, gemini, aider, generic; default: by command): how to read its screen, which state it writes",
  },
  "no-agent-reports": {
    type: "boolean",
    description:
      "with --detach: do not wire the agent's own reports (Claude Code hooks, Codex notify, Gemini CLI hooks); its screen tells",
  },
  notify: {
    type: "string",
    valueHint: "CMD",
    description:
      "with --detach: run CMD (split on spaces, no shell) each time the run starts waiting for you, and at exit",
  },
  backend: {
    type: "string",
    valueHint: "local|k8s",
    description:
      "with --detach: where runs run (default: config backend, else local); k8s: one Job per target",
  },
  namespace: {
    type: "string",
    valueHint: "NS",
    description: "with --backend k8s: the namespace (default default)",
  },
  image: {
    type: "string",
    valueHint: "IMG",
    description: "with --backend k8s: the image (needs sh and git)",
  },
  kubeconfig: { type: "string", valueHint: "FILE", description: "with --backend k8s: the kubeconfig to use" },
  "service-account": {
    type: "string",
    valueHint: "NAME",
    description: "with --backend k8s: the pod's service account",
  },
  "git-secret": {
    type: "string",
    valueHint: "NAME",
    description: "with --backend k8s: a Secret with git-credentials or ssh-privatekey for clone and push",
  },
  "overlay-from": {
    type: "string",
    valueHint: "KIND/NAME",
    description: "with --backend k8s: overlay files from secret/NAME or configmap/NAME",
  },
  "bundle-claim": {
    type: "string",
    valueHint: "PVC",
    description: "with --backend k8s: write a git bundle to this claim at exit instead of pushing",
  },
  ttl: {
    type: "string",
    valueHint: "DURATION",
    description: "with --backend k8s: delete finished Jobs after (default 1d)",
  },
  requests: {
    type: "string",
    valueHint: "cpu=..,memory=..",
    description: "with --backend k8s: resource requests",
  },
  limits: {
    type: "string",
    valueHint: "cpu=..,memory=..",
    description: "with --backend k8s: resource limits",
  },
  output: {
    type: "string",
    alias: "o",
    valueHint: "yaml",
    description: "with --backend k8s --dry-run: print the Job manifests as YAML documents",
  },
  "min-free": {
    type: "string",
    valueHint: "SIZE",
    description: "refuse (exit 75) when less disk is free, e.g. 5G (default: config minFreeBytes)",
  },
  sandbox: {
    type: "boolean",
    description:
      "run each command in a bubblewrap sandbox: it writes only its worktrees (or checkout), its agent's state and /tmp, and moves only its own branches (docs/sandbox.md)",
  },
  "no-sandbox": { type: "boolean", description: 'run without a sandbox although config says "sandbox"' },
  "sandbox-write": {
    type: "string",
    multiple: true,
    valueHint: "PATH",
    description: "with --sandbox: also writable inside (repeatable)",
  },
  "sandbox-net": {
    type: "string",
    valueHint: "on|none",
    description: "with --sandbox: the network inside (default on; none: loopback only)",
  },
  json: { type: "boolean", description: "NDJSON event records on stdout (child output as output events)" },
  ...DRY_RUN_ARGS,
} as const satisfies ArgsDef;

/** The flags that only mean something with --isolate. */
const ISOLATE_ONLY = [
  "task",
  "base",
  "branch",
  "span",
  "keep",
  "snapshot",
  "with-changes",
  "join",
  "no-hooks",
] as const;
/** The flags that only mean something with --detach. */
const DETACH_ONLY = [
  "name",
  "restart",
  "timeout",
  "on-exit",
  "on-exit-timeout",
  "interactive",
  "backend",
  "shared",
  "tty",
  "notify",
  "no-agent-reports",
] as const;
/** The flags that only mean something with --backend k8s, and their config keys (`k8s.*`). */
const K8S_FLAGS = {
  namespace: "namespace",
  image: "image",
  kubeconfig: "kubeconfig",
  "service-account": "serviceAccount",
  "git-secret": "gitSecret",
  "overlay-from": "overlayFrom",
  "bundle-claim": "bundleClaim",
  ttl: "ttl",
  requests: "requests",
  limits: "limits",
  output: null,
} as const satisfies Record<string, keyof K8sSettings | null>;
/** What a k8s run cannot do (yet): each refused with ERR_USAGE. */
const NOT_WITH_K8S = [
  "keep",
  "snapshot",
  "span",
  "on-exit",
  "on-exit-timeout",
  "interactive",
  "fail-fast",
  "join",
  "shared",
  "tty",
  "notify",
  "no-agent-reports",
] as const;

/** ariel-spawn: run a command in each source of the workspace (or in their task worktrees). */
export const command = defineCommand({
  meta: {
    name: "ariel-spawn",
    description: "run a command in sources of the workspace, shared or in isolated worktrees",
    usage: "[OPTIONS] -- CMD [ARGS...]",
    examples: [
      ["ariel-spawn --source api --source web -- git status -s", "run a command in two sources"],
      ["ariel-discover --json | ariel-spawn --source - -j 4 -- npm test", "test every source, 4 at a time"],
      [
        "ariel-spawn --source api --isolate -- npm test",
        "test api in a fresh worktree, removed after if clean",
      ],
      [
        "ariel-spawn -d --name fix --isolate -- claude -p 'fix it'",
        "an agent in the background (ariel-runs)",
      ],
    ],
  },
  args,
  rest: { valueHint: "CMD [ARGS...]" },
  run,
});

/** The sandbox flags as the host takes them (whether they apply is decided with the config). */
function sandboxAsk(a: RunContext<typeof args>["args"]): SandboxAsk {
  return {
    ...(a.sandbox === true ? { sandbox: true } : {}),
    ...(a["no-sandbox"] === true ? { noSandbox: true } : {}),
    ...(a["sandbox-write"].length > 0 ? { write: a["sandbox-write"] } : {}),
    ...(a["sandbox-net"] !== undefined ? { net: a["sandbox-net"] } : {}),
    ...(a.agent !== undefined ? { agent: presetFor(a.agent, []).name } : {}),
    ...(a.agent !== undefined && a.tty !== true ? { agentAlone: true } : {}),
  };
}

function isolateRequest(a: RunContext<typeof args>["args"]): IsolateRequest | undefined {
  if (!a.isolate) return undefined;
  return {
    ...(a.task !== undefined ? { taskId: a.task } : {}),
    ...(a.base !== undefined ? { base: a.base } : {}),
    ...(a.branch !== undefined ? { branch: a.branch } : {}),
    ...(a["with-changes"] === true ? { withChanges: true } : {}),
    ...(a.sparse.length > 0 ? { sparse: a.sparse } : {}),
    ...(a.share.length > 0 ? { share: a.share } : {}),
    ...(a["no-hooks"] === true ? { noHooks: true } : {}),
    span: a.span === true,
    ...(a.join === true ? { join: true } : {}),
    onExit: a.keep ? "keep" : a.snapshot ? "snapshot" : "remove",
  };
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const a = ctx.args;
  if (ctx.rest.length === 0) {
    throw new ArielError("ERR_USAGE", "missing command: ariel-spawn [OPTIONS] -- CMD [ARGS...]", {
      hint: "put the command after --, e.g. ariel-spawn -- git status",
    });
  }
  const jobs = intFlag("jobs", a.jobs, 1, 1);
  const graceMs = intFlag("grace", a.grace, DEFAULT_GRACE_SECONDS, 0) * 1000;
  const k8sWanted = a.backend === "k8s";
  for (const name of ISOLATE_ONLY) {
    if (a[name] !== undefined && !a.isolate && !k8sWanted) {
      throw new ArielError("ERR_USAGE", `--${name} needs --isolate`);
    }
  }
  for (const name of ["sparse", "share"] as const) {
    if (a[name].length > 0 && !a.isolate && !k8sWanted)
      throw new ArielError("ERR_USAGE", `--${name} needs --isolate`);
  }
  if (a.join && a.task === undefined) {
    throw new ArielError("ERR_USAGE", "--join needs --task: a generated task is new, nobody works in it");
  }
  checkShareNames(a.share);
  if (a.keep && a.snapshot) throw new ArielError("ERR_USAGE", "--keep and --snapshot exclude each other");
  const sourceArgs = a.source;
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
  const { backend, resolved } = await chooseBackend(ctx);
  if (backend === "k8s") return k8s(ctx, targets, graceMs);
  for (const name of Object.keys(K8S_FLAGS) as (keyof typeof K8S_FLAGS)[]) {
    if (a[name] !== undefined) throw new ArielError("ERR_USAGE", `--${name} needs --backend k8s`);
  }
  const isolate = isolateRequest(a);
  if (a.detach) return detached(ctx, targets, graceMs, isolate, resolved);
  for (const name of DETACH_ONLY) {
    if (a[name] !== undefined) throw new ArielError("ERR_USAGE", `--${name} needs --detach`);
  }
  const json = a.json === true;
  const r = await runSpawn(
    localPorts(ctx),
    { ...baseRequest(ctx, targets, isolate), jobs, failFast: a["fail-fast"] === true, graceMs, json },
    { ...spawnIo(ctx), stderrTerminal: ctx.term.stderr },
  );
  if (r.kind === "ran") return reportRan(ctx, r);
  printPlan(renderIo(ctx), json, r.units);
  printTasksLifecycle(renderIo(ctx), json, r.tasks);
  if (isolate?.taskId === undefined && r.tasks.length > 0)
    ctx.log.info(generatedNote(r.tasks.map((t) => t.taskId)));
  return dryRunExit(a, r.units.length);
}

/** What a foreground and a detached run are asked alike: where, what, the plan only, --isolate, the disk floor. */
function baseRequest(
  ctx: RunContext<typeof args>,
  targets: TargetSpec[],
  isolate: IsolateRequest | undefined,
) {
  const a = ctx.args;
  return {
    ...(a["workspace-root"] !== undefined ? { workspaceRoot: a["workspace-root"] } : {}),
    targets,
    argv: ctx.rest,
    dryRun: a["dry-run"] === true,
    ...(isolate ? { isolate } : {}),
    ...(a["min-free"] !== undefined ? { minFreeBytes: parseSize(a["min-free"], "--min-free") } : {}),
    sandbox: sandboxAsk(a),
  };
}

/** `--detach`: the same targets, each started under the workspace's monitor (docs/runs.md). */
async function detached(
  ctx: RunContext<typeof args>,
  targets: TargetSpec[],
  graceMs: number,
  isolate: IsolateRequest | undefined,
  resolved: DetachRequest["resolved"],
): Promise<number> {
  const a = ctx.args;
  if (a["fail-fast"]) throw new ArielError("ERR_USAGE", "--fail-fast has no meaning with --detach");
  const onExit = a["on-exit"] === undefined ? null : a["on-exit"].split(/\s+/).filter((w) => w !== "");
  if (onExit !== null && onExit.length === 0) throw new ArielError("ERR_USAGE", "--on-exit needs a command");
  if (onExit === null && a["on-exit-timeout"] !== undefined) {
    throw new ArielError("ERR_USAGE", "--on-exit-timeout needs --on-exit");
  }
  if (a.shared && a.isolate) throw new ArielError("ERR_USAGE", "--shared is for runs without --isolate");
  const grace = a.grace === undefined ? DETACHED_GRACE_MS : graceMs;
  const notify = a.notify === undefined ? null : a.notify.split(/\s+/).filter((w) => w !== "");
  if (notify !== null && notify.length === 0) throw new ArielError("ERR_USAGE", "--notify needs a command");
  const tty = ttyOptions(a, ctx.rest);
  if (tty && a["dry-run"] !== true) await loadPty(); // ERR_TTY_UNAVAILABLE (69) where it cannot load
  const r = await startDetached(
    localPorts(ctx),
    {
      ...baseRequest(ctx, targets, isolate),
      ...(resolved ? { resolved } : {}),
      graceMs: grace,
      ...(a.shared ? { shared: true } : {}),
      detach: {
        name: a.name === undefined ? null : validateRunName(a.name),
        restart: parseRestart(a.restart),
        timeoutMs: a.timeout === undefined ? null : Math.max(1, parseDuration(a.timeout, "--timeout")),
        graceMs: grace,
        onExit,
        onExitTimeoutMs:
          a["on-exit-timeout"] === undefined
            ? ON_EXIT_TIMEOUT_MS
            : Math.max(1, parseDuration(a["on-exit-timeout"], "--on-exit-timeout")),
        interactive: a.interactive === true,
        ...(tty ?? {}),
        ...(notify ? { notify } : {}),
        ...(a["no-agent-reports"] ? { agentReports: false } : {}),
      },
    },
    { ...spawnIo(ctx), stderrTerminal: ctx.term.stderr },
  );
  if (r.kind === "started") return reportStarted(renderIo(ctx), a.json === true, r);
  printDetachPlan(renderIo(ctx), a.json === true, r.planned);
  printTasksLifecycle(renderIo(ctx), a.json === true, r.tasks);
  return dryRunExit(a, r.planned.length);
}

/** `--tty [--size COLSxROWS] [--agent NAME]`: the terminal's size and the run's preset, or null without --tty. */
function ttyOptions(a: RunContext<typeof args>["args"], argv: readonly string[]) {
  if (a.tty !== true) {
    if (a.size !== undefined) throw new ArielError("ERR_USAGE", "--size needs --tty");
    return null;
  }
  if (a.interactive) {
    throw new ArielError("ERR_USAGE", "--tty and --interactive are two kinds of input; choose one", {
      hint: "--tty gives the child a terminal (keys, screen); --interactive a stdin pipe",
    });
  }
  const size = a.size !== undefined ? parseTtySize(a.size) : (terminalSize() ?? DEFAULT_TTY_SIZE);
  const agent = presetFor(a.agent ?? null, argv).name;
  return { tty: size, agent };
}

/** What the host's spawn functions stream to and warn on. */
function spawnIo(ctx: RunContext<typeof args>) {
  return {
    out: ctx.out,
    stderr: ctx.stderr,
    log: ctx.log,
    abort: ctx.signal,
    stdinFree: !ctx.args.source.includes("-"),
    isolation: worktreeIsolation,
  };
}

/** Where the results are printed. */
function renderIo(ctx: RunContext<typeof args>): RenderIo {
  return { out: ctx.out, log: ctx.log, tty: ctx.term.stdout };
}

/**
 * `--backend`, else (with --detach) the workspace's config `backend`, else local; with the
 * workspace and config it resolved to decide, so a detached run does not resolve them again.
 */
async function chooseBackend(
  ctx: RunContext<typeof args>,
): Promise<{ backend: "local" | "k8s"; resolved?: DetachRequest["resolved"] }> {
  const a = ctx.args;
  if (a.backend !== undefined) {
    if (a.backend !== "local" && a.backend !== "k8s") {
      throw new ArielError("ERR_USAGE", `--backend must be local or k8s, got ${JSON.stringify(a.backend)}`);
    }
    if (!a.detach) throw new ArielError("ERR_USAGE", "--backend needs --detach");
    return { backend: a.backend };
  }
  if (!a.detach) return { backend: "local" };
  const ports = localPorts(ctx);
  const ws = await resolveWorkspaceRoot(ports, a["workspace-root"]);
  const config = await loadConfig(ports.fs, ws.root);
  return { backend: config.backend, resolved: { ws, config } };
}

/**
 * `--sandbox` is refused with `--backend k8s` (ERR_USAGE, 64), and so is config `sandbox`
 * unless `--no-sandbox`: the pod is the run's boundary, but its container holds the push
 * credentials, which reach every branch of the remote; ariel would not be keeping the promise
 * `--sandbox` makes (docs/kubernetes.md, Flags and config).
 */
async function noSandboxOnK8s(ctx: RunContext<typeof args>): Promise<void> {
  const a = ctx.args;
  const hint =
    "run sandboxed agents with the local backend; a k8s run's boundary is its pod (docs/kubernetes.md, Flags and config)";
  const given = {
    sandbox: a.sandbox === true,
    "sandbox-write": a["sandbox-write"].length > 0,
    "sandbox-net": a["sandbox-net"] !== undefined,
  };
  for (const [flag, on] of Object.entries(given)) {
    if (on) throw new ArielError("ERR_USAGE", `--${flag} is not available with --backend k8s`, { hint });
  }
  if (a["no-sandbox"]) return;
  const ports = localPorts(ctx);
  const ws = await resolveWorkspaceRoot(ports, a["workspace-root"]);
  const config = await loadConfig(ports.fs, ws.root);
  if (config.sandbox.enabled) {
    throw new ArielError("ERR_USAGE", `config "sandbox" is on, and a k8s run cannot be sandboxed`, {
      hint: `pass --no-sandbox to run it in its pod only, or drop --backend k8s (docs/kubernetes.md, Flags and config)`,
    });
  }
}

/** `--detach --backend k8s`: one Job per target (docs/kubernetes.md). */
async function k8s(ctx: RunContext<typeof args>, targets: TargetSpec[], graceMs: number): Promise<number> {
  const a = ctx.args;
  await noSandboxOnK8s(ctx);
  for (const name of NOT_WITH_K8S) {
    if (a[name] !== undefined)
      throw new ArielError("ERR_USAGE", `--${name} is not available with --backend k8s`);
  }
  for (const name of ["sparse", "share"] as const) {
    if (a[name].length > 0)
      throw new ArielError("ERR_USAGE", `--${name} is not available with --backend k8s`);
  }
  if (a.output !== undefined && a.output !== "yaml") {
    throw new ArielError("ERR_USAGE", `-o must be yaml, got ${JSON.stringify(a.output)}`);
  }
  if (a.output !== undefined && !a["dry-run"]) throw new ArielError("ERR_USAGE", "-o yaml needs --dry-run");
  if (a.output !== undefined && a.json)
    throw new ArielError("ERR_USAGE", "-o yaml and --json exclude each other");
  const settings: K8sSettings = {};
  for (const [flag, key] of Object.entries(K8S_FLAGS)) {
    const v = a[flag as keyof typeof K8S_FLAGS];
    if (key !== null && v !== undefined) settings[key] = v;
  }
  const r = await startK8s(
    hostPorts({ env: ctx.env, cwd: ctx.cwd }),
    {
      ...(a["workspace-root"] !== undefined ? { workspaceRoot: a["workspace-root"] } : {}),
      targets,
      argv: ctx.rest,
      dryRun: a["dry-run"] === true,
      ...(a.task !== undefined ? { taskId: validateTaskId(a.task) } : {}),
      ...(a.base !== undefined ? { base: a.base } : {}),
      ...(a.branch !== undefined ? { branch: a.branch } : {}),
      name: a.name === undefined ? null : validateRunName(a.name),
      restart: parseRestart(a.restart),
      timeoutMs: a.timeout === undefined ? null : Math.max(1, parseDuration(a.timeout, "--timeout")),
      graceMs: a.grace === undefined ? DETACHED_GRACE_MS : graceMs,
      settings,
    },
    spawnIo(ctx),
  );
  if (r.kind === "started") return reportK8sStarted(renderIo(ctx), a.json === true, r);
  printK8sPlan(renderIo(ctx), a.output === "yaml" ? "yaml" : a.json ? "json" : "table", r.planned);
  return dryRunExit(a, r.planned.length);
}

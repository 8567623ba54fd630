import {
  ArielError,
  compileGlobs,
  type DiscoverWarning,
  discoverSourcesSync,
  locateWorkspaceRoot,
  quoteValue,
  type SyncReadFs,
} from "@ariel/core";
import {
  type ArgsDef,
  defineCommand,
  nodeGit,
  noteWorkspace,
  preferBaselineJit,
  type RunContext,
  sourcesStatus,
  syncFs,
  syncReadFs,
  WORKSPACE_ROOT_ARG,
} from "@ariel/core/host";
import { type Row, renderJson, renderNul, renderText } from "./render.ts";

const args = {
  ...WORKSPACE_ROOT_ARG,
  json: { type: "boolean", description: "NDJSON source records on stdout" },
  null: { type: "boolean", alias: "0", description: "print NUL-terminated absolute paths (for xargs -0)" },
  "max-depth": {
    type: "string",
    valueHint: "N",
    description: "search N levels below the root (default 1: its direct children)",
  },
  nested: { type: "boolean", description: "also search inside sources for more sources" },
  exclude: {
    type: "string",
    multiple: true,
    valueHint: "GLOB",
    description: "skip directories matching GLOB (path or basename; repeatable)",
  },
  "follow-symlinks": {
    type: "boolean",
    description: "follow links to directories inside the root (deduplicated by realpath)",
  },
  status: { type: "boolean", description: "add dirty, ahead, behind, upstream and fingerprint (runs git)" },
} as const satisfies ArgsDef;

/** ariel-discover: list the workspace's sources (docs/discover.md). */
export const command = defineCommand({
  meta: {
    name: "ariel-discover",
    description: "list the git checkouts (sources) of a workspace",
    examples: [
      ["ariel-discover", "the sources under the current workspace, one per line"],
      ["ariel-discover --status --json | jq -r 'select(.dirty) | .name'", "the sources with local changes"],
      ["ariel-discover -0 | xargs -0 -I{} git -C {} fetch", "fetch in every source"],
      ["ariel-discover --max-depth 2 --exclude vendor", "look two levels deep, skipping vendor/"],
    ],
  },
  args,
  run,
});

/** Directory entries seen before a run counts as big (then TurboFan no longer pays, see jit.ts). */
const BIG_WORKSPACE = 100;

/** {@link syncReadFs}, switching to the baseline JIT once the listings pass {@link BIG_WORKSPACE}. */
function countingFs(): SyncReadFs {
  let entries = 0;
  return {
    ...syncReadFs,
    readDir(path) {
      const list = syncReadFs.readDir(path);
      entries += list.length;
      if (entries > BIG_WORKSPACE) preferBaselineJit();
      return list;
    },
  };
}

function maxDepthOf(value: string | undefined): number {
  if (value === undefined) return 1;
  if (!/^\d{1,6}$/.test(value)) {
    throw new ArielError("ERR_USAGE", `--max-depth must be an integer >= 0, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function excludesOf(globs: string[]): string[] {
  try {
    compileGlobs(globs);
  } catch (e) {
    throw new ArielError("ERR_USAGE", `--exclude: ${(e as Error).message}`);
  }
  return globs;
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const flags = ctx.args;
  const maxDepth = maxDepthOf(flags["max-depth"]);
  const exclude = excludesOf(flags.exclude);
  if (flags.json && flags.null) throw new ArielError("ERR_USAGE", "--json and -0/--null cannot be combined");
  const withStatus = flags.status === true;
  // Synchronous reads: this command has nothing else to do meanwhile, and they cost a quarter;
  // discoverSourcesSync also makes no promise per read (docs/benchmarks.md, ariel-discover).
  // Only what is needed is imported (not hostPorts), to keep node:crypto out of the start-up.
  const ports = { fs: syncFs, env: ctx.env, cwd: ctx.cwd };
  const located = await locateWorkspaceRoot(ports, flags["workspace-root"]);
  const root = located.root;
  noteWorkspace(ctx.log, located, ctx.term.stderr);
  const onWarning = (w: DiscoverWarning) => ctx.log.warn(w.code, w.message, { path: w.path });
  const sources = discoverSourcesSync(
    countingFs(),
    root,
    { maxDepth, nested: flags.nested === true, exclude, followSymlinks: flags["follow-symlinks"] === true },
    onWarning,
  );
  let rows: Row[] = sources;
  let failures = 0;
  if (withStatus) {
    const results = await sourcesStatus(
      nodeGit,
      sources.map((s) => s.path),
    );
    rows = sources.map((s, i) => {
      const r = results[i];
      if (r?.ok) return { ...s, ...r.status };
      if (r) {
        failures++;
        ctx.log.warn("WARN_STATUS_FAILED", r.error.message, { path: s.path });
      }
      return s;
    });
  }
  if (flags.json) ctx.out.write(renderJson(rows, withStatus));
  else if (flags.null) ctx.out.write(renderNul(rows));
  else if (rows.length > 0) ctx.out.write(renderText(rows, withStatus, ctx.term.stdout));
  else if (ctx.term.stdout) {
    // An empty result for a person says where it looked; a pipe gets nothing at all.
    ctx.log.info(`no sources found under ${quoteValue(root)} (max depth ${maxDepth})`);
  }
  return failures > 0 ? 1 : 0;
}

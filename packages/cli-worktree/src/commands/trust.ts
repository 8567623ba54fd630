import { ArielError, describeHook, HOOK_EVENTS, type HookTable, hooksDigest, isWithin } from "@ariel/core";
import {
  type ArgsDef,
  approveHooks,
  defineCommand,
  type RunContext,
  readTrust,
  repositoryHookSets,
  revokeHooks,
  type TrustEntry,
} from "@ariel/core/host";
import { COMMON_ARGS, dryRunExit, MUTATING_ARGS, printRows, workspaceOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  ...MUTATING_ARGS,
  source: {
    type: "string",
    multiple: true,
    valueHint: "NAME",
    description: "only this source's config (repeatable; default: every source of the workspace)",
  },
  list: { type: "boolean", description: "list the approvals (every workspace) and whether each still holds" },
  revoke: {
    type: "boolean",
    description: "withdraw approvals: of the named sources, else of every config file in the workspace",
  },
} as const satisfies ArgsDef;

/** `ariel-worktree trust`: approve the hooks a repository's committed ariel.config.json holds. */
export const trustCommand = defineCommand({
  meta: {
    name: "trust",
    description: "approve the hooks of a repository's committed ariel.config.json (by their sha256)",
    usage: "[--source NAME...] [--list | --revoke] [OPTIONS]",
    examples: [
      ["ariel-worktree trust --source api", "show api's repository hooks and approve exactly these"],
      ["ariel-worktree trust -n", "show what would be approved in the workspace, approve nothing"],
      ["ariel-worktree trust --list", "every approval, and whether the file still holds what was approved"],
      ["ariel-worktree trust --revoke --source api", "withdraw the approval of api's hooks"],
    ],
  },
  args,
  run,
});

type Ctx = RunContext<typeof args>;

/** One line per hook: `api post-create: npm ci`. */
function hookLines(source: string, hooks: HookTable): string[] {
  return HOOK_EVENTS.flatMap((e) =>
    hooks[e] === undefined ? [] : [`${source} ${e}: ${describeHook(hooks[e])}`],
  );
}

function trustRecord(action: string, e: { file: string; sha256: string; hooks: HookTable }, extra = {}) {
  return { v: 1, type: "trust", action, file: e.file, sha256: e.sha256, ...extra, hooks: e.hooks };
}

async function run(ctx: Ctx): Promise<number> {
  if (ctx.args.list && ctx.args.revoke)
    throw new ArielError("ERR_USAGE", "--list and --revoke exclude each other");
  const { ports, root } = await workspaceOf(ctx);
  if (ctx.args.list) return list(ctx, await readTrust(ports), ports);
  if (ctx.args.revoke) return revoke(ctx, ports, root);
  const dryRun = ctx.args["dry-run"] === true;
  const { found, without } = await repositoryHookSets(ports, root, ctx.args.source);
  const todo = found.filter((f) => !f.set.trusted);
  for (const f of found.filter((x) => x.set.trusted))
    ctx.log.info(`${f.source}: its hooks are trusted already (${f.set.file})`);
  if (ctx.args.source.length > 0) {
    for (const s of without)
      ctx.log.info(`${s}: nothing to trust (no ariel.config.json with hooks that git tracks)`);
  } else if (found.length === 0)
    ctx.log.info(`nothing to trust in ${root}: no source has a committed ariel.config.json with hooks`);
  for (const f of todo) {
    for (const line of hookLines(f.source, f.set.hooks))
      ctx.log.info(`${dryRun ? "would approve" : "approved"} ${line}`);
    const entry = { file: f.set.file, sha256: f.set.sha256, hooks: f.set.hooks };
    if (!dryRun) await approveHooks(ports, entry);
    if (ctx.args.json) ctx.out.record(trustRecord(dryRun ? "plan" : "approved", entry, { source: f.source }));
  }
  if (!ctx.args.json) {
    printRows(
      ctx,
      ["SOURCE", "ACTION", "SHA256", "FILE"],
      todo.map((f) => [f.source, dryRun ? "approve" : "approved", f.set.sha256.slice(0, 12), f.set.file]),
    );
  }
  return dryRun ? dryRunExit(ctx, todo.length) : 0;
}

/** `--list`: each approval with its state now: `trusted`, `changed` (re-approve), or `gone`. */
async function list(
  ctx: Ctx,
  entries: TrustEntry[],
  ports: Parameters<typeof readTrust>[0],
): Promise<number> {
  const rows: { e: TrustEntry; state: string }[] = [];
  for (const e of entries) {
    const text = await ports.fs.readText(e.file).catch(() => null);
    let state = "gone";
    if (text !== null) {
      let hooks: HookTable = {};
      try {
        hooks = (JSON.parse(text) as { hooks?: HookTable }).hooks ?? {};
      } catch {
        // unparsable now: it does not hold what was approved
      }
      state = (await hooksDigest(hooks)) === e.sha256 ? "trusted" : "changed";
    }
    rows.push({ e, state });
  }
  if (ctx.args.json)
    for (const r of rows)
      ctx.out.record(trustRecord("list", r.e, { state: r.state, trustedAt: r.e.trustedAt }));
  else {
    printRows(
      ctx,
      ["STATE", "TRUSTED-AT", "SHA256", "FILE"],
      rows.map((r) => [r.state, r.e.trustedAt, r.e.sha256.slice(0, 12), r.e.file]),
    );
    if (rows.length === 0 && ctx.term.stdout) ctx.log.info("no repository hooks are trusted on this machine");
  }
  return 0;
}

/** `--revoke`: the named sources' approvals, else every approval of a file in this workspace. */
async function revoke(
  ctx: Ctx,
  ports: Parameters<typeof approveHooks>[0] & Parameters<typeof repositoryHookSets>[0],
  root: string,
): Promise<number> {
  const entries = await readTrust(ports);
  const files =
    ctx.args.source.length > 0
      ? (await repositoryHookSets(ports, root, ctx.args.source)).found.map((f) => f.set.file)
      : entries.filter((e) => isWithin(root, e.file)).map((e) => e.file);
  const dryRun = ctx.args["dry-run"] === true;
  const gone = dryRun ? entries.filter((e) => files.includes(e.file)) : await revokeHooks(ports, files);
  if (ctx.args.json) for (const e of gone) ctx.out.record(trustRecord(dryRun ? "plan" : "revoked", e));
  else
    printRows(
      ctx,
      ["ACTION", "SHA256", "FILE"],
      gone.map((e) => [dryRun ? "revoke" : "revoked", e.sha256.slice(0, 12), e.file]),
    );
  if (gone.length === 0) ctx.log.info("no approval to revoke");
  return dryRun ? dryRunExit(ctx, gone.length) : 0;
}

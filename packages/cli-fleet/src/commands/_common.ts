import {
  type ArgsDef,
  JSON_ARG,
  type KnownWorkspaces,
  knownWorkspaces,
  type RunContext,
} from "@ariel/core/host";

/** Flags every ariel-fleet command takes; also accepted before the command's name. */
export const COMMON_ARGS = {
  workspace: {
    type: "string",
    multiple: true,
    valueHint: "DIR",
    description: "also show this workspace (repeatable); the registered ones are always shown",
  },
  ...JSON_ARG,
} as const satisfies ArgsDef;

type CommonContext = RunContext<typeof COMMON_ARGS>;

/** The fleet's workspaces for this command (registry + --workspace), read again on every call. */
export function workspacesOf(ctx: CommonContext): () => Promise<KnownWorkspaces> {
  const extra = [...ctx.args.workspace];
  return () => knownWorkspaces(ctx.env, ctx.cwd, extra);
}

/** An AbortSignal that fires on SIGINT/SIGTERM or when the command's own signal does. */
export function untilInterrupted(ctx: Pick<RunContext, "signal">): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const ac = new AbortController();
  const stop = () => ac.abort();
  ctx.signal.addEventListener("abort", stop, { once: true });
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      ctx.signal.removeEventListener("abort", stop);
    },
  };
}

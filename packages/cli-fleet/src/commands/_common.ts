import { ArielError } from "@ariel/core";
import { type FlagSpec, type KnownWorkspaces, knownWorkspaces, type RunContext } from "@ariel/core/host";

/** Flags every ariel-fleet command takes. */
export const COMMON_FLAGS: Record<string, FlagSpec> = {
  workspace: {
    type: "string",
    multiple: true,
    valueHint: "DIR",
    description: "also show this workspace (repeatable); the registered ones are always shown",
  },
  json: { type: "boolean", description: "NDJSON records on stdout (errors as NDJSON on stderr)" },
};

/** The repeatable --workspace values. */
export function workspaceFlags(ctx: RunContext): string[] {
  const v = ctx.flags.workspace;
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

/** The fleet's workspaces for this command (registry + --workspace), read again on every call. */
export function workspacesOf(ctx: RunContext): () => Promise<KnownWorkspaces> {
  const extra = workspaceFlags(ctx);
  return () => knownWorkspaces(ctx.env, ctx.cwd, extra);
}

/** No positionals are taken: a stray word is a usage error. */
export function noPositionals(ctx: RunContext): void {
  if (ctx.positionals.length > 0 || ctx.rest.length > 0) {
    throw new ArielError("ERR_USAGE", `unexpected argument '${[...ctx.positionals, ...ctx.rest][0]}'`);
  }
}

/** An AbortSignal that fires on SIGINT/SIGTERM or when the command's own signal does. */
export function untilInterrupted(ctx: RunContext): { signal: AbortSignal; dispose: () => void } {
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

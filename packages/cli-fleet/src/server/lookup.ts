import { ArielError, quoteValue, RUN_ID_PATTERN, WORKSPACE_HASH_PATTERN } from "@ariel/core";
import { type KnownWorkspace, type KnownWorkspaces, type LoadedRun, loadRun } from "@ariel/core/host";

/** A route parameter that tries to leave its place is a path escape (403), checked before any read. */
export function noEscape(value: string, what: string): void {
  if (/[/\\\0]|\.\./.test(value)) {
    throw new ArielError("ERR_PATH_ESCAPE", `${what} ${quoteValue(value)} is not a plain name`, {
      context: { [what]: value },
    });
  }
}

/** How the routes find what a request names: only among the fleet's workspaces. */
export interface Lookup {
  known(): Promise<KnownWorkspace[]>;
  /** The workspace with this hash (404 when it is not one of the fleet's). */
  workspaceOf(hash: string): Promise<KnownWorkspace>;
  /** The run with this id in any of the fleet's workspaces (404 when none has it). */
  runOf(id: string): Promise<{ ws: KnownWorkspace; run: LoadedRun }>;
}

export function lookup(workspaces: () => Promise<KnownWorkspaces>): Lookup {
  const known = async () => (await workspaces()).workspaces;
  return {
    known,
    async workspaceOf(hash) {
      noEscape(hash, "workspace");
      const ws = WORKSPACE_HASH_PATTERN.test(hash) ? (await known()).find((w) => w.hash === hash) : undefined;
      if (!ws) {
        throw new ArielError("ERR_WORKSPACE_NOT_FOUND", `no workspace ${quoteValue(hash)} in the fleet`, {
          hint: "GET /api/workspaces lists them",
          context: { workspace: hash },
        });
      }
      return ws;
    },
    async runOf(id) {
      noEscape(id, "run");
      if (RUN_ID_PATTERN.test(id)) {
        for (const ws of await known()) {
          if (!ws.exists) continue;
          const run = await loadRun(ws, id);
          if (run) return { ws, run };
        }
      }
      throw new ArielError("ERR_RUN_NOT_FOUND", `no run ${quoteValue(id)} in the fleet`, {
        context: { runId: id },
      });
    },
  };
}

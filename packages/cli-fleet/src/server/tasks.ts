import {
  ArielError,
  ERROR_CODES,
  type ErrorCode,
  LAND_STRATEGIES,
  type LandPlan,
  type LandStrategy,
} from "@ariel/core";
import {
  diffTask,
  hostPorts,
  type KnownWorkspace,
  type LandRecordOut,
  type LegDiff,
  landRecords,
  landTask,
} from "@ariel/core/host";
import { HttpRefusal } from "./http_error.ts";

/** One leg's outcome of a land, as `ariel-worktree land --json` prints it. */
export type LandRow = LandRecordOut;

/**
 * What the API asks of tasks: the very functions `ariel-worktree diff` and `land` call
 * (diffTask, landTask; a land never removes the task), with the request body checked.
 */
export interface TaskControl {
  diff(ws: KnownWorkspace, taskId: string): Promise<LegDiff[]>;
  land(ws: KnownWorkspace, taskId: string, body: Record<string, unknown>): Promise<LandRow[]>;
}

function bad(message: string): ArielError {
  return new ArielError("ERR_INVALID_INPUT", message, { hint: "see the API reference in docs/fleet.md" });
}

function landBody(body: Record<string, unknown>): { strategy: LandStrategy; into?: string } {
  const { strategy = "merge", into } = body;
  if (typeof strategy !== "string" || !(LAND_STRATEGIES as readonly string[]).includes(strategy)) {
    throw bad(`strategy must be one of: ${LAND_STRATEGIES.join(", ")}`);
  }
  if (into !== undefined && typeof into !== "string") throw bad("into must be a branch name");
  return { strategy: strategy as LandStrategy, ...(into !== undefined ? { into } : {}) };
}

/**
 * A refused land as the CLI's first error record (409: nothing was changed), with every refusal
 * of every leg in `refusals` (the CLI prints each as a record of its own): one answer says all.
 */
function refusal(plan: LandPlan): HttpRefusal {
  const all = plan.legs.flatMap((l) =>
    l.refusals.map((r) => ({
      source: l.source,
      reason: r.reason,
      code: r.code,
      message: r.message,
      hint: r.hint,
      ...(r.items ? { items: r.items } : {}),
    })),
  );
  const r = all[0];
  const code: ErrorCode = r?.code ?? "ERR_REFUSED";
  const error = new ArielError(code, r?.message ?? `task ${plan.task} cannot land`, {
    hint: `${r?.hint ?? ERROR_CODES[code].hint}; nothing was changed`,
    context: {
      task: plan.task,
      ...(r ? { source: r.source, reason: r.reason } : {}),
      ...(r?.items ? { items: r.items } : {}),
      refusals: all,
    },
  });
  return new HttpRefusal(409, error);
}

/** The TaskControl of the host: git run with the server's environment. */
export function taskControl(env: Readonly<Record<string, string | undefined>>): TaskControl {
  const ports = (ws: KnownWorkspace) => hostPorts({ env: env as NodeJS.ProcessEnv, cwd: ws.root });
  return {
    diff: (ws, taskId) => diffTask(ports(ws), { root: ws.root, taskId }),
    async land(ws, taskId, body) {
      const result = await landTask(ports(ws), { root: ws.root, taskId, ...landBody(body) });
      if (result.plan.refused) throw refusal(result.plan);
      return landRecords(result);
    },
  };
}

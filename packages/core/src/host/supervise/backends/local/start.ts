import { ArielError } from "../../../../errors.ts";
import type { StartRequest, StartResult } from "../../../../runs/backend.ts";
import { createRun } from "../../../runs/store.ts";
import { connectAndRequest, request } from "../../client.ts";

/** Start local runs: the workspace's monitor writes each `run.json` once its child exists. */
export async function startLocal(
  root: string,
  hash: string,
  specs: readonly StartRequest[],
): Promise<StartResult[]> {
  if (specs.length === 0) return [];
  const { sock, reply: first } = await connectAndRequest(root, hash, {
    v: 1,
    op: "create",
    runs: specs.map((s) => ({ runId: s.runId, env: s.env, record: s.record })),
  });
  let reply = first;
  try {
    if (!reply.ok && reply.message === "unknown op") {
      // A monitor of an older ariel (it lives on while it has runs): the CLI writes run.json.
      for (const s of specs) await createRun(root, s.record);
      reply = await request(sock, {
        v: 1,
        op: "start",
        runs: specs.map((s) => ({ runId: s.runId, env: s.env })),
      });
    }
    if (!reply.ok) throw new ArielError("ERR_MONITOR", `the run monitor refused: ${reply.message}`);
    return reply.results ?? ([] as StartResult[]);
  } finally {
    sock.destroy();
  }
}

import { promises as fsp } from "node:fs";
import { ArielError } from "../../../../errors.ts";
import type { RunBackend, StartResult } from "../../../../runs/backend.ts";
import { runPaths } from "../../../../runs/paths.ts";
import { newestFirst } from "../../../../runs/resolve.ts";
import { signalGroup } from "../../../runs/identity.ts";
import { readOutputAt } from "../../../runs/output.ts";
import { createRun, readEachRun } from "../../../runs/store.ts";
import { localGroupAlive, viewRun } from "../../../runs/view.ts";
import { connectMonitor, request } from "../../client.ts";

/**
 * The `local` backend: runs are children of the workspace's monitor on this machine; state is
 * derived from `run.json`, `exit.json` and the processes' identities; output is the files the
 * children write.
 */
export function localBackend(root: string, hash: string): RunBackend {
  return {
    name: "local",

    async start(specs) {
      if (specs.length === 0) return [];
      const sock = await connectMonitor(root, hash);
      try {
        let reply = await request(sock, {
          v: 1,
          op: "create",
          runs: specs.map((s) => ({ runId: s.runId, env: s.env, record: s.record })),
        });
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
    },

    async list() {
      const { runs, problems } = readEachRun(root, (runId) => viewRun(root, runId));
      runs.sort((a, b) => newestFirst(a.record, b.record));
      return { runs, problems };
    },

    async get(runId) {
      return viewRun(root, runId);
    },

    async readOutput(runId, stream, from, max) {
      return readOutputAt(runPaths(root, runId), stream, from, max);
    },

    async signal(view, signal) {
      const child = view.record.child;
      if (!child) return "gone";
      return signalGroup(child, view.record.monitor?.bootId ?? null, signal as NodeJS.Signals)
        ? "sent"
        : "gone";
    },

    async groupAlive(view) {
      return localGroupAlive(view);
    },

    async sendInput(runId, data) {
      const sock = await connectMonitor(root, hash);
      try {
        const reply = await request(sock, {
          v: 1,
          op: "input",
          runId,
          data: Buffer.from(data).toString("base64"),
        });
        if (!reply.ok) throw new ArielError("ERR_REFUSED", `cannot send input: ${reply.message}`);
      } finally {
        sock.destroy();
      }
    },

    async remove(runId) {
      const p = runPaths(root, runId);
      await fsp.rm(p.dir, { recursive: true, force: true });
      await fsp.rm(p.history, { force: true });
    },
  };
}

/** Bundle and run testdata/durable-worker.ts as real child processes (for *_test.ts files). */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export async function bundleWorker(): Promise<string> {
  const { build } = await import("esbuild");
  const dir = mkdtempSync(join(tmpdir(), "ariel-worker-"));
  const outfile = join(dir, "worker.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./durable-worker.ts", import.meta.url))],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    logLevel: "warning",
  });
  return outfile;
}

/** Remove a bundle made by {@link bundleWorker} (call in afterAll). */
export function removeWorker(worker: string): void {
  rmSync(dirname(worker), { recursive: true, force: true });
}

export interface WorkerRun {
  child: ChildProcess;
  /** Resolves with the first stdout line that parses as JSON and satisfies `pred`. */
  line(pred?: (o: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  done: Promise<{
    code: number | null;
    signal: string | null;
    lines: Record<string, unknown>[];
    stderr: string;
  }>;
}

export function runWorker(worker: string, action: string, args: Record<string, unknown>): WorkerRun {
  const child = spawn(process.execPath, [worker, action, JSON.stringify(args)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: {
    pred: (o: Record<string, unknown>) => boolean;
    resolve: (o: Record<string, unknown>) => void;
  }[] = [];
  let buf = "";
  let stderr = "";
  child.stdout?.on("data", (b: Buffer) => {
    buf += b.toString("utf8");
    let nl = buf.indexOf("\n");
    while (nl !== -1) {
      const o = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      buf = buf.slice(nl + 1);
      lines.push(o);
      for (const w of [...waiters]) {
        if (w.pred(o)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(o);
        }
      }
      nl = buf.indexOf("\n");
    }
  });
  child.stderr?.on("data", (b: Buffer) => {
    stderr += b.toString("utf8");
  });
  const done = new Promise<{
    code: number | null;
    signal: string | null;
    lines: Record<string, unknown>[];
    stderr: string;
  }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, lines, stderr })));
  return {
    child,
    done,
    line(pred = () => true) {
      const seen = lines.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ pred, resolve });
        done.then((d) => reject(new Error(`worker ended (${d.code}) before the line: ${d.stderr}`)));
      });
    },
  };
}

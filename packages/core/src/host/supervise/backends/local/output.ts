import type { OutputRead, OutputStream } from "../../../../runs/backend.ts";
import { runPaths } from "../../../../runs/paths.ts";
import { readOutputAt } from "../../../runs/output.ts";

/** Bytes of a local run's output file from `from` (the children write the files themselves). */
export function readLocalOutput(
  root: string,
  runId: string,
  stream: OutputStream,
  from: number,
  max: number,
): OutputRead {
  return readOutputAt(runPaths(root, runId), stream, from, max);
}

/**
 * What a sandboxed run's syncs kept aside instead of moving (docs/sandbox.md, The sync): read
 * from its history's `sandbox.synced` events, for `ariel-runs show`. A ref kept aside is the
 * run's work on a branch that moved outside meanwhile (a `--join`ed run ended first, say):
 * nothing is lost, but a person must merge it, so it is named where they look.
 */
import { readFileSync } from "node:fs";
import { runPaths } from "../../runs/paths.ts";

/** One ref a sync kept aside: the branch it was for, where it is kept, why, in which repository. */
export interface KeptRef {
  ref: string;
  as: string;
  why: string;
  common: string;
}

/** Every ref run `runId`'s syncs kept aside (stash entries left out: they are kept, not refused). */
export function readSandboxKept(root: string, runId: string): KeptRef[] {
  let text = "";
  try {
    text = readFileSync(runPaths(root, runId).history, "utf8");
  } catch {
    return [];
  }
  const out: KeptRef[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes('"sandbox.synced"')) continue;
    let e: { repos?: { common?: unknown; kept?: { ref?: unknown; as?: unknown; why?: unknown }[] }[] };
    try {
      e = JSON.parse(line);
    } catch {
      continue; // a torn last line
    }
    for (const r of e.repos ?? []) {
      for (const k of r.kept ?? []) {
        if (typeof k.ref !== "string" || typeof k.as !== "string" || typeof k.why !== "string") continue;
        if (k.why === "stash" || typeof r.common !== "string") continue;
        out.push({ ref: k.ref, as: k.as, why: k.why, common: r.common });
      }
    }
  }
  return out;
}

import { describe, expect, it } from "vitest";
import type { Artifact, Leg, TaskRecord } from "../schema/task.ts";
import { type ExportBundleEntry, importProblem } from "./handoff.ts";

const OID = "a".repeat(40);

function leg(source: string, over: Partial<Leg> = {}): Leg {
  return {
    source,
    sourcePath: `/w/${source}`,
    fingerprint: "f".repeat(64),
    branch: "ariel/t1",
    base: OID,
    head: OID,
    worktreePath: `/w/.ariel/worktrees/t1/${source}`,
    overlay: [],
    state: "active",
    ...over,
  };
}

function snapshot(source: string, over: Partial<Artifact> = {}): Artifact {
  return { kind: "snapshot", ref: `refs/ariel/snapshots/t1/${source}`, source, commit: OID, ...over };
}

function record(legs: Leg[], artifacts: Artifact[] = []): TaskRecord {
  return {
    v: 1,
    type: "task",
    taskId: "t1",
    workspace: { root: "/w", hash: "0".repeat(16) },
    owner: "o",
    state: "active",
    legs,
    artifacts,
    fencingToken: 1,
    version: 1,
    createdAt: "2026-06-10T00:00:00.000Z",
    updatedAt: "2026-06-10T00:00:00.000Z",
  };
}

function bundle(
  source: string,
  refs: unknown = ["refs/heads/ariel/t1", `refs/ariel/snapshots/t1/${source}`],
) {
  return { source, bytes: 10, refs };
}

const LEGS = [leg("api"), leg("web")];
const ARTIFACTS = [snapshot("api"), snapshot("web")];
const BUNDLES: ExportBundleEntry[] = [bundle("api"), bundle("web")];

describe("importProblem", () => {
  it("accepts a header whose legs, bundles and artifacts are the task's own", () => {
    expect(importProblem("t1", record(LEGS, ARTIFACTS), BUNDLES)).toBeNull();
  });

  it("accepts a bundle that carries only its leg's branch", () => {
    expect(importProblem("t1", record([leg("api")]), [bundle("api", ["refs/heads/ariel/t1"])])).toBeNull();
  });

  it("refuses a header of another task", () => {
    expect(importProblem("t2", record(LEGS, ARTIFACTS), BUNDLES)).toBe("its task is not the record's");
  });

  it.each<[string, Leg[], string]>([
    ["a bad branch", [leg("api"), leg("web", { branch: "-x" })], 'leg 1: branch starts with "-"'],
    [
      "an empty segment",
      [leg("api", { worktreePath: "/w//api" })],
      "leg 0: worktreePath is not a clean absolute path",
    ],
    [
      "a trailing slash",
      [leg("api", { worktreePath: "/w/api/" })],
      "leg 0: worktreePath is not a clean absolute path",
    ],
    [
      "a . segment",
      [leg("api", { worktreePath: "/w/./api" })],
      "leg 0: worktreePath is not a clean absolute path",
    ],
    [
      "a .. segment",
      [leg("api", { sourcePath: "/w/../api" })],
      "leg 0: sourcePath is not a clean absolute path",
    ],
    ["a source twice", [leg("api"), leg("api")], "leg 1: its source is twice"],
  ])("refuses a leg with %s", (_, legs, why) => {
    expect(importProblem("t1", record(legs), [bundle("api"), bundle("api")])).toBe(why);
  });

  it("accepts segments that only contain dots", () => {
    const legs = [leg("a..b", { sourcePath: "/w/.x/a..b", worktreePath: "/w/.ariel/worktrees/t1/..." })];
    expect(importProblem("t1", record(legs), [bundle("a..b", ["refs/heads/ariel/t1"])])).toBeNull();
  });

  it.each<[string, unknown, string]>([
    ["missing", undefined, "bundle 1: not an object"],
    ["null", null, "bundle 1: not an object"],
    ["a string", "web", "bundle 1: not an object"],
    ["of another source", bundle("api"), "bundle 1: its source is not leg 1's"],
    ["without a list of refs", bundle("web", "refs/heads/ariel/t1"), "bundle 1: refs is not a list"],
    [
      "with a ref that is not a string",
      bundle("web", ["refs/heads/ariel/t1", 7]),
      "bundle 1: a ref is not a string",
    ],
    [
      "with another branch",
      bundle("web", ["refs/heads/ariel/t1", "refs/heads/main"]),
      'bundle 1: ref "refs/heads/main" is not under refs/ariel/snapshots/t1/',
    ],
    [
      "with another task's snapshot",
      bundle("web", ["refs/ariel/snapshots/t2/web"]),
      'bundle 1: ref "refs/ariel/snapshots/t2/web" is not under refs/ariel/snapshots/t1/',
    ],
  ])("refuses a bundle %s", (_, entry, why) => {
    const bundles = [BUNDLES[0]!, entry] as ExportBundleEntry[];
    expect(importProblem("t1", record(LEGS), bundles)).toBe(why);
  });

  it.each<[string, Artifact, string]>([
    ["not a snapshot", snapshot("web", { kind: "patch" }), 'artifact 1: kind "patch" is not "snapshot"'],
    [
      "of another task",
      snapshot("web", { ref: "refs/ariel/snapshots/t2/web" }),
      'artifact 1: ref "refs/ariel/snapshots/t2/web" is not under refs/ariel/snapshots/t1/',
    ],
    ["without a commit", snapshot("web", { commit: undefined }), "artifact 1: no commit"],
    ["of no leg", snapshot("web", { source: "db" }), "artifact 1: its source is no leg's"],
    [
      "missing from its leg's bundle",
      snapshot("web", { ref: "refs/ariel/snapshots/t1/other" }),
      "artifact 1: refs/ariel/snapshots/t1/other is not in its bundle",
    ],
    [
      "in another leg's bundle only",
      snapshot("api", { source: "web" }),
      "artifact 1: refs/ariel/snapshots/t1/api is not in its bundle",
    ],
  ])("refuses an artifact %s", (_, artifact, why) => {
    expect(importProblem("t1", record(LEGS, [ARTIFACTS[0]!, artifact]), BUNDLES)).toBe(why);
  });

  it("checks the legs before the artifacts", () => {
    const r = record([leg("api", { branch: "-x" })], [snapshot("api", { kind: "patch" })]);
    expect(importProblem("t1", r, [bundle("api")])).toBe('leg 0: branch starts with "-"');
  });
});

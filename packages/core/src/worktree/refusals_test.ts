import { describe, expect, it } from "vitest";
import { type LegFacts, legRefusals, parseAllow, standingRefusals } from "./refusals.ts";

const clean: LegFacts = {
  source: "api",
  worktreePath: "/w/.ariel/worktrees/t/api",
  present: true,
  main: false,
  owned: true,
  lock: "ariel:t",
  checkedOut: "refs/heads/ariel/t",
  recordedBranch: "ariel/t",
  dirty: [],
  overlayChanged: [],
  skipWorktreeModified: [],
  unreachable: [],
};

describe("legRefusals", () => {
  it("finds nothing on a clean leg of ours", () => {
    expect(legRefusals("t", clean)).toEqual([]);
  });

  it.each([
    ["main-worktree", "ERR_MAIN_WORKTREE", { main: true }],
    ["not-ours", "ERR_NOT_OURS", { owned: false }],
    ["foreign-lock", "ERR_FOREIGN_LOCK", { lock: "held by ci" }],
    ["branch-mismatch", "ERR_BRANCH_MISMATCH", { checkedOut: "refs/heads/main" }],
    ["branch-mismatch", "ERR_BRANCH_MISMATCH", { checkedOut: null }],
    ["dirty", "ERR_DIRTY", { dirty: ["a.txt"] }],
    ["overlay-changed", "ERR_OVERLAY_CHANGED", { overlayChanged: [".env"] }],
    ["skip-worktree", "ERR_SKIP_WORKTREE_MODIFIED", { skipWorktreeModified: ["cfg"] }],
    ["unreachable", "ERR_UNREACHABLE_COMMITS", { unreachable: ["c".repeat(40)] }],
  ] as const)("%s → %s", (reason, code, over) => {
    expect(legRefusals("t", { ...clean, ...over })).toEqual([expect.objectContaining({ reason, code })]);
  });

  it("an unlocked worktree of ours is fine", () => {
    expect(legRefusals("t", { ...clean, lock: null })).toEqual([]);
  });

  it("main worktree stops every other check", () => {
    expect(legRefusals("t", { ...clean, main: true, dirty: ["x"] }).map((r) => r.reason)).toEqual([
      "main-worktree",
    ]);
  });
});

describe("standingRefusals", () => {
  const all = legRefusals("t", {
    ...clean,
    lock: "other",
    dirty: ["x"],
    overlayChanged: [".env"],
    skipWorktreeModified: ["s"],
    unreachable: ["c".repeat(40)],
  });
  it("--snapshot covers lost work but not a foreign lock", () => {
    expect(standingRefusals(all, new Set(), true).map((r) => r.reason)).toEqual(["foreign-lock"]);
  });
  it("--allow drops only the named refusal", () => {
    expect(standingRefusals(all, new Set(["dirty", "foreign-lock"]), false).map((r) => r.reason)).toEqual([
      "overlay-changed",
      "skip-worktree",
      "unreachable",
    ]);
  });
});

describe("parseAllow", () => {
  it("accepts repeats and commas", () => {
    expect([...parseAllow(["dirty,unreachable", "foreign-lock"])]).toEqual([
      "dirty",
      "unreachable",
      "foreign-lock",
    ]);
  });
  it.each(["main-worktree", "not-ours", "everything"])("rejects %s as a usage error", (v) => {
    expect(() => parseAllow([v])).toThrow(expect.objectContaining({ code: "ERR_USAGE", exit: 64 }));
  });
});

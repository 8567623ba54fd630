import { describe, expect, it } from "vitest";
import { cleanLegFacts } from "./_fixture.ts";
import { type LegFacts, legRefusals, parseAllow, standingRefusals } from "./refusals.ts";

const clean: LegFacts = cleanLegFacts("api");

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
    ["branch-missing", "ERR_BRANCH_MISSING", { branchMissing: true }],
    ["reflog", "ERR_REFLOG_COMMITS", { reflogOnly: ["c".repeat(40)] }],
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

/** A leg with every refusal but the two that stop all other checks (main, not ours). */
const everything: LegFacts = {
  ...clean,
  lock: "bob",
  checkedOut: null,
  dirty: ["d"],
  overlayChanged: ["o"],
  skipWorktreeModified: ["s"],
  unreachable: ["u"],
  reflogOnly: ["r"],
  submoduleCommits: ["m@c"],
};

describe("legRefusals: exact refusals", () => {
  const P = clean.worktreePath;
  const many = (n: number, prefix = "f") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  it.each<[string, Partial<LegFacts>, unknown[]]>([
    [
      "main worktree",
      { main: true },
      [{ reason: "main-worktree", code: "ERR_MAIN_WORKTREE", message: `${P} is the main worktree of api` }],
    ],
    [
      "not ours",
      { owned: false },
      [
        {
          reason: "not-ours",
          code: "ERR_NOT_OURS",
          message: `${P} is not a worktree ariel made for task "t"`,
        },
      ],
    ],
    [
      "not ours stops the other checks",
      { owned: false, dirty: ["x"], lock: "bob" },
      [
        {
          reason: "not-ours",
          code: "ERR_NOT_OURS",
          message: `${P} is not a worktree ariel made for task "t"`,
        },
      ],
    ],
    // The lock of another ariel task is as foreign as anybody's.
    [
      "locked for another ariel task",
      { lock: "ariel:other" },
      [
        {
          reason: "foreign-lock",
          code: "ERR_FOREIGN_LOCK",
          message: `${P} is locked by someone else (ariel:other)`,
        },
      ],
    ],
    [
      "locked for a task whose id extends ours",
      { lock: "ariel:t2" },
      [
        {
          reason: "foreign-lock",
          code: "ERR_FOREIGN_LOCK",
          message: `${P} is locked by someone else (ariel:t2)`,
        },
      ],
    ],
    [
      "locked without a reason",
      { lock: "" },
      [
        {
          reason: "foreign-lock",
          code: "ERR_FOREIGN_LOCK",
          message: `${P} is locked by someone else (no reason given)`,
        },
      ],
    ],
    [
      "another branch",
      { checkedOut: "refs/heads/main" },
      [
        {
          reason: "branch-mismatch",
          code: "ERR_BRANCH_MISMATCH",
          message: `${P} has main checked out, not ariel/t`,
        },
      ],
    ],
    [
      "a branch whose name merely ends like ours",
      { checkedOut: "refs/heads/x/ariel/t" },
      [
        {
          reason: "branch-mismatch",
          code: "ERR_BRANCH_MISMATCH",
          message: `${P} has x/ariel/t checked out, not ariel/t`,
        },
      ],
    ],
    [
      "a ref outside refs/heads keeps its full name",
      { checkedOut: "refs/remotes/o/ariel/t" },
      [
        {
          reason: "branch-mismatch",
          code: "ERR_BRANCH_MISMATCH",
          message: `${P} has refs/remotes/o/ariel/t checked out, not ariel/t`,
        },
      ],
    ],
    [
      "detached",
      { checkedOut: null },
      [
        {
          reason: "branch-mismatch",
          code: "ERR_BRANCH_MISMATCH",
          message: `${P} has a detached HEAD checked out, not ariel/t`,
        },
      ],
    ],
    [
      "three dirty files are all named",
      { dirty: ["a", "b", "c"] },
      [
        {
          reason: "dirty",
          code: "ERR_DIRTY",
          message: `${P} has uncommitted changes: a, b, c`,
          items: ["a", "b", "c"],
        },
      ],
    ],
    [
      "more than three dirty files are counted",
      { dirty: ["a", "b", "c", "d", "e"] },
      [
        {
          reason: "dirty",
          code: "ERR_DIRTY",
          message: `${P} has uncommitted changes: a, b, c and 2 more`,
          items: ["a", "b", "c", "d", "e"],
        },
      ],
    ],
    [
      "items stop after ten",
      { dirty: many(12) },
      [
        {
          reason: "dirty",
          code: "ERR_DIRTY",
          message: `${P} has uncommitted changes: f0, f1, f2 and 9 more`,
          items: many(10),
        },
      ],
    ],
    [
      "overlay changed",
      { overlayChanged: [".env"] },
      [
        {
          reason: "overlay-changed",
          code: "ERR_OVERLAY_CHANGED",
          message: `overlay files changed in ${P}: .env`,
          items: [".env"],
        },
      ],
    ],
    [
      "skip-worktree",
      { skipWorktreeModified: ["cfg", "b"] },
      [
        {
          reason: "skip-worktree",
          code: "ERR_SKIP_WORKTREE_MODIFIED",
          message: `skip-worktree/assume-unchanged files modified in ${P}: cfg, b`,
          items: ["cfg", "b"],
        },
      ],
    ],
    [
      "unreachable",
      { unreachable: ["c1", "c2"] },
      [
        {
          reason: "unreachable",
          code: "ERR_UNREACHABLE_COMMITS",
          message: `HEAD of ${P} holds 2 commit(s) reachable from no ref`,
          items: ["c1", "c2"],
        },
      ],
    ],
    [
      "submodule commits",
      { submoduleCommits: ["lib@c1"] },
      [
        {
          reason: "submodule-commits",
          code: "ERR_SUBMODULE_COMMITS",
          message: `submodules of ${P} hold 1 commit(s) that exist only there: lib@c1`,
          items: ["lib@c1"],
        },
      ],
    ],
    ["no submodule commits", { submoduleCommits: [] }, []],
    [
      "work in nested repositories",
      { nestedWork: ["vendor/lib/b.txt", "vendor/lib@c1", "lib/x", "tools"] },
      [
        {
          reason: "nested-work",
          code: "ERR_NESTED_WORK",
          message: `git repositories nested in ${P} hold work that exists only there: vendor/lib/b.txt, vendor/lib@c1, lib/x and 1 more`,
          items: ["vendor/lib/b.txt", "vendor/lib@c1", "lib/x", "tools"],
        },
      ],
    ],
    ["no nested work", { nestedWork: [] }, []],
    [
      "commits only in HEAD's reflog: short ids in the message, full ones in items",
      { reflogOnly: ["a".repeat(40), "b".repeat(40), "c".repeat(40), "d".repeat(40)] },
      [
        {
          reason: "reflog",
          code: "ERR_REFLOG_COMMITS",
          message: `HEAD's reflog or per-worktree refs of ${P} hold 4 commit(s) no other ref and not HEAD reaches (left by a detached HEAD, a reset, a rebase, a bisect or a deleted branch): ${"a".repeat(12)}, ${"b".repeat(12)}, ${"c".repeat(12)} and 1 more`,
          items: ["a".repeat(40), "b".repeat(40), "c".repeat(40), "d".repeat(40)],
        },
      ],
    ],
    ["no reflog-only commits", { reflogOnly: [] }, []],
    [
      "the checked-out branch was deleted",
      { branchMissing: true },
      [
        {
          reason: "branch-missing",
          code: "ERR_BRANCH_MISSING",
          message: `${P} has branch ariel/t checked out, which no longer exists`,
        },
      ],
    ],
    // Detached: nothing is checked out that could be missing.
    [
      "branchMissing on a detached HEAD is only a mismatch",
      { branchMissing: true, checkedOut: null },
      [expect.objectContaining({ reason: "branch-mismatch" })],
    ],
  ])("%s", (_name, over, expected) => {
    expect(legRefusals("t", { ...clean, ...over })).toEqual(expected);
  });

  it("reports every refusal of a leg in a fixed order", () => {
    const all = legRefusals("t", everything);
    expect(all.map((r) => r.reason)).toEqual([
      "foreign-lock",
      "branch-mismatch",
      "dirty",
      "overlay-changed",
      "skip-worktree",
      "unreachable",
      "reflog",
      "submodule-commits",
    ]);
    // Refusals without a list carry no `items` key at all.
    expect(all.slice(0, 2).map((r) => "items" in r)).toEqual([false, false]);
  });
});

describe("standingRefusals: what --snapshot and --allow leave", () => {
  const all = legRefusals("t", everything);
  it.each<[string, string[], boolean, string[]]>([
    [
      "nothing given",
      [],
      false,
      [
        "foreign-lock",
        "branch-mismatch",
        "dirty",
        "overlay-changed",
        "skip-worktree",
        "unreachable",
        "reflog",
        "submodule-commits",
      ],
    ],
    // A snapshot keeps a submodule only as a commit id, so it cannot stand in for its commits.
    ["--snapshot", [], true, ["foreign-lock", "branch-mismatch", "submodule-commits"]],
    // --allow dirty alone never drops what only HEAD's reflog holds.
    [
      "--allow dirty",
      ["dirty"],
      false,
      [
        "foreign-lock",
        "branch-mismatch",
        "overlay-changed",
        "skip-worktree",
        "unreachable",
        "reflog",
        "submodule-commits",
      ],
    ],
    [
      "--snapshot --allow submodule-commits",
      ["submodule-commits"],
      true,
      ["foreign-lock", "branch-mismatch"],
    ],
    [
      "--allow branch-mismatch,unreachable",
      ["branch-mismatch", "unreachable"],
      false,
      ["foreign-lock", "dirty", "overlay-changed", "skip-worktree", "reflog", "submodule-commits"],
    ],
  ])("%s", (_name, allow, snapshot, expected) => {
    expect(standingRefusals(all, new Set(allow as never[]), snapshot).map((r) => r.reason)).toEqual(expected);
  });
});

describe("parseAllow: exact answers", () => {
  it.each<[string[], string[]]>([
    [[], []],
    [[" dirty , ,unreachable "], ["dirty", "unreachable"]],
    [[","], []],
    [["dirty", "dirty"], ["dirty"]],
    [
      ["submodule-commits,skip-worktree,overlay-changed,branch-mismatch"],
      ["submodule-commits", "skip-worktree", "overlay-changed", "branch-mismatch"],
    ],
  ])("%j → %j", (values, expected) => {
    expect([...parseAllow(values)]).toEqual(expected);
  });

  it.each([
    [
      "everything",
      'unknown --allow reason "everything"',
      "use one of: foreign-lock, branch-mismatch, branch-missing, dirty, overlay-changed, skip-worktree, unreachable, reflog, submodule-commits, nested-work",
    ],
    [
      "main-worktree",
      "--allow main-worktree is not possible: that refusal is never overridden",
      "a main worktree is never removed",
    ],
    [
      "not-ours",
      "--allow not-ours is not possible: that refusal is never overridden",
      "ariel only removes its own worktrees",
    ],
    // Names are looked up as own keys only, never through the prototype.
    ["toString", 'unknown --allow reason "toString"', expect.stringMatching(/^use one of: /)],
  ])("%s: message and hint", (value, message, hint) => {
    expect(() => parseAllow(["dirty", value])).toThrow(
      expect.objectContaining({ code: "ERR_USAGE", message, hint }),
    );
  });
});

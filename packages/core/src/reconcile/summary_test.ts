import { describe, expect, it } from "vitest";
import { reconcileKeptSummary } from "./summary.ts";

describe("reconcileKeptSummary", () => {
  it("is null when nothing was kept", () => {
    expect(reconcileKeptSummary([])).toBeNull();
  });

  it("names each kept thing by path, branch or task, with its code", () => {
    expect(
      reconcileKeptSummary([
        { code: "W_KEPT_WORK", message: "m", task: "t1", path: "/w/.ariel/worktrees/t1/api" },
        { code: "W_KEPT_BRANCH", message: "m", task: "t2", branch: "ariel/t2" },
        { code: "W_RECORD_UNREADABLE", message: "m", task: "t3" },
      ]),
    ).toBe(
      "kept 3 for you to look at: /w/.ariel/worktrees/t1/api (W_KEPT_WORK), ariel/t2 (W_KEPT_BRANCH), t3 (W_RECORD_UNREADABLE); each warning above says why",
    );
  });
});

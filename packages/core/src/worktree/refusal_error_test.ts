import { describe, expect, it } from "vitest";
import { refusalError } from "./refusal_error.ts";

describe("refusalError", () => {
  it("the code's hint, then that nothing was changed; the context kept", () => {
    const e = refusalError("ERR_DIRTY", "api has uncommitted changes", { task: "t1", source: "api" });
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_DIRTY",
      3,
      "api has uncommitted changes",
      "commit or stash the changes, pass --snapshot, or --allow dirty; nothing was changed",
      { task: "t1", source: "api" },
    ]);
  });

  it("a missing worktree's hint names the task's restore; an unknown code is ERR_REFUSED", () => {
    expect(refusalError("ERR_WORKTREE_MISSING", "gone", { task: "t9" }).hint).toBe(
      "run ariel-worktree restore --task t9 to bring it back, or ariel-worktree reconcile; nothing was changed",
    );
    const e = refusalError("ERR_NO_SUCH_THING", "no", { task: "t1" });
    expect([e.code, e.hint]).toEqual(["ERR_REFUSED", "nothing was changed"]);
    expect(refusalError("ERR_REFUSED", "no", { task: "t1" }, ["api"]).hint).toBe(
      "api was removed before it, nothing else was changed",
    );
  });

  it("the legs removed before the refusal are named in the hint, one or more", () => {
    const hint = (removed: string[]) => refusalError("ERR_DIRTY", "m", { task: "t1" }, removed).hint;
    expect(hint(["api"])).toBe(
      "commit or stash the changes, pass --snapshot, or --allow dirty; api was removed before it, nothing else was changed",
    );
    expect(hint(["api", "web"])).toBe(
      "commit or stash the changes, pass --snapshot, or --allow dirty; api, web were removed before it, nothing else was changed",
    );
  });
});

import { describe, expect, it } from "vitest";
import { type AdoptFacts, planAdopt } from "./plan_adopt.ts";

/** A worktree that can be adopted: inside the root, of source api, unlocked, on branch spike. */
function facts(overrides: Partial<AdoptFacts> = {}): AdoptFacts {
  return {
    path: "/w/api/.worktrees/spike",
    insideRoot: true,
    topLevel: true,
    source: { name: "api", path: "/w/api" },
    main: false,
    lock: null,
    branch: "spike",
    inTask: null,
    legExists: false,
    ...overrides,
  };
}

describe("planAdopt", () => {
  it("adopts a worktree of a source, on its branch", () => {
    expect(planAdopt(facts(), "t1")).toEqual({
      ok: true,
      source: { name: "api", path: "/w/api" },
      branch: "spike",
    });
  });

  it.each<[string, Partial<AdoptFacts>, string, string]>([
    ["outside the root", { insideRoot: false, main: true }, "outside-root", "ERR_PATH_ESCAPE"],
    ["not a worktree's top", { topLevel: false }, "not-a-worktree", "ERR_NOINPUT"],
    ["of no source's repository", { source: null }, "foreign-repo", "ERR_FOREIGN_REPO"],
    ["a main worktree", { main: true, inTask: "t0" }, "main-worktree", "ERR_MAIN_WORKTREE"],
    ["already in a task", { inTask: "t0", lock: "ariel:t0" }, "in-task", "ERR_IN_TASK"],
    ["locked by someone else", { lock: "other tool" }, "foreign-lock", "ERR_FOREIGN_LOCK"],
    ["locked without a reason", { lock: "" }, "foreign-lock", "ERR_FOREIGN_LOCK"],
    ["detached", { branch: null }, "detached", "ERR_REFUSED"],
    ["a second leg of one source", { legExists: true }, "leg-exists", "ERR_TASK_CONFLICT"],
  ])("refuses a worktree %s (the first refusal in order)", (_name, over, reason, code) => {
    expect(planAdopt(facts(over), "t1")).toMatchObject({ ok: false, reason, code });
  });
});

import { describe, expect, it } from "vitest";
import { parkedRef, planRefSync, type RefSyncInput } from "./ref_sync.ts";
import { planStateSync, reflogTail } from "./state_sync.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const D = "d".repeat(40);
const TASK = "refs/heads/ariel/t";

function input(over: Partial<RefSyncInput>): RefSyncInput {
  return {
    runId: "R",
    own: [TASK],
    start: new Map([
      [TASK, A],
      ["refs/heads/main", A],
      ["refs/tags/v1", A],
    ]),
    synced: new Map(),
    now: new Map([
      [TASK, A],
      ["refs/heads/main", A],
      ["refs/tags/v1", A],
    ]),
    real: new Map([
      [TASK, A],
      ["refs/heads/main", A],
      ["refs/tags/v1", A],
    ]),
    stash: [],
    ...over,
  };
}

const with_ = (base: ReadonlyMap<string, string>, ref: string, oid: string | null) => {
  const m = new Map(base);
  if (oid === null) m.delete(ref);
  else m.set(ref, oid);
  return m;
};

describe("planRefSync", () => {
  const i = input({});
  it.each<[string, Partial<RefSyncInput>, unknown[]]>([
    ["nothing changed: nothing to do", {}, []],
    [
      "the task's branch moved: home by compare-and-swap",
      { now: with_(i.now, TASK, B) },
      [{ op: "update", ref: TASK, to: B, from: A }],
    ],
    [
      "already home (an interrupted sync moved it): its new base",
      { now: with_(i.now, TASK, B), real: with_(i.real, TASK, B) },
      [{ op: "home", ref: TASK, to: B }],
    ],
    [
      "moved outside meanwhile: kept aside, the real ref stays",
      { now: with_(i.now, TASK, B), real: with_(i.real, TASK, C) },
      [{ op: "park", ref: TASK, to: B, as: "refs/ariel/sandbox/R/heads/ariel/t", why: "moved-outside" }],
    ],
    [
      "a synced base: the next move is compared with it",
      { synced: new Map([[TASK, B]]), now: with_(i.now, TASK, C), real: with_(i.real, TASK, B) },
      [{ op: "update", ref: TASK, to: C, from: B }],
    ],
    [
      "a new branch: created, it must not exist",
      { now: with_(i.now, "refs/heads/feature", B) },
      [{ op: "update", ref: "refs/heads/feature", to: B, from: null }],
    ],
    [
      "a new branch someone made outside meanwhile: kept aside",
      { now: with_(i.now, "refs/heads/feature", B), real: with_(i.real, "refs/heads/feature", C) },
      [
        {
          op: "park",
          ref: "refs/heads/feature",
          to: B,
          as: "refs/ariel/sandbox/R/heads/feature",
          why: "moved-outside",
        },
      ],
    ],
    [
      "main moved inside (the hook bypassed): kept aside, main stays",
      { now: with_(i.now, "refs/heads/main", B) },
      [
        {
          op: "park",
          ref: "refs/heads/main",
          to: B,
          as: "refs/ariel/sandbox/R/heads/main",
          why: "not-the-task's",
        },
      ],
    ],
    [
      "a new tag: kept aside",
      { now: with_(i.now, "refs/tags/v2", B) },
      [{ op: "park", ref: "refs/tags/v2", to: B, as: "refs/ariel/sandbox/R/tags/v2", why: "not-the-task's" }],
    ],
    ["a tag deleted inside: nothing moves", { now: with_(i.now, "refs/tags/v1", null) }, []],
    [
      "the task's branch deleted inside: kept, said",
      { now: with_(i.now, TASK, null) },
      [{ op: "kept", ref: TASK, why: "deleted-inside" }],
    ],
    [
      "remote-tracking refs and ariel's parking refs are left alone",
      {
        now: with_(with_(i.now, "refs/remotes/origin/main", B), "refs/ariel/sandbox/X/heads/main", C),
      },
      [],
    ],
    ["per-worktree refs are left alone", { now: with_(i.now, "refs/bisect/bad", B) }, []],
    [
      "stash entries are kept by commit",
      { stash: [B, C] },
      [
        { op: "park", ref: `refs/stash/${B}`, to: B, as: `refs/ariel/sandbox/R/stash/${B}`, why: "stash" },
        { op: "park", ref: `refs/stash/${C}`, to: C, as: `refs/ariel/sandbox/R/stash/${C}`, why: "stash" },
      ],
    ],
    [
      "a parked ref already there is not parked again",
      {
        now: with_(i.now, "refs/heads/main", B),
        real: with_(i.real, "refs/ariel/sandbox/R/heads/main", B),
      },
      [],
    ],
  ])("%s", (_name, over, steps) => {
    expect(planRefSync(input(over))).toEqual(steps);
  });

  it("goes through refs in order, so a replay plans the same", () => {
    const over = { now: with_(with_(i.now, "refs/heads/z", D), "refs/heads/b", B) };
    expect(planRefSync(input(over)).map((s) => s.ref)).toEqual(["refs/heads/b", "refs/heads/z"]);
  });

  it("names parked refs under the run", () => {
    expect([parkedRef("R", "refs/heads/main"), parkedRef("R", "HEAD")]).toEqual([
      "refs/ariel/sandbox/R/heads/main",
      "refs/ariel/sandbox/R/HEAD",
    ]);
  });
});

describe("planStateSync", () => {
  it.each([
    ["unchanged in the sandbox: nothing", { start: "s", sandbox: "s", real: "x" }, []],
    ["changed inside, real unchanged: applied", { start: "s", sandbox: "n", real: "s" }, ["apply"]],
    [
      "removed inside, real unchanged: applied (removed)",
      { start: "s", sandbox: null, real: "s" },
      ["apply"],
    ],
    ["made inside, real still absent: applied", { start: null, sandbox: "n", real: null }, ["apply"]],
    ["both changed alike: nothing", { start: "s", sandbox: "n", real: "n" }, []],
    ["both changed: conflict", { start: "s", sandbox: "n", real: "o" }, ["conflict"]],
    [
      "index: only its cached stats changed outside: applied",
      { start: "s", sandbox: "n", real: "o", sameStaged: true },
      ["apply"],
    ],
  ])("%s", (_name, f, ops) => {
    expect(planStateSync([{ name: "index", ...f }]).map((s) => s.op)).toEqual(ops);
  });
});

describe("reflogTail", () => {
  const line = (from: string, to: string, msg: string) =>
    `${from.repeat(40)} ${to.repeat(40)} Ariel Test <ariel@example.invalid> 1767225600 +0000\tcommit: ${msg}\n`;
  const a = line("0", "a", "one");
  const b = line("a", "b", "two");
  const c = line("a", "c", "three");
  it.each([
    ["the sandbox's new lines", a, a + b, a, b],
    ["already appended", a, a + b, a + b, null],
    ["nothing new", a, a, a + c, null],
    ["the real one was rewritten: nothing", a, a + b, c, null],
    ["lines added on both sides: the sandbox's after the real ones", a, a + b, a + c, b],
    ["a line no reflog holds: nothing", a, `${a}not a reflog line\n`, a, null],
    ["a last line without its newline: nothing", a, a + b.trimEnd(), a, null],
  ])("%s", (_name, start, sandbox, real, tail) => {
    expect(reflogTail(start, sandbox, real)).toBe(tail);
  });
});

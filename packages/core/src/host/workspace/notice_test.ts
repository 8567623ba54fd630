import { describe, expect, it } from "vitest";
import { noteInTask, noteShadowedCheckout, noteWorkspace } from "./notice.ts";

/** The notes `noteShadowedCheckout` gives, one call after another in this process. */
function notes(calls: [terminal: boolean, root: string, shadows: string | undefined][]): string[] {
  const said: string[] = [];
  const log = { info: (m: string) => said.push(m) };
  for (const [terminal, root, shadows] of calls) {
    noteShadowedCheckout(log, shadows === undefined ? { root } : { root, shadows }, terminal);
  }
  return said;
}

describe("noteShadowedCheckout: an ancestor's .ariel/ won over the checkout holding the cwd", () => {
  it.each<[string, [boolean, string, string | undefined][], string[]]>([
    ["no checkout shadowed: nothing", [[true, "/n1", undefined]], []],
    ["not on a terminal: nothing", [[false, "/n2", "/n2/app"]], []],
    [
      "on a terminal: one note naming both and the -C that picks the checkout",
      [[true, "/n3", "/n3/my app"]],
      [
        `note: workspace root "/n3" (it has .ariel/), not the checkout "/n3/my app" holding the cwd; -C '/n3/my app' to use the checkout`,
      ],
    ],
    [
      "once per checkout and process; another checkout gets its own",
      [
        [true, "/n4", "/n4/a"],
        [true, "/n4", "/n4/a"],
        [true, "/n4", "/n4/b"],
      ],
      [
        `note: workspace root "/n4" (it has .ariel/), not the checkout "/n4/a" holding the cwd; -C /n4/a to use the checkout`,
        `note: workspace root "/n4" (it has .ariel/), not the checkout "/n4/b" holding the cwd; -C /n4/b to use the checkout`,
      ],
    ],
    [
      "a call off the terminal does not use up the note",
      [
        [false, "/n5", "/n5/a"],
        [true, "/n5", "/n5/a"],
      ],
      [
        `note: workspace root "/n5" (it has .ariel/), not the checkout "/n5/a" holding the cwd; -C /n5/a to use the checkout`,
      ],
    ],
  ])("%s", (_name, calls, expected) => {
    expect(notes(calls)).toEqual(expected);
  });
});

/** What `noteInTask` (and `noteWorkspace`) said: each warning's code, message and fields. */
function warned(
  calls: Parameters<typeof noteInTask>[1][],
  note: (log: { info: (m: string) => void; warn: Warn }, ws: Parameters<typeof noteInTask>[1]) => void = (
    log,
    ws,
  ) => noteInTask(log, ws),
): unknown[] {
  const said: unknown[] = [];
  const log = {
    info: (m: string) => said.push(["info", m]),
    warn: ((code: string, message: string, fields?: Record<string, unknown>) =>
      said.push([code, message, fields])) as Warn,
  };
  for (const ws of calls) note(log, ws);
  return said;
}
type Warn = Parameters<typeof noteInTask>[0]["warn"];

describe("noteInTask: the root given is in a task's directory", () => {
  it("-C in a task: one warning naming the path, the task and the workspace acted on, with the -C to use", () => {
    const ws = {
      root: "/t1/ws",
      via: "flag" as const,
      inTask: { path: "/t1/ws/.ariel/worktrees/login/api", task: "login" },
    };
    expect(warned([ws, ws])).toEqual([
      [
        "WARN_TASK_DIR",
        '-C "/t1/ws/.ariel/worktrees/login/api" is in the directory of task "login", which is never a workspace; acting on the workspace "/t1/ws" that owns it',
        {
          path: "/t1/ws/.ariel/worktrees/login/api",
          task: "login",
          root: "/t1/ws",
          hint: "name the workspace itself: -C /t1/ws",
        },
      ],
    ]);
  });

  it("by ARIEL_WORKSPACE_ROOT, or a stray .ariel/ passed over, of a task whose name is not known: said so", () => {
    const env = {
      root: "/t2/my ws",
      via: "env" as const,
      inTask: { path: "/t2/my ws/.ariel/worktrees/x", task: null },
    };
    const stray = {
      root: "/t2/my ws",
      via: "marker" as const,
      inTask: { path: "/t2/my ws/.ariel/worktrees/y", task: "y" },
    };
    expect(warned([env, stray])).toEqual([
      [
        "WARN_TASK_DIR",
        `ARIEL_WORKSPACE_ROOT "/t2/my ws/.ariel/worktrees/x" is in the directory of a task, which is never a workspace; acting on the workspace "/t2/my ws" that owns it`,
        {
          path: "/t2/my ws/.ariel/worktrees/x",
          task: null,
          root: "/t2/my ws",
          hint: "name the workspace itself: -C '/t2/my ws'",
        },
      ],
      [
        "WARN_TASK_DIR",
        `"/t2/my ws/.ariel/worktrees/y" (a stray .ariel/ there) is in the directory of task "y", which is never a workspace; acting on the workspace "/t2/my ws" that owns it`,
        {
          path: "/t2/my ws/.ariel/worktrees/y",
          task: "y",
          root: "/t2/my ws",
          hint: "name the workspace itself: -C '/t2/my ws'",
        },
      ],
    ]);
  });

  it("found from the cwd in a leg (by git, or the cwd itself), or not in a task: nothing", () => {
    const inTask = { path: "/t3/ws/.ariel/worktrees/a/api", task: "a" };
    expect(
      warned([
        { root: "/t3/ws", via: "git", inTask },
        { root: "/t3/ws", via: "cwd", inTask },
        { root: "/t3/ws", via: "flag" },
      ]),
    ).toEqual([]);
  });

  it("noteWorkspace gives both notes: the shadowed checkout's (on a terminal) and the task's", () => {
    const ws = {
      root: "/t4",
      via: "flag" as const,
      shadows: "/t4/app",
      inTask: { path: "/t4/.ariel/worktrees/b/app", task: "b" },
    };
    const both = warned([ws], (log, w) => noteWorkspace(log, { ...w, shadows: "/t4/app" }, true));
    expect(both.map((s) => (s as unknown[])[0])).toEqual(["info", "WARN_TASK_DIR"]);
    expect((both[0] as string[])[1]).toBe(
      'note: workspace root "/t4" (it has .ariel/), not the checkout "/t4/app" holding the cwd; -C /t4/app to use the checkout',
    );
  });
});

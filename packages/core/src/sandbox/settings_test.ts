import { describe, expect, it } from "vitest";
import { errorOf } from "../_fixture.ts";
import { contentDigest } from "./digest.ts";
import { manifestProblem } from "./manifest.ts";
import { parseRefLines, refLines, sandboxPaths } from "./paths.ts";
import { syncWarnings } from "./report.ts";
import {
  expandHome,
  NO_SANDBOX_CONFIG,
  parseSandboxNet,
  type SandboxFlags,
  sandboxWanted,
} from "./settings.ts";
import { minimalCover, planWritable, type WritableFacts } from "./writable.ts";

describe("sandboxWanted", () => {
  const on = { ...NO_SANDBOX_CONFIG, enabled: true };
  it.each<[string, boolean, SandboxFlags, boolean]>([
    ["no flag, no config", false, {}, false],
    ["--sandbox", false, { sandbox: true }, true],
    ["config sandbox", true, {}, true],
    ["config sandbox, --no-sandbox", true, { noSandbox: true }, false],
    ["config sandbox, --sandbox-write", true, { write: ["x"] }, true],
  ])("%s", (_name, enabled, flags, wanted) => {
    expect(sandboxWanted(enabled ? on : NO_SANDBOX_CONFIG, flags)).toBe(wanted);
  });

  it.each<[string, boolean, SandboxFlags, string]>([
    ["both ways", false, { sandbox: true, noSandbox: true }, "--sandbox and --no-sandbox exclude each other"],
    ["--sandbox-write alone", false, { write: ["x"] }, "--sandbox-write needs --sandbox"],
    ["--sandbox-net alone", false, { net: "none" }, "--sandbox-net needs --sandbox"],
    [
      "--agent without --tty or --sandbox",
      false,
      { agentAlone: true },
      "--agent (without --tty) needs --sandbox",
    ],
    [
      "--no-sandbox and --sandbox-net",
      true,
      { noSandbox: true, net: "none" },
      "--sandbox-net needs --sandbox",
    ],
  ])("%s: ERR_USAGE", (_name, enabled, flags, message) => {
    const e = errorOf(() => sandboxWanted(enabled ? on : NO_SANDBOX_CONFIG, flags));
    expect([e.code, e.message, e.exit]).toEqual(["ERR_USAGE", message, 64]);
  });

  it("--sandbox-net: on, none, else ERR_USAGE", () => {
    expect([parseSandboxNet("none", "on"), parseSandboxNet(undefined, "none")]).toEqual(["none", "none"]);
    expect(errorOf(() => parseSandboxNet("off", "on")).message).toBe(
      '--sandbox-net must be on or none, got "off"',
    );
  });

  it("expands ~ against home, a relative path against the base", () => {
    expect([
      expandHome("~/.ssh", "/h"),
      expandHome("~", "/h"),
      expandHome("/etc/x/../y", "/h"),
      expandHome("tools", "/h", "/w"),
      expandHome("~/.ssh", null),
      expandHome("tools", "/h"),
    ]).toEqual(["/h/.ssh", "/h", "/etc/y", "/w/tools", null, null]);
  });
});

describe("planWritable", () => {
  const base: WritableFacts = {
    home: "/h",
    root: "/w",
    places: ["/w/.ariel/worktrees/t/api"],
    guarded: ["/w/api/.git", "/w/.ariel", "/h/.local/state/ariel"],
    wanted: [],
    canonical: new Map([
      ["/h/.claude", "/h/.claude"],
      ["/h/.npm", null],
      ["/opt/cache", "/opt/cache"],
      ["/h", "/h"],
      ["/w/api/.git/hooks", "/w/api/.git/hooks"],
      ["/w/api/src", "/w/api/src"],
      ["/missing", null],
      ["/", "/"],
      ["/h/.local", "/h/.local"],
      ["/link", "/h"],
    ]),
  };
  it("its places, then what exists of the agent's state and the caches, then the user's paths", () => {
    expect(
      planWritable({
        ...base,
        wanted: [
          { path: "~/.claude", from: "agent" },
          { path: "~/.npm", from: "cache" },
          { path: "/opt/cache", from: "--sandbox-write" },
          { path: "api/src", from: "config sandbox.write" },
        ],
      }),
    ).toEqual(["/w/.ariel/worktrees/t/api", "/h/.claude", "/opt/cache", "/w/api/src"]);
  });

  it.each([
    ["the whole filesystem", "/", "ERR_PATH_ESCAPE", "it is the whole filesystem"],
    ["home itself", "~", "ERR_PATH_ESCAPE", "it holds the home directory"],
    ["home through a link", "/link", "ERR_PATH_ESCAPE", "it holds the home directory"],
    [
      "a git dir's hooks",
      "/w/api/.git/hooks",
      "ERR_PATH_ESCAPE",
      "it reaches /w/api/.git, which the sandbox protects",
    ],
    [
      "the user state dir's parent",
      "~/.local",
      "ERR_PATH_ESCAPE",
      "it reaches /h/.local/state/ariel, which the sandbox protects",
    ],
    ["a path that does not exist", "/missing", "ERR_NOINPUT", "no such file or directory"],
  ])("--sandbox-write %s: refused", (_name, path, code, why) => {
    const e = errorOf(() => planWritable({ ...base, wanted: [{ path, from: "--sandbox-write" }] }));
    expect([e.code, e.message.includes(why)]).toEqual([code, true]);
  });

  it("an agent's state that would reach a guarded path is left read-only, not refused", () => {
    expect(planWritable({ ...base, wanted: [{ path: "~/.local", from: "agent" }] })).toEqual([
      "/w/.ariel/worktrees/t/api",
    ]);
  });

  it("minimalCover drops duplicates and what another path holds", () => {
    expect(minimalCover(["/a/b", "/a", "/c", "/a", "/c/d/e"])).toEqual(["/a", "/c"]);
  });
});

describe("sandbox files", () => {
  it("paths of one sandbox; a run id only", () => {
    const p = sandboxPaths("/w", "20260101T000000Z-abcdef");
    expect([p.manifest, p.lock, p.shadow(2), p.startRefs(1), p.kept]).toEqual([
      "/w/.ariel/sandbox/20260101T000000Z-abcdef/sandbox.json",
      "/w/.ariel/sandbox/20260101T000000Z-abcdef.lock",
      "/w/.ariel/sandbox/20260101T000000Z-abcdef/2",
      "/w/.ariel/sandbox/20260101T000000Z-abcdef/1.start-refs",
      "/w/.ariel/sandbox-kept/20260101T000000Z-abcdef",
    ]);
    expect(errorOf(() => sandboxPaths("/w", "../x")).code).toBe("ERR_INVALID_INPUT");
  });

  it("ref lines: sorted bytewise, read back; other lines skipped", () => {
    const a = "a".repeat(40);
    const text = refLines(
      new Map([
        ["refs/tags/é", a],
        ["refs/heads/main", a],
        ["refs/tags/z", a],
      ]),
    );
    expect(text).toBe(`${a} refs/heads/main\n${a} refs/tags/z\n${a} refs/tags/é\n`);
    expect([...parseRefLines(`${text}# comment\nnot a line\n`).keys()]).toEqual([
      "refs/heads/main",
      "refs/tags/z",
      "refs/tags/é",
    ]);
  });

  it("a manifest is checked field by field", () => {
    const m = {
      v: 1,
      type: "sandbox",
      runId: "20260101T000000Z-abcdef",
      root: "/w",
      task: "t",
      createdAt: "2026-01-01T00:00:00.000Z",
      owner: { pid: 1, startTime: "5", bootId: null },
      child: null,
      repos: [
        {
          n: 1,
          common: "/w/.git",
          main: true,
          own: ["refs/heads/main"],
          worktrees: ["/w"],
          state: { HEAD: "x" },
        },
      ],
    };
    expect(manifestProblem(m)).toBe(null);
    expect(manifestProblem({ ...m, root: "w" })).toBe("root");
    expect(manifestProblem({ ...m, repos: [{ ...m.repos[0], own: ["main"] }] })).toBe("repos");
    expect(manifestProblem([])).toBe("(root)");
  });

  it("a content digest tells bytes apart, not a security hash", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(contentDigest([enc("ref: refs/heads/main\n")])).toBe(
      contentDigest([enc("ref: refs/heads/"), enc("main\n")]),
    );
    expect(contentDigest([enc("a")])).not.toBe(contentDigest([enc("b")]));
    expect(contentDigest([])).toMatch(/^[0-9a-f]{24}$/);
  });

  it("warns about what did not go home, not about stash entries kept", () => {
    const w = syncWarnings({
      runId: "R",
      task: "t",
      finished: true,
      repos: [
        {
          common: "/r/.git",
          objects: 0,
          unsound: [],
          refs: [
            {
              op: "park",
              ref: "refs/heads/main",
              to: "b",
              as: "refs/ariel/sandbox/R/heads/main",
              why: "not-the-task's",
            },
            { op: "park", ref: "refs/stash/b", to: "b", as: "refs/ariel/sandbox/R/stash/b", why: "stash" },
            { op: "missing", ref: "refs/heads/ariel/t", to: "c" },
          ],
          state: [{ op: "conflict", name: "index" }],
        },
      ],
    });
    expect(w.map((x) => x.code)).toEqual([
      "WARN_SANDBOX_KEPT_REF",
      "WARN_SANDBOX_BROKEN_REF",
      "WARN_SANDBOX_STATE_KEPT",
    ]);
    expect(w[0]?.message).toBe(
      "the sandbox's refs/heads/main is kept as refs/ariel/sandbox/R/heads/main (the run may not move it); refs/heads/main itself did not move",
    );
    expect(w[0]?.hint).toBe(
      "git -C /r/.git log refs/ariel/sandbox/R/heads/main shows it; merge or delete it yourself",
    );
  });

  it("the command a hint names quotes a repository path the shell would split", () => {
    const park = {
      op: "park" as const,
      ref: "refs/heads/main",
      to: "b",
      as: "refs/ariel/sandbox/R/heads/main",
    };
    const [w] = syncWarnings({
      runId: "R",
      task: "t",
      finished: true,
      repos: [
        {
          common: "/my repos/r/.git",
          objects: 0,
          unsound: [],
          refs: [{ ...park, why: "not-the-task's" }],
          state: [],
        },
      ],
    });
    expect(w?.hint).toBe(
      "git -C '/my repos/r/.git' log refs/ariel/sandbox/R/heads/main shows it; merge or delete it yourself",
    );
  });
});

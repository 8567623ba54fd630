import { describe, expect, it } from "vitest";
import { frozenRefs, planGitShadow, REFERENCE_TRANSACTION_HOOK } from "./git_shadow.ts";
import { sandboxLegs } from "./legs.ts";
import { bwrapArgv, type MountFacts, planMounts } from "./mounts.ts";
import { clientSocketInode } from "./peer.ts";

function facts(over: Partial<MountFacts> = {}): MountFacts {
  return {
    sandbox: { write: ["/w/.ariel/worktrees/t/api", "/h/.claude"], hide: [], net: "on" },
    stateDir: "/w/.ariel",
    otherStateDirs: [],
    keepVisible: [],
    protect: [],
    foreign: [],
    hidden: new Map(),
    git: [],
    socket: null,
    reads: [],
    emptyFile: "/w/.ariel/sandbox/R/empty",
    ...over,
  };
}

/** A mount as one line: `op dest` (`op src->dest` when they differ). */
const line = (m: ReturnType<typeof planMounts>[number]) =>
  "src" in m && m.src !== m.dest ? `${m.op} ${m.src}->${m.dest}` : `${m.op} ${m.dest}`;

describe("planMounts", () => {
  it("a private /tmp, the state dir emptied, the run's places writable, the state dir read-only last", () => {
    expect(planMounts(facts()).map(line)).toEqual([
      "tmpfs /tmp",
      "tmpfs /w/.ariel",
      "bind /h/.claude",
      "bind /w/.ariel/worktrees/t/api",
      "remount-ro /w/.ariel",
    ]);
  });

  it("parents first; at one depth hidden beats protected beats writable", () => {
    const f = facts({
      sandbox: { write: ["/h/.claude", "/h/.config/x"], hide: [], net: "on" },
      protect: ["/h/.claude/settings.json"],
      hidden: new Map<string, "dir" | "file">([
        ["/h/.config/x", "dir"],
        ["/h/.netrc", "file"],
      ]),
    });
    expect(planMounts(f).map(line)).toEqual([
      "tmpfs /tmp",
      "tmpfs /w/.ariel",
      "bind /h/.claude",
      "ro-bind /w/.ariel/sandbox/R/empty->/h/.netrc",
      "bind /h/.config/x",
      "ro-bind /h/.claude/settings.json",
      "tmpfs /h/.config/x",
      "remount-ro /w/.ariel",
    ]);
  });

  it("keeps the workspace readable under the private /tmp, other sources read-only inside a checkout", () => {
    const f = facts({
      sandbox: { write: ["/tmp/ws"], hide: [], net: "on" },
      stateDir: "/tmp/ws/.ariel",
      keepVisible: ["/tmp/ws", "/home/u"],
      foreign: ["/tmp/ws/web"],
      socket: "/tmp/ws/.ariel/sandbox/R/monitor.sock",
    });
    expect(planMounts(f).map(line)).toEqual([
      "tmpfs /tmp",
      "ro-bind /tmp/ws",
      "bind /tmp/ws",
      "tmpfs /tmp/ws/.ariel",
      "ro-bind /tmp/ws/web",
      "ro-bind /tmp/ws/.ariel/sandbox/R/monitor.sock->/tmp/ws/.ariel/monitor.sock",
      "remount-ro /tmp/ws/.ariel",
    ]);
  });

  it("shows the run's own report wiring read-only inside the emptied state dir, after its parents", () => {
    const f = facts({
      socket: "/w/.ariel/sandbox/R/monitor.sock",
      reads: ["/w/.ariel/runs/R/claude-settings.json"],
    });
    expect(planMounts(f).map(line).slice(2)).toEqual([
      "bind /h/.claude",
      "ro-bind /w/.ariel/sandbox/R/monitor.sock->/w/.ariel/monitor.sock",
      "bind /w/.ariel/worktrees/t/api",
      "ro-bind /w/.ariel/runs/R/claude-settings.json",
      "remount-ro /w/.ariel",
    ]);
  });
});

describe("bwrapArgv", () => {
  const o = {
    bwrap: "/usr/bin/bwrap",
    env: "/usr/bin/env",
    mounts: [{ op: "tmpfs" as const, dest: "/tmp", why: "tmp" as const }],
    cwd: "/w/api",
    setenv: { TMPDIR: "/tmp" },
  };
  it("wraps the command: bubblewrap ignores TERM, the command gets it back", () => {
    expect(bwrapArgv({ ...o, net: "on" }, ["make", "test"])).toEqual([
      "/usr/bin/env",
      "--ignore-signal=HUP,INT,QUIT,TERM",
      "/usr/bin/bwrap",
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--disable-userns",
      "--die-with-parent",
      "--cap-drop",
      "ALL",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "--setenv",
      "TMPDIR",
      "/tmp",
      "--chdir",
      "/w/api",
      "--",
      "/usr/bin/env",
      "--default-signal=HUP,INT,QUIT,TERM",
      "make",
      "test",
    ]);
  });
  it("--sandbox-net none: a network namespace of its own", () => {
    expect(bwrapArgv({ ...o, net: "none" }, ["x"])).toContain("--unshare-net");
    expect(bwrapArgv({ ...o, net: "on" }, ["x"])).not.toContain("--unshare-net");
  });
});

describe("planGitShadow", () => {
  const base = {
    common: "/r/.git",
    shadow: "/w/.ariel/sandbox/R/1/git",
    entries: [
      { name: "config", dir: false },
      { name: "info", dir: true },
      { name: "hooks", dir: true },
      { name: "objects", dir: true },
      { name: "refs", dir: true },
      { name: "packed-refs", dir: false },
      { name: "index", dir: false },
      { name: "description", dir: false },
      { name: "modules", dir: true },
      { name: "config.lock", dir: false },
    ],
    admins: [{ name: "api", files: ["gitdir", "commondir", "locked"] }],
    main: false,
    hooksPath: null,
  };
  it("a linked worktree: the shadow over the common dir, config and info read-only, its admin dir live", () => {
    expect(planGitShadow(base).mounts.map(line)).toEqual([
      "bind /w/.ariel/sandbox/R/1/git->/r/.git",
      "ro-bind /r/.git/objects->/r/.git/ariel-real-objects",
      "ro-bind /r/.git/config",
      "ro-bind /r/.git/info",
      "ro-bind /r/.git/modules",
      "ro-bind /w/.ariel/sandbox/R/1/git/hooks->/r/.git/hooks",
      "bind /r/.git/worktrees/api",
      "ro-bind /r/.git/worktrees/api/gitdir",
      "ro-bind /r/.git/worktrees/api/commondir",
      "ro-bind /r/.git/worktrees/api/locked",
    ]);
  });
  it("core.hooksPath elsewhere: the composed hooks go there; the unused hooks dir is read-only", () => {
    const m = planGitShadow({ ...base, admins: [], hooksPath: "/r/.husky/_" }).mounts.map(line);
    expect(m).toContain("ro-bind /w/.ariel/sandbox/R/1/git/hooks->/r/.husky/_");
    expect(m).toContain("ro-bind /r/.git/hooks");
  });
  it("in place: the main worktree's own state is the shadow's copy, not mounted", () => {
    expect(planGitShadow({ ...base, admins: [], main: true }).readOnly).toEqual([
      "config",
      "info",
      "modules",
    ]);
  });
});

describe("frozenRefs and the hook", () => {
  it("freezes what existed except the run's branches, remote-tracking and per-worktree refs", () => {
    expect(
      frozenRefs(
        [
          "refs/tags/v1",
          "refs/heads/main",
          "refs/heads/ariel/t",
          "refs/remotes/origin/main",
          "refs/bisect/bad",
        ],
        ["refs/heads/ariel/t"],
      ),
    ).toBe("refs/heads/main\nrefs/tags/v1\n");
  });
  it("is a fixed script that reads its list beside it and calls the repository's own hook", () => {
    expect(REFERENCE_TRANSACTION_HOOK).toContain('grep -xF -f "$here/ariel-frozen-refs"');
    expect(REFERENCE_TRANSACTION_HOOK).toContain('"$here/reference-transaction.repo" "$@"');
    expect(REFERENCE_TRANSACTION_HOOK.startsWith("#!/bin/sh\n")).toBe(true);
  });
});

describe("sandboxLegs", () => {
  it.each([
    [
      "every leg of a multi-source run",
      {
        legs: [
          { worktree: "/t/api", branch: "ariel/t" },
          { worktree: "/t/web", branch: "ariel/t" },
        ],
        worktree: "/t",
        branch: "ariel/t",
        cwd: "/t",
      },
      [
        { path: "/t/api", branch: "ariel/t" },
        { path: "/t/web", branch: "ariel/t" },
      ],
    ],
    ["one worktree", { worktree: "/t/api", branch: "b", cwd: "/t/api" }, [{ path: "/t/api", branch: "b" }]],
    ["in place", { worktree: null, branch: null, cwd: "/w/api" }, [{ path: "/w/api", branch: null }]],
  ])("%s", (_name, x, legs) => {
    expect(sandboxLegs(x)).toEqual(legs);
  });
});

describe("clientSocketInode", () => {
  const table = [
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
    "   0: 00000000:1EC6 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1596 1 0 100 0 0 10 0",
    "   1: 0100007F:1EC6 0100007F:AEC8 01 00000000:00000000 00:00000000 00000000     0        0 1700 1 0 20 4 30 10 -1",
    "   2: 0100007F:AEC8 0100007F:1EC6 01 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 20 4 30 10 -1",
    "   3: 0100007F:AEC9 0100007F:1EC6 06 00000000:00000000 03:00000188 00000000     0        0 0 3 0",
  ].join("\n");
  it.each([
    ["the client's side of the connection", 0xaec8, 7878, "4242"],
    ["not the server's side, nor the listener", 7878, 0xaec8, "1700"],
    ["a closed one (inode 0): none", 0xaec9, 7878, null],
    ["no such connection", 1234, 7878, null],
  ])("%s", (_name, client, server, inode) => {
    expect(clientSocketInode(table, client, server)).toBe(inode);
  });
});

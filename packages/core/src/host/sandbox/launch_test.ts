/**
 * The command line of a sandboxed run on a real workspace (docs/sandbox.md, What it is): the
 * mounts built from the disk (the git shadow's, the visible paths under /tmp, the protected and
 * foreign paths under a writable one, other workspaces' state dirs, the hidden paths, the
 * monitor socket and run files), git's settings through the environment, the empty file; and
 * what a real run inside may and may not write.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverSourcesSync } from "../../discovery/discover.ts";
import { planGitShadow } from "../../sandbox/git_shadow.ts";
import type { Mount } from "../../sandbox/mounts.ts";
import { sandboxPaths } from "../../sandbox/paths.ts";
import type { RecordedSandbox } from "../../sandbox/settings.ts";
import { GIT_TEST_ENV, git, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { syncReadFs } from "../sync_fs.ts";
import { type SandboxLaunchInput, sandboxLaunch, sandboxSocketPath } from "./launch.ts";

const RUN = "20260101T000000Z-abc123";
/**
 * This process's PATH without its directories under /tmp (a clone of the repository there puts
 * its node_modules/.bin on it): the visible paths asserted below are the test's own.
 */
const SYSTEM_PATH = (process.env.PATH ?? "")
  .split(":")
  .filter((d) => d !== "/tmp" && !d.startsWith("/tmp/"))
  .join(":");
const hasBwrap = (process.env.PATH ?? "")
  .split(":")
  .some((d) => d.startsWith("/") && existsSync(`${d}/bwrap`));

let base: string;
let root: string;
let home: string;
let stateHome: string;
let api: string;
let common: string;
let wt: string;
let env: Record<string, string | undefined>;
beforeEach(() => {
  base = tempDir("ariel-launch-");
  root = join(base, "ws");
  home = join(base, "home");
  stateHome = join(base, "state");
  mkdirSync(home);
  api = join(root, "api");
  initRepo(api);
  common = join(api, ".git");
  wt = join(root, ".ariel/worktrees/t/api");
  mkdirSync(join(root, ".ariel/worktrees/t"), { recursive: true });
  git(api, "worktree", "add", "-q", "-b", "ariel/t", wt);
  env = { PATH: SYSTEM_PATH, HOME: home, ARIEL_STATE_HOME: stateHome };
});
afterEach(() => removeDir(base));

const sandbox = (s: Partial<RecordedSandbox> = {}): RecordedSandbox => ({
  write: [wt],
  hide: [],
  net: "none",
  ...s,
});
const launch = (over: Partial<SandboxLaunchInput> = {}) =>
  sandboxLaunch({
    root,
    runId: RUN,
    task: null,
    sandbox: sandbox(),
    legs: [{ path: wt, branch: "ariel/t" }],
    cwd: wt,
    env,
    argv: ["true"],
    ...over,
  });
const byWhy = (mounts: readonly Mount[], why: Mount["why"]) => mounts.filter((m) => m.why === why);
const dests = (mounts: readonly Mount[], why: Mount["why"]) =>
  byWhy(mounts, why)
    .map((m) => m.dest)
    .sort();
const sortMounts = (ms: readonly Mount[]) => ms.map((m) => JSON.stringify(m)).sort();

describe.skipIf(!hasBwrap)("sandboxLaunch", () => {
  it("the environment: TMPDIR, ARIEL_SANDBOX, git's settings after the run's own; then the command", async () => {
    const { argv } = await launch();
    const at = argv.indexOf("--setenv");
    expect(argv.slice(at)).toEqual([
      ...["--setenv", "TMPDIR", "/tmp", "--setenv", "ARIEL_SANDBOX", "1"],
      ...["--setenv", "GIT_CONFIG_COUNT", "2"],
      ...["--setenv", "GIT_CONFIG_KEY_0", "gc.packRefs", "--setenv", "GIT_CONFIG_VALUE_0", "false"],
      ...[
        "--setenv",
        "GIT_CONFIG_KEY_1",
        "repack.updateServerInfo",
        "--setenv",
        "GIT_CONFIG_VALUE_1",
        "false",
      ],
      ...["--chdir", wt, "--", argv[0], "--default-signal=HUP,INT,QUIT,TERM", "true"],
    ]);
    expect(argv).toContain("--unshare-net");
  });

  it("git's settings go after the run's GIT_CONFIG_COUNT; a count that is no count starts at 0", async () => {
    const setenv = (argv: string[]) => {
      const out: Record<string, string> = {};
      for (let i = 0; i < argv.length; i++) if (argv[i] === "--setenv") out[argv[i + 1]!] = argv[i + 2]!;
      return out;
    };
    const three = setenv((await launch({ env: { ...env, GIT_CONFIG_COUNT: "3" } })).argv);
    expect(three).toMatchObject({
      GIT_CONFIG_COUNT: "5",
      GIT_CONFIG_KEY_3: "gc.packRefs",
      GIT_CONFIG_VALUE_3: "false",
      GIT_CONFIG_KEY_4: "repack.updateServerInfo",
      GIT_CONFIG_VALUE_4: "false",
    });
    expect(three.GIT_CONFIG_KEY_0).toBeUndefined();
    const zero = setenv((await launch({ env: { ...env, GIT_CONFIG_COUNT: "0" } })).argv);
    expect([zero.GIT_CONFIG_COUNT, zero.GIT_CONFIG_KEY_0, zero.GIT_CONFIG_KEY_1]).toEqual([
      "2",
      "gc.packRefs",
      "repack.updateServerInfo",
    ]);
    for (const bad of ["x", "-1", "1.5"]) {
      const s = setenv((await launch({ env: { ...env, GIT_CONFIG_COUNT: bad } })).argv);
      expect([s.GIT_CONFIG_COUNT, s.GIT_CONFIG_KEY_0, s.GIT_CONFIG_VALUE_1]).toEqual([
        "2",
        "gc.packRefs",
        "false",
      ]);
    }
  });

  it("git: the shadow's mounts and the linked worktree's .git file read-only", async () => {
    const l = await launch();
    expect(sortMounts(byWhy(l.mounts, "git"))).toEqual(
      sortMounts([
        ...planGitShadow(l.prepared.repos[0]!).mounts,
        { op: "ro-bind", src: join(wt, ".git"), dest: join(wt, ".git"), why: "git" },
      ]),
    );
    expect(l.prepared.manifest.repos[0]!.worktrees).toEqual([wt]);
    expect(l.mounts).toContainEqual({
      op: "bind",
      src: sandboxPaths(root, RUN).shadow(1),
      dest: common,
      why: "git",
    });
  });

  it("in place: no .git file to mount", async () => {
    const l = await launch({
      legs: [{ path: api, branch: null }],
      cwd: api,
      sandbox: sandbox({ write: [api] }),
    });
    expect(sortMounts(byWhy(l.mounts, "git"))).toEqual(
      sortMounts(planGitShadow(l.prepared.repos[0]!).mounts),
    );
  });

  it("writable, state dir, socket-less, no reads: the plan's fixed parts", async () => {
    const l = await launch();
    expect(byWhy(l.mounts, "writable")).toEqual([{ op: "bind", src: wt, dest: wt, why: "writable" }]);
    expect(byWhy(l.mounts, "workspace-state")).toEqual([
      { op: "tmpfs", dest: join(root, ".ariel"), why: "workspace-state" },
      { op: "remount-ro", dest: join(root, ".ariel"), why: "workspace-state" },
    ]);
    expect(byWhy(l.mounts, "monitor-socket")).toEqual([]);
    expect(byWhy(l.mounts, "run-file")).toEqual([]);
    expect(byWhy(l.mounts, "protected")).toEqual([]);
    expect(byWhy(l.mounts, "not-the-run's")).toEqual([]);
    expect(byWhy(l.mounts, "hidden")).toEqual([]);
    const binds = l.argv.flatMap((a, i) => (a === "--bind" ? [l.argv.slice(i, i + 3)] : []));
    expect(binds).toContainEqual(["--bind", wt, wt]);
  });

  it("the monitor socket shown as the workspace's, and the run's files read-only", async () => {
    const sock = join(base, "sock");
    writeFileSync(sock, "");
    const file = join(root, ".ariel/runs/x/claude-settings.json");
    writeFile(file, "{}");
    const l = await launch({ socket: sock, reads: [file] });
    expect(byWhy(l.mounts, "monitor-socket")).toEqual([
      { op: "ro-bind", src: sock, dest: join(root, ".ariel/monitor.sock"), why: "monitor-socket" },
    ]);
    expect(byWhy(l.mounts, "run-file")).toEqual([{ op: "ro-bind", src: file, dest: file, why: "run-file" }]);
  });

  describe("visible under /tmp", () => {
    it("the workspace, home and the repositories, none inside another", async () => {
      const l = await launch();
      expect(
        byWhy(l.mounts, "visible").every((m) => m.op === "ro-bind" && "src" in m && m.src === m.dest),
      ).toBe(true);
      expect(dests(l.mounts, "visible")).toEqual([home, root]);
    });

    it("PATH's absolute directories, and the files the command names (as their checkout)", async () => {
      const bin = join(base, "bin");
      mkdirSync(bin);
      const tool = join(base, "tool");
      initRepo(tool, { "sub/run.sh": "echo\n" });
      writeFile(join(base, "loose/x.sh"), "echo\n");
      writeFile(join(base, "prog/reporter"), "echo\n");
      const l = await launch({
        env: { ...env, PATH: `${bin}:${join(base, "nobin")}:${SYSTEM_PATH}:/tmp:relbin` },
        argv: ["sh", join(tool, "sub/run.sh"), join(base, "loose/x.sh"), join(base, "absent.sh"), "/tmp"],
        programs: [join(base, "prog/reporter")],
      });
      expect(dests(l.mounts, "visible")).toEqual(
        [bin, home, join(base, "loose/x.sh"), join(base, "prog/reporter"), tool, root].sort(),
      );
    });

    it("a /tmp path a writable one covers is not mounted back", async () => {
      const l = await launch({ sandbox: sandbox({ write: [wt, home] }) });
      expect(dests(l.mounts, "visible")).toEqual([root]);
    });

    it("HOME relative: not visible, and nothing under it protected", async () => {
      const l = await launch({ env: { PATH: env.PATH, HOME: "home", ARIEL_STATE_HOME: stateHome } });
      expect(dests(l.mounts, "visible")).toEqual([root]);
    });
  });

  describe("protected paths under a writable one", () => {
    it("an agent's state: its protected files and dirs made when absent, read-only; a link out is left", async () => {
      const claude = join(home, ".claude");
      mkdirSync(claude);
      writeFileSync(join(claude, "CLAUDE.md"), "mine\n");
      mkdirSync(join(base, "skills-real"));
      symlinkSync(join(base, "skills-real"), join(claude, "skills"));
      mkdirSync(join(home, ".codex"));
      const l = await launch({ sandbox: sandbox({ write: [wt, claude, join(home, ".npm")] }) });
      expect(dests(l.mounts, "protected")).toEqual(
        ["CLAUDE.md", "agents", "commands", "hooks", "plugins", "settings.json"].map((n) => join(claude, n)),
      );
      expect(byWhy(l.mounts, "protected").every((m) => m.op === "ro-bind")).toBe(true);
      expect(readFileSync(join(claude, "settings.json"), "utf8")).toBe("{}\n");
      expect(readFileSync(join(claude, "CLAUDE.md"), "utf8")).toBe("mine\n");
      for (const d of ["agents", "commands", "hooks", "plugins"]) {
        expect(statSync(join(claude, d)).isDirectory()).toBe(true);
      }
      // Not under a writable path: not made. Under one whose parent is absent: not made.
      expect(existsSync(join(home, ".codex/config.toml"))).toBe(false);
      expect(existsSync(join(home, ".npm"))).toBe(false);
      expect(existsSync(join(home, ".bashrc"))).toBe(false);
    });

    it("a protected file's neutral content is empty unless the agent says otherwise", async () => {
      const codex = join(home, ".codex");
      mkdirSync(codex);
      const l = await launch({ sandbox: sandbox({ write: [wt, codex] }) });
      expect(dests(l.mounts, "protected")).toEqual(
        ["AGENTS.md", "config.toml", "prompts"].map((n) => join(codex, n)),
      );
      expect(readFileSync(join(codex, "config.toml"), "utf8")).toBe("");
      expect(readFileSync(join(codex, "AGENTS.md"), "utf8")).toBe("");
    });

    it("the shell's start-up files and git's config under a writable home-wide path", async () => {
      mkdirSync(join(home, ".config"));
      writeFileSync(join(home, ".bashrc"), "alias x=y\n");
      const l = await launch({ sandbox: sandbox({ write: [wt, join(home, ".config")] }) });
      expect(dests(l.mounts, "protected")).toEqual([join(home, ".config/fish"), join(home, ".config/git")]);
      expect(statSync(join(home, ".config/git")).isDirectory()).toBe(true);
      expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe("alias x=y\n");
    });

    it("no absolute HOME: nothing is expanded, nothing made", async () => {
      const claude = join(home, ".claude");
      mkdirSync(claude);
      const l = await launch({
        env: { PATH: env.PATH, ARIEL_STATE_HOME: stateHome },
        sandbox: sandbox({ write: [wt, claude] }),
      });
      expect(dests(l.mounts, "protected")).toEqual([]);
      expect(existsSync(join(claude, "settings.json"))).toBe(false);
    });
  });

  describe("in place in the checkout at the workspace root", () => {
    let mono: string;
    beforeEach(() => {
      mono = join(base, "mono");
      initRepo(mono, { "README.md": "x\n", "ariel.config.json": '{"worktreeRoot": "wts"}\n' });
      mkdirSync(join(mono, "wts"));
      initRepo(join(mono, "inner"));
    });
    const inPlace = (write: string[] = [mono]) =>
      launch({
        root: mono,
        legs: [{ path: mono, branch: null }],
        cwd: mono,
        sandbox: sandbox({ write }),
      });

    it("the workspace's config file and the worktree root outside .ariel are read-only", async () => {
      const l = await inPlace();
      expect(dests(l.mounts, "protected")).toEqual([join(mono, "ariel.config.json")]);
      expect(dests(l.mounts, "not-the-run's")).toContain(join(mono, "wts"));
    });

    it("a config that does not load: the worktree root is taken as .ariel's, the file still protected", async () => {
      writeFileSync(join(mono, "ariel.config.json"), "{not json");
      const l = await inPlace();
      expect(dests(l.mounts, "protected")).toEqual([join(mono, "ariel.config.json")]);
      // No worktree root outside .ariel; the repository inside the checkout is still not the run's.
      expect(dests(l.mounts, "not-the-run's")).toEqual([join(mono, "inner")]);
    });

    // Seen from inside: the repository inside the checkout takes no write.
    it("a real run cannot write into the repository inside the checkout", async () => {
      const l = await inPlace();
      l.argv.splice(l.argv.length - 1, 1, "sh", "-c", `echo x > ${join(mono, "inner/planted")}`);
      spawnSync(l.argv[0]!, l.argv.slice(1), { encoding: "utf8" });
      expect(existsSync(join(mono, "inner/planted"))).toBe(false);
    });

    it("no config file: nothing of it protected, the worktree root is .ariel's", async () => {
      const bare = join(base, "bare");
      initRepo(bare);
      const l = await launch({
        root: bare,
        legs: [{ path: bare, branch: null }],
        cwd: bare,
        sandbox: sandbox({ write: [bare] }),
      });
      expect(dests(l.mounts, "protected")).toEqual([]);
      expect(dests(l.mounts, "not-the-run's")).toEqual([]);
    });

    it("the workspace's discovery finds the repository inside the checkout", () => {
      expect(
        discoverSourcesSync(syncReadFs, mono, { maxDepth: 2, nested: true }).map((s) => s.path),
      ).toContain(join(mono, "inner"));
    });

    // docs/sandbox.md (What is writable): an in-place run in the checkout at the workspace root
    // "does not get the repositories inside it". Every nested source lies inside the root leg;
    // `foreignPaths` once counted those as the run's own, and `inner` stayed writable.
    it("the repositories inside the checkout are read-only (not the run's)", async () => {
      const l = await inPlace();
      expect(dests(l.mounts, "not-the-run's")).toEqual([join(mono, "inner"), join(mono, "wts")]);
    });

    it("a write scope that does not cover the workspace: no config protection, no foreign paths", async () => {
      const l = await launch({
        sandbox: sandbox({ write: [wt] }),
        root: mono,
        legs: [{ path: wt, branch: null }],
      });
      expect(dests(l.mounts, "protected")).toEqual([]);
      expect(dests(l.mounts, "not-the-run's")).toEqual([]);
    });
  });

  it("a workspace's sources under a writable path that are not the run's are read-only", async () => {
    // A task run whose write scope (say a config `write`) holds the workspace's sources dir.
    const srcs = join(root, "srcs");
    initRepo(join(srcs, "web"));
    initRepo(join(srcs, "lib"));
    const w = join(srcs, "web");
    const l = await launch({
      legs: [{ path: w, branch: null }],
      cwd: w,
      sandbox: sandbox({ write: [srcs] }),
    });
    expect(dests(l.mounts, "not-the-run's")).toEqual([join(srcs, "lib")]);
    const same = await launch({
      legs: [{ path: w, branch: null }],
      cwd: w,
      sandbox: sandbox({ write: [w] }),
    });
    expect(dests(same.mounts, "not-the-run's")).toEqual([]);
    // A write scope that is a source itself is not a place above it: nothing to make read-only.
    const exact = await launch({
      legs: [{ path: w, branch: null }],
      cwd: w,
      sandbox: sandbox({ write: [w, join(srcs, "lib")] }),
    });
    expect(dests(exact.mounts, "not-the-run's")).toEqual([]);
  });

  it("a write scope only inside .ariel: no foreign paths looked for", async () => {
    initRepo(join(root, "web"));
    const l = await launch({ sandbox: sandbox({ write: [wt, join(root, ".ariel")] }) });
    expect(dests(l.mounts, "not-the-run's")).toEqual([]);
  });

  it("other workspaces' state dirs from the registry are emptied; damaged or foreign entries hide nothing", async () => {
    const reg = join(stateHome, "workspaces");
    mkdirSync(reg, { recursive: true });
    const ws = (name: string, ariel: "dir" | "file" | null) => {
      const r = join(home, name);
      mkdirSync(r);
      if (ariel === "dir") mkdirSync(join(r, ".ariel"));
      if (ariel === "file") writeFileSync(join(r, ".ariel"), "");
      return r;
    };
    const entry = (file: string, v: unknown) => writeFileSync(join(reg, file), JSON.stringify(v));
    const outside = mkdtempSync("/var/tmp/ariel-launch-other-");
    try {
      mkdirSync(join(outside, ".ariel"));
      entry("a.json", { root: ws("o1", "dir") });
      entry("b.json", { root: outside });
      entry(".c.json", { root: ws("o2", "dir") });
      writeFileSync(join(reg, "d.txt"), JSON.stringify({ root: ws("o3", "dir") }));
      writeFileSync(join(reg, "e.json"), "{not json");
      entry("f.json", { root: "o1" });
      entry("g.json", { root: 7 });
      entry("h.json", { root });
      entry("i.json", { root: ws("o4", null) });
      entry("j.json", { root: ws("o5", "file") });
      const hidden = mkdtempSync("/tmp/ariel-launch-unseen-");
      mkdirSync(join(hidden, ".ariel"));
      entry("k.json", { root: hidden });
      const l = await launch();
      removeDir(hidden);
      expect(
        byWhy(l.mounts, "workspace-state")
          .filter((m) => m.op === "tmpfs")
          .map((m) => m.dest)
          .sort(),
      ).toEqual([join(outside, ".ariel"), join(home, "o1/.ariel"), join(root, ".ariel")].sort());
    } finally {
      removeDir(outside);
    }
  });

  it("no user state dir: no registry read, the run's own state dir only", async () => {
    const l = await launch({ env: { PATH: env.PATH } });
    expect(byWhy(l.mounts, "workspace-state").map((m) => m.dest)).toEqual([
      join(root, ".ariel"),
      join(root, ".ariel"),
    ]);
  });

  it("hidden: a directory as an empty tmpfs, a file as the empty file, an absent path not at all", async () => {
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".netrc"), "machine x password y\n");
    const l = await launch({
      sandbox: sandbox({ hide: [join(home, ".ssh"), join(home, ".netrc"), join(home, ".gone")] }),
    });
    expect(sortMounts(byWhy(l.mounts, "hidden"))).toEqual(
      sortMounts([
        { op: "tmpfs", dest: join(home, ".ssh"), why: "hidden" },
        { op: "ro-bind", src: sandboxPaths(root, RUN).empty, dest: join(home, ".netrc"), why: "hidden" },
      ]),
    );
  });

  it("the empty file: made empty and read-only once, reused by a restart", async () => {
    const empty = sandboxPaths(root, RUN).empty;
    await launch();
    expect(readFileSync(empty, "utf8")).toBe("");
    expect(statSync(empty).mode & 0o777).toBe(0o444);
    chmodSync(empty, 0o644);
    writeFileSync(empty, "kept");
    await launch();
    expect(readFileSync(empty, "utf8")).toBe("kept");
    expect(statSync(empty).mode & 0o777).toBe(0o644);
  });

  it("the restricted monitor socket's place", () => {
    expect(sandboxSocketPath(root, RUN)).toBe(join(root, ".ariel/sandbox", RUN, "monitor.sock"));
  });

  it("a real run: the worktree and git's own refs writable; .git/config, the .git file, other refs not", async () => {
    const config = readFileSync(join(common, "config"), "utf8");
    const script = [
      'echo "sandbox=$ARIEL_SANDBOX tmp=$TMPDIR"',
      "echo work > new.txt && echo wrote-worktree",
      `(echo x >> ${join(common, "config")}) 2>/dev/null && echo wrote-config || echo config-refused`,
      `(echo x >> ${join(wt, ".git")}) 2>/dev/null && echo wrote-gitfile || echo gitfile-refused`,
      "git add new.txt && git commit -q -m in && echo committed",
      "git update-ref refs/heads/main HEAD 2>/dev/null && echo moved-main || echo main-refused",
      `ls -A ${join(root, ".ariel")}`,
    ].join("\n");
    const l = await launch({ argv: ["sh", "-c", script] });
    const r = spawnSync(l.argv[0]!, l.argv.slice(1), {
      env: { ...process.env, ...GIT_TEST_ENV },
      encoding: "utf8",
    });
    expect(r.stdout.split("\n")).toEqual([
      "sandbox=1 tmp=/tmp",
      "wrote-worktree",
      "config-refused",
      "gitfile-refused",
      "committed",
      "main-refused",
      "worktrees",
      "",
    ]);
    expect(readFileSync(join(wt, "new.txt"), "utf8")).toBe("work\n");
    expect(readFileSync(join(common, "config"), "utf8")).toBe(config);
    expect(git(api, "rev-parse", "refs/heads/main")).toBe(git(api, "rev-parse", "refs/heads/ariel/t"));
  });
});

/**
 * A run's sandbox decided before anything starts, on a real home and workspace: whether there is
 * one and what refuses it (a target that is no checkout, a bad net, missing tools unless a dry
 * run); what it may write (its places, its agent's state and the caches that exist, config and
 * flag paths, canonical) and what it may not read (the credential stores that exist).
 */
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { type Config, defaultConfig } from "../../config.ts";
import { DEFAULT_HIDDEN } from "../../sandbox/settings.ts";
import { git, initRepo, removeDir, tempDir } from "../_fixture.ts";
import { checkSandbox, recordedSandbox } from "./resolve.ts";

let dir: string;
let home: string;
let root: string;
let api: string;
beforeEach(() => {
  dir = realpathSync(tempDir("ariel-resolve-"));
  home = join(dir, "home");
  root = join(dir, "ws");
  api = join(root, "api");
  mkdirSync(home);
  initRepo(api);
});
afterEach(() => removeDir(dir));

const config = (sandbox: Partial<Config["sandbox"]> = {}): Config => {
  const c = defaultConfig(root);
  return { ...c, sandbox: { ...c.sandbox, ...sandbox } };
};
const io = { env: { PATH: "/nonexistent" }, cwd: "/", dryRun: false };
/** The machine's own sockets under /run that exist here, hidden in every sandbox (after the home's). */
const machine = DEFAULT_HIDDEN.filter((p) => p.startsWith("/"))
  .filter((p) => existsSync(p))
  .map((p) => realpathSync(p))
  .filter((p, i, all) => p !== "/" && all.indexOf(p) === i);
const target = (checkout = true) => [{ name: "api", path: api, checkout }];

describe("checkSandbox", () => {
  it("no --sandbox and no config: no sandbox, nothing checked (not even the tools)", async () => {
    expect(await checkSandbox(undefined, config(), target(false), io)).toBe(false);
    expect(await checkSandbox({ noSandbox: true }, config({ enabled: true }), target(false), io)).toBe(false);
  });

  it("a target that is no checkout is refused, the workspace root by its path", async () => {
    const e = await arielErrorOf(checkSandbox({ sandbox: true }, config(), target(false), io));
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_NOT_A_CHECKOUT",
      66,
      `source "api" is not a git checkout: a sandboxed run works in a checkout or a task's worktrees`,
      "name a source with --source, or pass --isolate (docs/sandbox.md)",
      { source: "api", path: api },
    ]);
    const r = await arielErrorOf(
      checkSandbox({ sandbox: true }, config(), [{ name: ".", path: root, checkout: false }], io),
    );
    expect(r.message).toBe(
      `the workspace root ${root} is not a git checkout: a sandboxed run works in a checkout or a task's worktrees`,
    );
  });

  it("a bad --sandbox-net is ERR_USAGE before the targets are looked at", async () => {
    const e = await arielErrorOf(checkSandbox({ sandbox: true, net: "off" }, config(), target(false), io));
    expect([e.code, e.message]).toEqual(["ERR_USAGE", '--sandbox-net must be on or none, got "off"']);
  });

  it("the tools are required, except in a dry run", async () => {
    const e = await arielErrorOf(checkSandbox({ sandbox: true }, config(), target(), io));
    expect(e.code).toBe("ERR_SANDBOX_UNAVAILABLE");
    expect(await checkSandbox({ sandbox: true }, config(), target(), { ...io, dryRun: true })).toBe(true);
    expect(await checkSandbox(undefined, config({ enabled: true }), target(), { ...io, dryRun: true })).toBe(
      true,
    );
  });
});

describe("recordedSandbox", () => {
  const run = (over: Partial<Parameters<typeof recordedSandbox>[2]> = {}) => ({
    root,
    places: [api],
    sources: [api],
    argv: ["sh"],
    env: { HOME: home },
    cwd: dir,
    ...over,
  });

  it("its places first, then the package caches that exist; the credential stores that exist hidden", () => {
    mkdirSync(join(home, ".npm"));
    mkdirSync(join(home, ".cache/pip"), { recursive: true });
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".netrc"), "machine x\n");
    expect(recordedSandbox({}, config(), run())).toEqual({
      write: [api, join(home, ".npm"), join(home, ".cache/pip")],
      hide: [join(home, ".ssh"), join(home, ".netrc"), ...machine],
      net: "on",
    });
  });

  it("the agent's own state is writable: by --agent, else by the command's name", () => {
    mkdirSync(join(home, ".claude"));
    mkdirSync(join(home, ".codex"));
    expect(recordedSandbox({}, config(), run({ argv: ["/usr/local/bin/claude"] })).write).toEqual([
      api,
      join(home, ".claude"),
    ]);
    expect(recordedSandbox({ agent: "codex" }, config(), run({ argv: ["claude"] })).write).toEqual([
      api,
      join(home, ".codex"),
    ]);
  });

  it("config write is relative to the root, --sandbox-write to the cwd; each canonical", () => {
    mkdirSync(join(root, "shared"));
    mkdirSync(join(dir, "out"));
    symlinkSync(join(dir, "out"), join(dir, "out-link"));
    const r = recordedSandbox({ write: ["out-link"] }, config({ write: ["shared"] }), run());
    expect(r.write).toEqual([api, join(root, "shared"), join(dir, "out")]);
  });

  it("a path that reaches a repository's git dir or the home as a whole is refused (77)", async () => {
    const common = join(api, ".git");
    expect(git(api, "rev-parse", "--absolute-git-dir")).toBe(common);
    const e = await arielErrorOf(
      Promise.resolve().then(() => recordedSandbox({ write: [common] }, config(), run())),
    );
    expect([e.code, e.exit]).toEqual(["ERR_PATH_ESCAPE", 77]);
    const h = await arielErrorOf(
      Promise.resolve().then(() => recordedSandbox({ write: [home] }, config(), run())),
    );
    expect(h.code).toBe("ERR_PATH_ESCAPE");
  });

  it("config hide adds to the defaults, expanded from the home or the root; the net from the flag over the config", () => {
    mkdirSync(join(home, "secrets"));
    mkdirSync(join(root, "private"));
    const r = recordedSandbox(
      { net: "none" },
      config({ hide: ["~/secrets", "private", "/nonexistent-x"] }),
      run(),
    );
    expect(r.hide).toEqual([...machine, join(home, "secrets"), join(root, "private")]);
    expect(r.net).toBe("none");
    expect(recordedSandbox({}, config({ net: "none" }), run()).net).toBe("none");
  });

  it("no home (HOME unset or relative): nothing under ~ is writable or hidden", () => {
    mkdirSync(join(home, ".npm"));
    mkdirSync(join(home, ".ssh"));
    expect(recordedSandbox({}, config(), run({ env: {} }))).toEqual({
      write: [api],
      hide: machine,
      net: "on",
    });
    expect(recordedSandbox({}, config(), run({ env: { HOME: "home" } }))).toEqual({
      write: [api],
      hide: machine,
      net: "on",
    });
  });
});

describe("recordedSandbox: at the edges", () => {
  const run = (over: Partial<Parameters<typeof recordedSandbox>[2]> = {}) => ({
    root,
    places: [api],
    sources: [api],
    argv: ["sh"],
    env: { HOME: home },
    cwd: dir,
    ...over,
  });
  const refused = (f: () => unknown) => arielErrorOf(Promise.resolve().then(f));

  it("no ask at all: the defaults", () => {
    expect(recordedSandbox(undefined, config(), run())).toEqual({ write: [api], hide: machine, net: "on" });
  });

  it("a HOME that is relative is no home, even when it leads to one", () => {
    mkdirSync(join(home, ".npm"));
    mkdirSync(join(home, ".ssh"));
    const relativeHome = relative(process.cwd(), home);
    expect(relativeHome.startsWith("/")).toBe(false);
    expect(recordedSandbox({}, config(), run({ env: { HOME: relativeHome } }))).toEqual({
      write: [api],
      hide: machine,
      net: "on",
    });
  });

  it("a config write path that does not exist is refused like a flag's (ERR_NOINPUT)", async () => {
    const e = await refused(() => recordedSandbox({}, config({ write: ["nope"] }), run()));
    expect([e.code, e.message]).toEqual([
      "ERR_NOINPUT",
      'config sandbox.write "nope": no such file or directory',
    ]);
  });

  it("a source that is no checkout guards nothing and breaks nothing", () => {
    const plain = join(dir, "plain");
    mkdirSync(plain);
    expect(recordedSandbox({}, config(), run({ sources: [plain, api] })).write).toEqual([api]);
  });

  it("places and the home are taken canonical: a home reached by a link is still refused whole", async () => {
    const apiLink = join(dir, "api-link");
    symlinkSync(api, apiLink);
    expect(recordedSandbox({}, config(), run({ places: [apiLink] })).write).toEqual([api]);
    const homeLink = join(dir, "home-link");
    symlinkSync(home, homeLink);
    const e = await refused(() =>
      recordedSandbox({ write: [home] }, config(), run({ env: { HOME: homeLink } })),
    );
    expect(e.code).toBe("ERR_PATH_ESCAPE");
  });

  it("the user's ariel state directory is never writable", async () => {
    const state = join(home, ".local/state/ariel");
    mkdirSync(state, { recursive: true });
    const e = await refused(() => recordedSandbox({ write: [state] }, config(), run()));
    expect(e.code).toBe("ERR_PATH_ESCAPE");
  });

  it("hiding / is not a thing: it is left out", () => {
    expect(recordedSandbox({}, config({ hide: ["/"] }), run()).hide).toEqual(machine);
  });
});

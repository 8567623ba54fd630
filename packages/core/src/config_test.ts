import { describe, expect, it } from "vitest";
import {
  CONFIG_FILE,
  type Config,
  DEFAULT_OVERLAY,
  defaultConfig,
  loadConfig,
  parseConfig,
} from "./config.ts";
import { ArielError } from "./errors.ts";
import { FakeFs } from "./testing/fake_fs.ts";

const ROOT = "/ws";
const FILE = "/ws/ariel.config.json";

function config(partial: Partial<Config>): Config {
  return { ...defaultConfig(ROOT), file: FILE, ...partial };
}

describe("parseConfig", () => {
  it.each<[string, string, Partial<Config>]>([
    ["empty object", "{}", {}],
    ["$schema is allowed", '{"$schema": "./docs/schema/config.schema.json"}', {}],
    [
      "relative worktreeRoot inside the default approved root",
      '{"worktreeRoot": ".ariel/worktrees/big"}',
      { worktreeRoot: "/ws/.ariel/worktrees/big" },
    ],
    [
      "absolute worktreeRoot with its approved root",
      '{"worktreeRoot": "/disk/wt", "worktreeRoots": ["/disk"]}',
      { worktreeRoot: "/disk/wt", worktreeRoots: ["/disk"] },
    ],
    [
      "relative approved roots",
      '{"worktreeRoot": "wt", "worktreeRoots": ["wt/", "./other"]}',
      { worktreeRoot: "/ws/wt", worktreeRoots: ["/ws/wt", "/ws/other"] },
    ],
    [
      "overlay adds to the defaults, deduplicated",
      '{"overlay": [".env.local", ".env", "config/*.local.json"]}',
      { overlay: [...DEFAULT_OVERLAY, ".env.local", "config/*.local.json"] },
    ],
    ["lease TTL", '{"leaseTtlMs": 60000}', { leaseTtlMs: 60000 }],
    ["lease TTL bounds", '{"leaseTtlMs": 1000}', { leaseTtlMs: 1000 }],
    ["BOM and CRLF", '\ufeff{\r\n"leaseTtlMs": 300000\r\n}\r\n', { leaseTtlMs: 300000 }],
    ["disk floor", '{"minFreeBytes": 5368709120}', { minFreeBytes: 5368709120 }],
    ["shared dirs, deduplicated", '{"share": ["node_modules", "node_modules"]}', { share: ["node_modules"] }],
    ["share mode", '{"shareMode": "store"}', { shareMode: "store" }],
    [
      "hooks: a string and an argv",
      '{"hooks": {"post-create": "npm ci", "pre-remove": ["make", "stop"]}}',
      { hooks: { "post-create": "npm ci", "pre-remove": ["make", "stop"] } },
    ],
    ["hook timeout", '{"hookTimeoutMs": 2000}', { hookTimeoutMs: 2000 }],
    [
      "ports and their range",
      '{"ports": ["web", "api"], "portRange": [30000, 30009]}',
      { ports: ["web", "api"], portRange: [30000, 30009] },
    ],
    ["sandbox true", '{"sandbox": true}', { sandbox: { enabled: true, write: [], hide: [], net: "on" } }],
    ["sandbox false", '{"sandbox": false}', { sandbox: { enabled: false, write: [], hide: [], net: "on" } }],
    [
      "sandbox settings: on unless they say not",
      '{"sandbox": {"write": ["~/.cache/x", "tools"], "hide": ["~/.config/vault"], "net": "none"}}',
      { sandbox: { enabled: true, write: ["~/.cache/x", "tools"], hide: ["~/.config/vault"], net: "none" } },
    ],
    [
      "sandbox settings kept for --sandbox",
      '{"sandbox": {"enabled": false, "net": "none"}}',
      { sandbox: { enabled: false, write: [], hide: [], net: "none" } },
    ],
  ])("%s", (_name, text, expected) => {
    expect(parseConfig(text, ROOT)).toEqual(config(expected));
  });

  it.each([
    [
      "unknown key",
      '{"worktreeroot": "x"}',
      "ERR_CONFIG",
      '/ws/ariel.config.json: unknown key "worktreeroot"',
      "remove it; the keys are: worktreeRoot, worktreeRoots, overlay, leaseTtlMs, backend, k8s, share, shareMode, hooks, hookTimeoutMs, ports, portRange, sandbox, minFreeBytes (see docs/config.md)",
    ],
    [
      "syntax error with its line",
      '{\n  "leaseTtlMs": 1000,\n}\n',
      "ERR_CONFIG",
      "/ws/ariel.config.json: invalid JSON at line 3 column 1",
      "fix the JSON syntax (no comments or trailing commas)",
    ],
    [
      "truncated file",
      '{"overlay": [',
      "ERR_CONFIG",
      "/ws/ariel.config.json: invalid JSON at line 1 column 14 (unexpected end)",
      undefined,
    ],
    ["not an object", "[]", "ERR_CONFIG", "/ws/ariel.config.json: must be a JSON object", undefined],
    ["null", "null", "ERR_CONFIG", "/ws/ariel.config.json: must be a JSON object", undefined],
    [
      "unknown hook event",
      '{"hooks": {"post-merge": "x"}}',
      "ERR_CONFIG",
      '/ws/ariel.config.json: hooks: unknown key "post-merge"',
      undefined,
    ],
    [
      "empty hook argv",
      '{"hooks": {"post-create": []}}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: hooks.post-create: must have at least 1 item(s)",
      undefined,
    ],
    [
      "hook timeout too small",
      '{"hookTimeoutMs": 5}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: hookTimeoutMs: must be at least 100",
      undefined,
    ],
    [
      "bad port name",
      '{"ports": ["web-1"]}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: ports[0]: must match /^[A-Za-z][A-Za-z0-9_]{0,31}$/",
      undefined,
    ],
    [
      "port names equal but for case",
      '{"ports": ["web", "WEB"]}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: ports: port names must be unique (ignoring case)",
      undefined,
    ],
    [
      "port range reversed",
      '{"portRange": [30000, 20000]}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: portRange: the range's first port must not exceed its last",
      undefined,
    ],
    [
      "port range below 1024",
      '{"portRange": [80, 90]}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: portRange[0]: must be at least 1024",
      undefined,
    ],
    [
      "unknown share mode",
      '{"shareMode": "overlay"}',
      "ERR_CONFIG",
      '/ws/ariel.config.json: shareMode: must be "tree" or "store"',
      undefined,
    ],
    [
      "TTL too small",
      '{"leaseTtlMs": 999}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: leaseTtlMs: must be at least 1000",
      undefined,
    ],
    [
      "TTL too big",
      '{"leaseTtlMs": 300001}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: leaseTtlMs: must be at most 300000",
      undefined,
    ],
    [
      "TTL not an integer",
      '{"leaseTtlMs": 1500.5}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: leaseTtlMs: expected int",
      undefined,
    ],
    [
      "overlay of the wrong type",
      '{"overlay": ".env"}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: overlay: expected array",
      undefined,
    ],
    [
      "overlay entry empty",
      '{"overlay": ["ok", ""]}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: overlay[1]: must have at least 1 character(s)",
      undefined,
    ],
    [
      "no approved roots",
      '{"worktreeRoots": []}',
      "ERR_CONFIG",
      "/ws/ariel.config.json: worktreeRoots: must have at least 1 item(s)",
      undefined,
    ],
    [
      "unknown sandbox key",
      '{"sandbox": {"writable": []}}',
      "ERR_CONFIG",
      '/ws/ariel.config.json: sandbox: unknown key "writable"',
      undefined,
    ],
    [
      "sandbox network other than on or none",
      '{"sandbox": {"net": "off"}}',
      "ERR_CONFIG",
      '/ws/ariel.config.json: sandbox.net: must be "on" or "none"',
      undefined,
    ],
  ])("%s", (_name, text, code, message, hint) => {
    let err: unknown;
    try {
      parseConfig(text, ROOT);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ArielError);
    const a = err as ArielError;
    expect([a.code, a.message]).toEqual([code, message]);
    expect(a.exit).toBe(78);
    if (hint) expect(a.hint).toBe(hint);
  });

  it("leaves the approved-root check to the worktree commands (they resolve links first)", () => {
    expect(parseConfig('{"worktreeRoot": "/tmp/wt"}', ROOT)).toEqual(config({ worktreeRoot: "/tmp/wt" }));
  });

  it("rejects __proto__ as an unknown key", () => {
    expect(() => parseConfig('{"__proto__": {"leaseTtlMs": 1000}}', ROOT)).toThrow(/unknown key "__proto__"/);
  });
});

describe("loadConfig", () => {
  it("gives the defaults when there is no file", async () => {
    expect(await loadConfig(new FakeFs({ "/ws/x": "" }), ROOT)).toEqual({
      file: null,
      worktreeRoot: "/ws/.ariel/worktrees",
      worktreeRoots: ["/ws/.ariel/worktrees"],
      overlay: [".mcp.json", ".claude/settings.local.json", ".env", ".envrc"],
      leaseTtlMs: 30000,
      backend: "local",
      k8s: {},
      minFreeBytes: 0,
      share: [],
      shareMode: "tree",
      hooks: {},
      hookTimeoutMs: null,
      ports: [],
      portRange: [20000, 29999],
      sandbox: { enabled: false, write: [], hide: [], net: "on" },
    });
  });

  it("reads backend and k8s, and refuses an unknown k8s key", async () => {
    const fs = new FakeFs({
      [`/ws/${CONFIG_FILE}`]: '{"backend": "k8s", "k8s": {"image": "a:1", "ttl": "1h"}}',
    });
    const c = await loadConfig(fs, ROOT);
    expect([c.backend, c.k8s]).toEqual(["k8s", { image: "a:1", ttl: "1h" }]);
    expect(() => parseConfig('{"k8s": {"imgae": "a"}}', ROOT)).toThrow(/imgae/);
  });

  it("reads the file", async () => {
    const fs = new FakeFs({ [`/ws/${CONFIG_FILE}`]: '{"leaseTtlMs": 5000}' });
    expect((await loadConfig(fs, ROOT)).leaseTtlMs).toBe(5000);
  });

  it.each([
    [
      "a directory",
      () => new FakeFs({ "/ws/ariel.config.json/x": "" }),
      "/ws/ariel.config.json: is a directory",
    ],
    [
      "unreadable",
      () => {
        const fs = new FakeFs({ "/ws/ariel.config.json": "{}" });
        fs.unreadable.add(FILE);
        return fs;
      },
      "/ws/ariel.config.json: cannot be read",
    ],
  ])("reports a config file that is %s", async (_name, make, message) => {
    const err = await loadConfig(make(), ROOT).catch((e: unknown) => e);
    expect((err as ArielError).code).toBe("ERR_CONFIG");
    expect((err as ArielError).message).toBe(message);
  });
});

describe("parseConfig / loadConfig: exact errors and merges", () => {
  function errorOf(fn: () => unknown): ArielError {
    try {
      fn();
    } catch (e) {
      return e as ArielError;
    }
    throw new Error("did not throw");
  }

  it.each<[string, string, string, Record<string, unknown>]>([
    [
      "a syntax error past column 9",
      `{${"\n".repeat(11)}  "leaseTtlMs":    1000,\n}`,
      "/ws/ariel.config.json: invalid JSON at line 13 column 1",
      { file: FILE, where: "line 13 column 1" },
    ],
    [
      "a syntax error on a long line",
      '{"leaseTtlMs": 1000 "overlay": []}',
      "/ws/ariel.config.json: invalid JSON at line 1 column 21",
      { file: FILE, where: "line 1 column 21" },
    ],
    ["an unknown key", '{"x": 1}', '/ws/ariel.config.json: unknown key "x"', { file: FILE, key: "x" }],
    [
      "a wrong type",
      '{"leaseTtlMs": "5"}',
      "/ws/ariel.config.json: leaseTtlMs: expected number",
      { file: FILE },
    ],
  ])("%s", (_n, text, message, context) => {
    const e = errorOf(() => parseConfig(text, ROOT));
    expect([e.code, e.exit, e.message, e.context]).toEqual(["ERR_CONFIG", 78, message, context]);
  });

  it("a wrong type keeps the default hint", () => {
    expect(errorOf(() => parseConfig('{"overlay": 1}', ROOT)).hint).toBe(
      "fix ariel.config.json; see docs/config.md",
    );
  });

  it("reads a file that starts with a byte order mark", () => {
    expect(parseConfig('\ufeff{"leaseTtlMs": 2000}', ROOT)).toEqual(config({ leaseTtlMs: 2000 }));
  });

  it("takes relative roots from the workspace root, and adds overlay patterns to the defaults once", () => {
    expect(
      parseConfig(
        '{"worktreeRoot": "wt", "worktreeRoots": ["wt", "/abs"], "overlay": [".env", ".tool"]}',
        ROOT,
      ),
    ).toEqual(
      config({
        worktreeRoot: "/ws/wt",
        worktreeRoots: ["/ws/wt", "/abs"],
        overlay: [...DEFAULT_OVERLAY, ".tool"],
      }),
    );
  });

  it.each<[string, string, string | undefined]>([
    ["EISDIR", "/ws/ariel.config.json: is a directory", "fix ariel.config.json; see docs/config.md"],
    ["EACCES", "/ws/ariel.config.json: cannot be read", "check the file's permissions"],
    ["EPERM", "/ws/ariel.config.json: cannot be read", "check the file's permissions"],
  ])("loadConfig: a read failing with %s", async (code, message, hint) => {
    const fs = new FakeFs({});
    fs.readText = async () => {
      throw Object.assign(new Error(code), { code });
    };
    const e = (await loadConfig(fs, ROOT).catch((x: unknown) => x)) as ArielError;
    expect([e.code, e.message, e.hint, e.context]).toEqual(["ERR_CONFIG", message, hint, { file: FILE }]);
  });

  it("loadConfig passes any other read failure on as it is", async () => {
    const fs = new FakeFs({});
    fs.readText = async () => {
      throw Object.assign(new Error("EIO"), { code: "EIO" });
    };
    const e = await loadConfig(fs, ROOT).catch((x: unknown) => x);
    expect(e).not.toBeInstanceOf(ArielError);
    expect((e as { code: string }).code).toBe("EIO");
  });
});

import { describe, expect, it } from "vitest";
import { ArielError } from "./errors.ts";
import {
  basenamePosix,
  canonicalize,
  dirnamePosix,
  isWithin,
  joinPosix,
  normalizePosix,
  resolveContained,
  toPosixRelative,
} from "./paths.ts";
import { eachMaps } from "./testing/cases.ts";
import { FakeFs } from "./testing/fake_fs.ts";

describe("normalizePosix", () => {
  eachMaps(
    normalizePosix,
    [
      ["/a/b/../c", "/a/c"],
      ["/a//b/./c/", "/a/b/c"],
      ["/../..", "/"],
      ["/", "/"],
      ["a/../..", ".."],
      ["a/./b", "a/b"],
      ["", "."],
      ["./", "."],
      ["../a/../../b", "../../b"],
    ],
    "%j → %j",
  );
});

describe("joinPosix / dirnamePosix / basenamePosix", () => {
  it.each([
    [["/ws", "a/b"], "/ws/a/b"],
    [["/ws", "/abs"], "/abs"],
    [["/ws", "../x"], "/x"],
    [["/ws", ""], "/ws"],
    [["a", "b"], "a/b"],
  ])("join %j → %j", (parts, expected) => {
    expect(joinPosix(...parts)).toBe(expected);
  });
  it.each([
    ["/a/b", "/a", "b"],
    ["/a", "/", "a"],
    ["/", "/", ""],
  ])("%j → dirname %j basename %j", (p, d, b) => {
    expect(dirnamePosix(p)).toBe(d);
    expect(basenamePosix(p)).toBe(b);
  });
});

describe("isWithin", () => {
  it.each([
    ["same path", "/a/b", "/a/b", true],
    ["child", "/a/b", "/a/b/c", true],
    ["deep child", "/a/b", "/a/b/c/d/e", true],
    ["prefix string is not a parent", "/a/b", "/a/bc", false],
    ["sibling", "/a/b", "/a/c", false],
    ["parent", "/a/b", "/a", false],
    ["dot-dot escape", "/a/b", "/a/b/../c", false],
    ["dot-dot back inside", "/a/b", "/a/b/c/../d", true],
    ["trailing slash on parent", "/a/b/", "/a/b/c", true],
    ["double slash", "/a/b", "/a//b/c", true],
    ["root contains all", "/", "/x/y", true],
    ["relative child fails closed", "/a", "a/b", false],
    ["relative parent fails closed", "a", "a/b", false],
    ["dot-dot above root", "/a", "/../a/x", true],
  ])("%s", (_name, parent, child, expected) => {
    expect(isWithin(parent, child)).toBe(expected);
  });
});

describe("toPosixRelative", () => {
  it.each([
    ["/ws", "/ws", "."],
    ["/ws", "/ws/api", "api"],
    ["/ws/", "/ws/services/api/", "services/api"],
    ["/", "/etc", "etc"],
  ])("%j %j → %j", (root, p, expected) => {
    expect(toPosixRelative(root, p)).toBe(expected);
  });
  it("rejects a path outside", () => {
    expect(() => toPosixRelative("/ws", "/wsx/a")).toThrow(ArielError);
  });
});

function tree(): FakeFs {
  return new FakeFs({
    "/ws/README.md": "hi\n",
    "/ws/src/a.ts": "x",
    "/ws/link-in": { link: "src" },
    "/ws/link-out": { link: "/etc" },
    "/ws/link-up": { link: "../outside" },
    "/ws/dangling-out": { link: "/elsewhere/new" },
    "/ws/dangling-in": { link: "src/new" },
    "/ws/src/deep-out": { link: "../../etc/passwd" },
    "/ws/loop1": { link: "loop2" },
    "/ws/loop2": { link: "loop1" },
    "/real/ws2/x": "x",
    "/alias": { link: "/real/ws2" },
    "/etc/passwd": "root",
    "/outside/f": "x",
  });
}

describe("canonicalize", () => {
  it.each([
    ["plain", "/ws/src/a.ts", "/ws/src/a.ts"],
    ["relative link", "/ws/link-in/a.ts", "/ws/src/a.ts"],
    ["missing tail", "/ws/src/new/dir/file", "/ws/src/new/dir/file"],
    ["link then dot-dot follows the kernel", "/ws/link-out/../ws/README.md", "/ws/README.md"],
    ["dangling link", "/ws/dangling-in", "/ws/src/new"],
    ["missing then dot-dot then link", "/ws/nope/../link-out/x", "/etc/x"],
  ])("%s", async (_name, p, expected) => {
    expect(await canonicalize(tree(), p)).toBe(expected);
  });
});

describe("resolveContained", () => {
  it.each([
    ["relative file", "README.md", "/ws/README.md"],
    ["absolute inside", "/ws/src/a.ts", "/ws/src/a.ts"],
    ["the root itself", ".", "/ws"],
    ["to be created", ".ariel/tasks/t1.json", "/ws/.ariel/tasks/t1.json"],
    ["dot-dot that stays inside", "src/../README.md", "/ws/README.md"],
    ["link inside", "link-in/a.ts", "/ws/src/a.ts"],
    ["dangling link inside", "dangling-in", "/ws/src/new"],
  ])("allows %s", async (_name, p, expected) => {
    expect(await resolveContained(tree(), "/ws", p)).toBe(expected);
  });

  it.each([
    ["dot-dot", "../etc/passwd"],
    ["absolute outside", "/etc/passwd"],
    ["prefix sibling", "/wsx"],
    ["link pointing out", "link-out/passwd"],
    ["the outward link itself", "link-out"],
    ["relative link climbing out", "link-up/f"],
    ["dangling link pointing out (write target)", "dangling-out"],
    ["link deep inside pointing out", "src/deep-out"],
    ["missing dir then dot-dot then outward link", "nope/../link-out"],
    ["link loop", "loop1"],
  ])("rejects %s with ERR_PATH_ESCAPE", async (_name, p) => {
    const err = await resolveContained(tree(), "/ws", p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArielError);
    expect((err as ArielError).code).toBe("ERR_PATH_ESCAPE");
    expect((err as ArielError).exit).toBe(77);
  });

  it("canonicalizes the root first", async () => {
    expect(await resolveContained(tree(), "/alias", "x")).toBe("/real/ws2/x");
    expect(await resolveContained(tree(), "/alias", "/alias/x")).toBe("/real/ws2/x");
  });

  it("reports a missing root as ERR_WORKSPACE_NOT_FOUND", async () => {
    const err = await resolveContained(tree(), "/missing", "x").catch((e: unknown) => e);
    expect((err as ArielError).code).toBe("ERR_WORKSPACE_NOT_FOUND");
  });

  it("fails closed when a component cannot be read", async () => {
    const fs = tree();
    const lstat = fs.lstat.bind(fs);
    const realpath = fs.realpath.bind(fs);
    const denied = () => Object.assign(new Error("EACCES"), { code: "EACCES" });
    fs.lstat = async (p) => {
      if (p === "/ws/src") throw denied();
      return lstat(p);
    };
    fs.realpath = async (p) => {
      if (p.startsWith("/ws/src")) throw denied();
      return realpath(p);
    };
    const err = await resolveContained(fs, "/ws", "src/a.ts").catch((e: unknown) => e);
    expect((err as ArielError).code).toBe("ERR_PATH_ESCAPE");
    expect((err as ArielError).message).toBe('cannot check "/ws/src/a.ts": EACCES at "/ws/src"');
  });
});

describe("paths: exact errors and edges", () => {
  async function rejection(p: Promise<unknown>): Promise<Record<string, unknown>> {
    const e = await p.then(
      () => undefined,
      (x: unknown) => x,
    );
    if (e === undefined) throw new Error("expected a rejection");
    return e as Record<string, unknown>;
  }

  it("toPosixRelative names both paths", () => {
    expect(() => toPosixRelative("/ws", "/wsx/a")).toThrow(
      expect.objectContaining({
        code: "ERR_PATH_ESCAPE",
        message: 'path "/wsx/a" is outside "/ws"',
        context: { path: "/wsx/a", root: "/ws" },
      }),
    );
  });

  it.each([
    ["a relative parent", "ws", "/ws/a", false],
    ["a relative child", "/ws", "ws/a", false],
    ["both relative", "ws", "ws/a", false],
  ])("isWithin fails closed for %s", (_n, parent, child, expected) => {
    expect(isWithin(parent, child)).toBe(expected);
  });

  it.each([
    ["the root", "/", "/"],
    ["empty and dot components", "/ws//src/./a.ts", "/ws/src/a.ts"],
    ["a link whose target has ./ and //", "/ws/odd/a.ts", "/ws/src/a.ts"],
    ["an absolute link target", "/ws/link-out/passwd", "/etc/passwd"],
  ])("canonicalize: %s", async (_n, p, expected) => {
    const fs = tree();
    fs.put("/ws/odd", { link: ".//src/." });
    expect(await canonicalize(fs, p)).toBe(expected);
  });

  it("canonicalize refuses a relative path (a programming error)", async () => {
    const e = await rejection(canonicalize(tree(), "ws/a"));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe('canonicalize needs an absolute path, got "ws/a"');
  });

  it("canonicalize looks at nothing below the first missing component", async () => {
    const fs = tree();
    expect(await canonicalize(fs, "/ws/new/a/b")).toBe("/ws/new/a/b");
    expect(fs.calls.filter(([op]) => op === "lstat").map(([, p]) => p)).toEqual(["/ws", "/ws/new"]);
  });

  it("follows a chain of 40 links, refuses 41", async () => {
    const fs = tree();
    // l1 -> l2 -> ... -> l41 -> /ws: 41 links from l1, 40 from l2.
    for (let i = 1; i <= 40; i++) fs.put(`/c/l${i}`, { link: `l${i + 1}` });
    fs.put("/c/l41", { link: "/ws" });
    expect(await canonicalize(fs, "/c/l2")).toBe("/ws");
    const e = await rejection(canonicalize(fs, "/c/l1"));
    expect(e).toMatchObject({
      code: "ERR_PATH_ESCAPE",
      message: 'too many symbolic links in "/c/l1"',
      context: { path: "/c/l1" },
    });
  });

  it("resolveContained names the path, where it leads and the root", async () => {
    const e = await rejection(resolveContained(tree(), "/ws", "link-out/passwd"));
    expect(e).toMatchObject({
      code: "ERR_PATH_ESCAPE",
      message: 'path "link-out/passwd" resolves to "/etc/passwd", outside "/ws"',
      context: { path: "link-out/passwd", resolved: "/etc/passwd", root: "/ws" },
    });
  });

  it("a component that cannot be read: hint and context", async () => {
    const fs = tree();
    const lstat = fs.lstat.bind(fs);
    fs.lstat = async (p) => {
      if (p === "/ws/src") throw new Error("no code");
      return lstat(p);
    };
    const e = await rejection(canonicalize(fs, "/ws/src/a.ts"));
    expect(e).toMatchObject({
      code: "ERR_PATH_ESCAPE",
      message: 'cannot check "/ws/src/a.ts": error at "/ws/src"',
      hint: "check the permissions along the path",
      context: { path: "/ws/src/a.ts" },
    });
  });

  it.each([
    ["ENOENT", "/missing"],
    ["ENOTDIR", "/ws/README.md/x"],
  ])("a root that cannot be found (%s): ERR_WORKSPACE_NOT_FOUND", async (_code, root) => {
    const e = await rejection(resolveContained(tree(), root, "x"));
    expect(e).toMatchObject({
      code: "ERR_WORKSPACE_NOT_FOUND",
      message: `workspace root "${root}" does not exist`,
      context: { root },
    });
  });

  it("any other failure to read the root is passed on as it is", async () => {
    const fs = tree();
    fs.unreadable.add("/ws");
    const e = await rejection(resolveContained(fs, "/ws", "x"));
    expect(e).not.toBeInstanceOf(ArielError);
    expect(e.code).toBe("EACCES");
  });

  it("a null thrown by the filesystem still fails closed", async () => {
    const fs = tree();
    fs.lstat = async () => {
      throw null;
    };
    fs.realpath = async (p) => (p === "/ws" ? "/ws" : Promise.reject(new Error("x")));
    const e = await rejection(resolveContained(fs, "/ws", "a"));
    expect(e).toMatchObject({ code: "ERR_PATH_ESCAPE", message: 'cannot check "/ws/a": error at "/ws"' });
  });
});

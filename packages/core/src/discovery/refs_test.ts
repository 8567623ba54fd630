import { describe, expect, it } from "vitest";
import { fakeFs } from "./_fake_fs.ts";
import { BadRefError, commonDirOf, parsePackedRefs, readHead } from "./refs.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const S256 = "d".repeat(64);

describe("parsePackedRefs", () => {
  it("reads refs, skips the header, peeled lines and junk", () => {
    const text = `# pack-refs with: peeled fully-peeled sorted \n${A} refs/heads/main\n${B} refs/tags/v1\n^${C}\nnot a line\n${C} refs/remotes/origin/main\r\n`;
    expect([...parsePackedRefs(text)]).toEqual([
      ["refs/heads/main", A],
      ["refs/tags/v1", B],
      ["refs/remotes/origin/main", C],
    ]);
  });
});

describe("readHead", () => {
  const g = "/r/.git";
  it.each([
    [
      "symbolic HEAD, loose ref",
      { [`${g}/HEAD`]: "ref: refs/heads/main\n", [`${g}/refs/heads/main`]: `${A}\n` },
      { head: A, branch: "main" },
    ],
    [
      "branch with a slash",
      { [`${g}/HEAD`]: "ref: refs/heads/feat/x\n", [`${g}/refs/heads/feat/x`]: `${A}\n` },
      { head: A, branch: "feat/x" },
    ],
    ["detached HEAD", { [`${g}/HEAD`]: `${B}\n` }, { head: B, branch: null }],
    ["detached HEAD, sha256 repository", { [`${g}/HEAD`]: `${S256}\n` }, { head: S256, branch: null }],
    ["unborn branch", { [`${g}/HEAD`]: "ref: refs/heads/main\n" }, { head: null, branch: "main" }],
    [
      "unborn, packed-refs without it",
      { [`${g}/HEAD`]: "ref: refs/heads/main\n", [`${g}/packed-refs`]: `${A} refs/heads/other\n` },
      { head: null, branch: "main" },
    ],
    [
      "packed ref with peeled lines",
      {
        [`${g}/HEAD`]: "ref: refs/heads/main\n",
        [`${g}/packed-refs`]: `# pack-refs with: peeled fully-peeled sorted\n${C} refs/tags/v1\n^${B}\n${A} refs/heads/main\n`,
      },
      { head: A, branch: "main" },
    ],
    [
      "loose ref wins over packed",
      {
        [`${g}/HEAD`]: "ref: refs/heads/main\n",
        [`${g}/refs/heads/main`]: `${B}\n`,
        [`${g}/packed-refs`]: `${A} refs/heads/main\n`,
      },
      { head: B, branch: "main" },
    ],
    [
      "symbolic ref chain ends at the last branch",
      {
        [`${g}/HEAD`]: "ref: refs/heads/alias\n",
        [`${g}/refs/heads/alias`]: "ref: refs/heads/main\n",
        [`${g}/refs/heads/main`]: `${A}\n`,
      },
      { head: A, branch: "main" },
    ],
    [
      "chain into packed-refs",
      {
        [`${g}/HEAD`]: "ref: refs/heads/alias\n",
        [`${g}/refs/heads/alias`]: "ref: refs/heads/main\n",
        [`${g}/packed-refs`]: `${C} refs/heads/main\n`,
      },
      { head: C, branch: "main" },
    ],
    [
      "HEAD outside refs/heads",
      { [`${g}/HEAD`]: "ref: refs/remotes/origin/main\n", [`${g}/refs/remotes/origin/main`]: `${A}\n` },
      { head: A, branch: "refs/remotes/origin/main" },
    ],
    [
      "CRLF and spaces",
      { [`${g}/HEAD`]: "ref:  refs/heads/main \r\n", [`${g}/refs/heads/main`]: `${A}\r\n` },
      { head: A, branch: "main" },
    ],
    [
      "ref path is a directory (refs/heads/x/…), falls back to packed",
      {
        [`${g}/HEAD`]: "ref: refs/heads/x\n",
        [`${g}/refs/heads/x/y`]: `${A}\n`,
        [`${g}/packed-refs`]: `${B} refs/heads/x\n`,
      },
      { head: B, branch: "x" },
    ],
  ])("%s", async (_name, tree, expected) => {
    expect(await readHead(fakeFs(tree), g, g)).toEqual(expected);
  });

  it("reads HEAD in the worktree's git dir and branches in the common dir", async () => {
    const wt = "/r/.git/worktrees/w";
    const fs = fakeFs({
      [`${wt}/HEAD`]: "ref: refs/heads/feature\n",
      [`${wt}/commondir`]: "../..\n",
      [`${wt}/refs/heads/feature`]: `${C}\n`, // a decoy: branches are never per-worktree
      [`${g}/refs/heads/feature`]: `${A}\n`,
      [`${g}/HEAD`]: "ref: refs/heads/main\n",
    });
    const common = await commonDirOf(fs, wt);
    expect(common).toBe(g);
    expect(await readHead(fs, wt, common)).toEqual({ head: A, branch: "feature" });
  });

  it("reads per-worktree refs (refs/bisect/...) in the worktree's git dir", async () => {
    const wt = "/r/.git/worktrees/w";
    const fs = fakeFs({ [`${wt}/HEAD`]: "ref: refs/bisect/bad\n", [`${wt}/refs/bisect/bad`]: `${B}\n` });
    expect(await readHead(fs, wt, g)).toEqual({ head: B, branch: "refs/bisect/bad" });
  });

  it("commondir may be absolute", async () => {
    expect(await commonDirOf(fakeFs({ "/x/wt/commondir": "/abs/common\n" }), "/x/wt")).toBe("/abs/common");
    expect(await commonDirOf(fakeFs({ "/x/wt/HEAD": "" }), "/x/wt")).toBe("/x/wt");
  });

  it.each([
    ["garbage HEAD", { [`${g}/HEAD`]: "hello\n" }, /HEAD does not hold/],
    ["short sha", { [`${g}/HEAD`]: "abc123\n" }, /HEAD does not hold/],
    [
      "garbage ref",
      { [`${g}/HEAD`]: "ref: refs/heads/main\n", [`${g}/refs/heads/main`]: "zzz\n" },
      /refs\/heads\/main does not hold/,
    ],
    ["ref outside refs/", { [`${g}/HEAD`]: "ref: heads/main\n" }, /outside refs/],
    [
      "symbolic loop",
      {
        [`${g}/HEAD`]: "ref: refs/heads/a\n",
        [`${g}/refs/heads/a`]: "ref: refs/heads/b\n",
        [`${g}/refs/heads/b`]: "ref: refs/heads/a\n",
      },
      /nests too deeply/,
    ],
  ])("rejects %s", async (_name, tree, message) => {
    const p = readHead(fakeFs(tree), g, g);
    await expect(p).rejects.toBeInstanceOf(BadRefError);
    await expect(p).rejects.toThrow(message);
  });

  // As git 2.39: HEAD -> s3 -> s4 -> s5 -> main resolves, one symbolic ref more does not.
  const chain = (names: string[]) => {
    const tree: Record<string, string> = { [`${g}/refs/heads/main`]: `${"a".repeat(40)}\n` };
    const refs = ["HEAD", ...names.map((n) => `refs/heads/${n}`), "refs/heads/main"];
    for (let i = 0; i < refs.length - 1; i++) tree[`${g}/${refs[i]}`] = `ref: ${refs[i + 1]}\n`;
    return tree;
  };
  it("follows symbolic refs as deep as git does, and no deeper", async () => {
    expect(await readHead(fakeFs(chain(["s3", "s4", "s5"])), g, g)).toEqual({
      head: "a".repeat(40),
      branch: "main",
    });
    const p = readHead(fakeFs(chain(["s2", "s3", "s4", "s5"])), g, g);
    await expect(p).rejects.toThrow("symbolic ref refs/heads/s5 nests too deeply");
  });

  it("passes I/O errors through", async () => {
    const fs = fakeFs({
      [`${g}/HEAD`]: "ref: refs/heads/main\n",
      [`${g}/refs/heads/main`]: { error: "EACCES" },
    });
    await expect(readHead(fs, g, g)).rejects.toMatchObject({ code: "EACCES" });
  });
});

describe("parsePackedRefs: what is not a ref line", () => {
  it.each<[string, string, [string, string][]]>([
    ["a line without a space", `${A}x\n`, []],
    ["a name prefixed to the object id", `x${A} refs/heads/x\n`, []],
    ["41 hex digits", `${A}0 refs/heads/x\n`, []],
    ["a sha256 object id", `${S256} refs/heads/x\n`, [["refs/heads/x", S256]]],
    [
      "CRLF line endings",
      `${A} refs/heads/x\r\n${B} refs/heads/y\r\n`,
      [
        ["refs/heads/x", A],
        ["refs/heads/y", B],
      ],
    ],
  ])("%s", (_n, text, expected) => {
    expect([...parsePackedRefs(text)]).toEqual(expected);
  });
});

describe("readHead: where each ref lives", () => {
  const g = "/r/.git";
  const wt = "/r/.git/worktrees/w";
  it.each([
    ["refs/worktree/x", A],
    ["refs/rewritten/x", A],
    ["refs/bisect/x", A],
    ["refs/heads/x", B],
    ["refs/tags/worktree/x", B],
  ])("%s is read from the %s dir", async (ref, expected) => {
    const fs = fakeFs({
      [`${wt}/HEAD`]: `ref: ${ref}\n`,
      [`${wt}/${ref}`]: `${A}\n`,
      [`${g}/${ref}`]: `${B}\n`,
    });
    expect((await readHead(fs, wt, g)).head).toBe(expected);
  });

  it.each([
    [
      "a HEAD given by the caller",
      { [`${g}/HEAD`]: `${A}\n` },
      { headText: `${B}\n` },
      { head: B, branch: null },
    ],
    ["an empty HEAD text given", { [`${g}/HEAD`]: `${A}\n` }, { headText: "" }, "BadRefError"],
    ["a HEAD with CRLF and spaces", { [`${g}/HEAD`]: ` ${A} \r\n` }, {}, { head: A, branch: null }],
    [
      "a ref: line without a space",
      { [`${g}/HEAD`]: "ref:refs/heads/m\n", [`${g}/refs/heads/m`]: A },
      {},
      { head: A, branch: "m" },
    ],
    [
      "a chain of four symbolic refs after HEAD (git 2.39 resolves no such HEAD either)",
      {
        [`${g}/HEAD`]: "ref: refs/heads/a\n",
        [`${g}/refs/heads/a`]: "ref: refs/heads/b\n",
        [`${g}/refs/heads/b`]: "ref: refs/heads/c\n",
        [`${g}/refs/heads/c`]: "ref: refs/heads/d\n",
        [`${g}/refs/heads/d`]: "ref: refs/heads/e\n",
        [`${g}/refs/heads/e`]: `${C}\n`,
      },
      {},
      "BadRefError",
    ],
    [
      "a chain of five symbolic refs",
      {
        [`${g}/HEAD`]: "ref: refs/heads/a\n",
        [`${g}/refs/heads/a`]: "ref: refs/heads/b\n",
        [`${g}/refs/heads/b`]: "ref: refs/heads/c\n",
        [`${g}/refs/heads/c`]: "ref: refs/heads/d\n",
        [`${g}/refs/heads/d`]: "ref: refs/heads/e\n",
        [`${g}/refs/heads/e`]: "ref: refs/heads/f\n",
        [`${g}/refs/heads/f`]: `${C}\n`,
      },
      {},
      "BadRefError",
    ],
    [
      "a packed-refs that is a directory",
      { [`${g}/HEAD`]: "ref: refs/heads/m\n", [`${g}/packed-refs`]: { dir: true } },
      {},
      { head: null, branch: "m" },
    ],
    [
      "a ref under a file (ENOTDIR)",
      { [`${g}/HEAD`]: "ref: refs/heads/m/x\n", [`${g}/refs/heads/m`]: A },
      {},
      { head: null, branch: "m/x" },
    ],
  ])("%s", async (_n, tree, options, expected) => {
    const r = await readHead(fakeFs(tree as never), g, g, options).catch((e: Error) => e.name);
    expect(r).toEqual(expected);
  });

  it("names the error class", () => {
    expect(new BadRefError("m").name).toBe("BadRefError");
  });

  it("an unreadable packed-refs is an I/O error, not a missing ref", async () => {
    const fs = fakeFs({ [`${g}/HEAD`]: "ref: refs/heads/m\n", [`${g}/packed-refs`]: { error: "EACCES" } });
    await expect(readHead(fs, g, g)).rejects.toMatchObject({ code: "EACCES" });
  });

  it.each([
    ["an empty commondir file", { "/x/wt/commondir": "\n" }, "/x/wt"],
    ["a relative commondir with CRLF", { "/x/wt/commondir": "../c\r\n" }, "/x/c"],
  ])("commonDirOf: %s", async (_n, tree, expected) => {
    expect(await commonDirOf(fakeFs(tree), "/x/wt")).toBe(expected);
  });
});

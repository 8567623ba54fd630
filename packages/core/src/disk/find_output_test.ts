import { describe, expect, it } from "vitest";
import {
  appendFound,
  countLinks,
  FIND_EXPRESSION,
  FindOutputParser,
  type FindRoot,
  type FoundTree,
} from "./find_output.ts";
import type { DuTree } from "./usage.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

/** Parse `text` for `roots`, fed in pieces of `chunk` bytes (0: all at once). */
function parse(roots: FindRoot[], text: string, chunk = 0): FoundTree {
  const p = new FindOutputParser(roots);
  const all = bytes(text);
  if (chunk === 0) p.push(all);
  else for (let i = 0; i < all.length; i += chunk) p.push(all.subarray(i, i + chunk));
  return p.end();
}

describe("FIND_EXPRESSION", () => {
  it("prints the four record types NUL-terminated and never follows links", () => {
    expect(FIND_EXPRESSION.filter((a) => a.includes("%"))).toEqual([
      "D%d %b %f\\0",
      "U%d %b %p\\0",
      "H%d %b %D:%i\\0",
      "F%d %b\\0",
    ]);
    expect(FIND_EXPRESSION).not.toContain("-L");
    expect(FIND_EXPRESSION).not.toContain("-follow");
  });
});

describe("FindOutputParser", () => {
  const nested =
    "D0 8 src\0F1 16\0D1 8 lib\0F2 2\0H2 24 2049:77\0F1 1\0D0 8 docs\0U1 8 /w/docs/secret\0F1 4\0";
  const nestedTree: FoundTree = {
    dirs: [
      { parent: -1, name: "src", own: 4096, files: 8192 + 512 },
      { parent: 0, name: "lib", own: 4096, files: 1024 },
      { parent: -3, name: "docs", own: 4096, files: 2048 },
      { parent: 2, name: "secret", own: 4096, files: 0 },
    ],
    outer: new Map(),
    links: [{ dir: 1, bytes: 12288, key: "2049:77" }],
    unreadable: ["/w/docs/secret"],
  };

  it.each<[string, FindRoot[], string, FoundTree]>([
    [
      "subtrees below target entries, files summed per directory",
      [{ parent: 0 }, { parent: 2 }],
      nested,
      nestedTree,
    ],
    [
      "a start point that is not a directory counts in its parent",
      [{ parent: 3 }, { parent: 3 }],
      "F0 8\0H0 16 7:9\0",
      {
        dirs: [],
        outer: new Map([[3, 4096]]),
        links: [{ dir: -4, bytes: 8192, key: "7:9" }],
        unreadable: [],
      },
    ],
    [
      "a directory already in the target: its own record is skipped, what is under it added",
      [{ dir: 5 }],
      "D0 8 flat\0F1 8\0F1 8\0D1 8 sub\0F2 8\0",
      {
        dirs: [{ parent: -6, name: "sub", own: 4096, files: 4096 }],
        outer: new Map([[5, 8192]]),
        links: [],
        unreadable: [],
      },
    ],
    [
      "files of start points below the same entry add up",
      [{ parent: 3 }, { parent: 3 }],
      "F0 8\0F0 8\0",
      { dirs: [], outer: new Map([[3, 8192]]), links: [], unreadable: [] },
    ],
    [
      "a listed directory unreadable by now is reported",
      [{ dir: 1 }],
      "U0 8 /w/x\0",
      { dirs: [], outer: new Map(), links: [], unreadable: ["/w/x"] },
    ],
    [
      "names are bytes up to NUL: spaces, newlines and UTF-8 kept",
      [{ parent: 0 }],
      "D0 0 a b\nc é\0",
      {
        dirs: [{ parent: -1, name: "a b\nc é", own: 0, files: 0 }],
        outer: new Map(),
        links: [],
        unreadable: [],
      },
    ],
    [
      "dev:ino goes through Number as Node's lstat gives it",
      [{ parent: 0 }],
      "D0 0 d\0H1 8 0065024:18446744073709551615\0",
      {
        dirs: [{ parent: -1, name: "d", own: 0, files: 0 }],
        outer: new Map(),
        links: [{ dir: 0, bytes: 4096, key: `65024:${Number("18446744073709551615")}` }],
        unreadable: [],
      },
    ],
  ])("%s", (_name, roots, text, expected) => {
    expect(parse(roots, text)).toEqual(expected);
    // The same records cut anywhere between chunks.
    for (const chunk of [1, 2, 3, 7]) expect(parse(roots, text, chunk)).toEqual(expected);
  });

  /** `n` directories, each in the one before; directory `k` holds files of `k` blocks. */
  const chain = (n: number) =>
    Array.from({ length: n }, (_, k) => `D${k} 19 d${k}\0F${k + 1} ${k}\0`).join("");

  it("reads depths and block counts of several digits", () => {
    const expected = Array.from({ length: 100 }, (_, k) => ({
      parent: k - 1,
      name: `d${k}`,
      own: 19 * 512,
      files: k * 512,
    }));
    expected[0]!.files = 90 * 512;
    expect(parse([{ parent: 0 }], `${chain(100)}F1 90\0`).dirs).toEqual(expected);
  });

  it("throws on letters after the depth of a file deep down", () => {
    const at = bytes(chain(100)).length;
    expect(() => parse([{ parent: 0 }], `${chain(100)}F1a 8\0`)).toThrow(
      new Error(`find output: bad record at byte ${at}`),
    );
  });

  it.each<[string, FindRoot[], string, string]>([
    ["a record of another format", [{ parent: 0 }], "/w/src\0", "bad record at byte 0"],
    ["a record without a depth", [{ parent: 0 }], "D 8 a\0", "bad record at byte 0"],
    ["letters after a depth", [{ parent: 0 }], "D0 8 a\0D1x 8 b\0", "bad record at byte 7"],
    ["no blocks", [{ parent: 0 }], "D0  src\0", "bad record at byte 0"],
    ["letters after the blocks", [{ parent: 0 }], "D0 8x a\0", "bad record at byte 0"],
    ["a directory record without a name", [{ parent: 0 }], "D0 8 a\0D1 8\0F1 8\0", "bad record at byte 7"],
    ["an empty record", [{ parent: 0 }], "F0 8\0\0", "bad record at byte 5"],
    ["a file record without blocks", [{ parent: 0 }], "D0 8 a\0F1 \0", "bad record at byte 7"],
    ["a file record without a space", [{ parent: 0 }], "D0 8 a\0F1x8\0", "bad record at byte 7"],
    [
      "a file record with letters after its blocks",
      [{ parent: 0 }],
      "D0 8 a\0F1 8x\0",
      "bad record at byte 7",
    ],
    ["a file record with a name", [{ parent: 0 }], "D0 8 a\0F1 8 x\0", "bad record at byte 7"],
    ["an unknown type", [{ parent: 0 }], "X0 8 a\0", "unknown record type"],
    ["fewer start points than given", [{ parent: 0 }, { parent: 0 }], "D0 8 a\0", "1 start points of 2"],
    ["more start points than given", [{ parent: 0 }], "F0 8\0F0 8\0", "more start points than given"],
    ["a record before any start point", [{ parent: 0 }], "F1 8\0", "record deeper than its directory"],
    [
      "a record deeper than its directory",
      [{ parent: 0 }],
      "D0 8 a\0F2 8\0",
      "record deeper than its directory",
    ],
    [
      "a record deeper than its directory after a file record left it",
      [{ parent: 0 }],
      "D0 8 a\0D1 8 b\0F1 8\0F2 8\0",
      "record deeper than its directory",
    ],
    [
      "below a start point that was a file",
      [{ parent: 0 }],
      "F0 8\0F1 8\0",
      "record deeper than its directory",
    ],
    [
      "a listed directory that is a file now",
      [{ dir: 1 }],
      "F0 8\0",
      "a directory start point is not a directory",
    ],
    ["a last record without its NUL", [{ parent: 0 }], "D0 8 a\0F1 8", "last record not terminated"],
    ["a link record without dev:ino", [{ parent: 0 }], "D0 8 a\0H1 8 x\0", "bad dev:ino"],
  ])("throws on %s", (_name, roots, text, message) => {
    expect(() => parse(roots, text)).toThrow(new Error(`find output: ${message}`));
  });

  it("throws on an empty record at the start of a chunk", () => {
    const p = new FindOutputParser([{ parent: 0 }]);
    p.push(bytes("F0 8\0"));
    expect(() => p.push(bytes("\0"))).toThrow(new Error("find output: bad record at byte 0"));
  });
});

describe("appendFound / countLinks", () => {
  const base = (): DuTree => ({
    hardlinked: 0,
    dirs: [
      { parent: -1, name: "", own: 4096, files: 0 },
      { parent: 0, name: "node_modules", own: 4096, files: 0 },
    ],
  });

  it("appends after the tree's directories, parents first, and counts each link once per run", () => {
    const tree = base();
    const seen = new Map<string, DuTree>();
    const other: DuTree = { hardlinked: 0, dirs: [] };
    seen.set("1:1", other);
    const found = parse(
      [{ parent: 1 }, { parent: 0 }],
      "D0 8 pkg\0H1 8 1:1\0H1 8 1:2\0H1 8 1:2\0F1 8\0F0 16\0",
    );
    appendFound(tree, found, seen);
    expect(tree).toEqual({
      hardlinked: 4096,
      dirs: [
        { parent: -1, name: "", own: 4096, files: 8192 },
        { parent: 0, name: "node_modules", own: 4096, files: 0 },
        // 1:1 counted in another tree already, the second 1:2 is the same file.
        { parent: 1, name: "pkg", own: 4096, files: 4096 + 4096 },
      ],
    });
    expect(seen.get("1:2")).toBe(tree);
    expect(seen.get("1:1")).toBe(other);
  });

  it("countLinks counts in order: the first tree to meet a file keeps it", () => {
    const a = base();
    const b = base();
    const seen = new Map<string, DuTree>();
    countLinks(a, [{ dir: 1, bytes: 512, key: "9:9" }], seen);
    countLinks(b, [{ dir: 1, bytes: 512, key: "9:9" }], seen);
    expect([a.dirs[1]!.files, a.hardlinked, b.dirs[1]!.files, b.hardlinked]).toEqual([512, 512, 0, 0]);
  });
});

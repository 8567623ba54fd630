/**
 * readStateFile and notRegular on the in-memory filesystem: the text of a regular file, null for
 * none, ERR_NOT_REGULAR_FILE worded per kind, and the too-large error (the caller's or the default).
 */
import { describe, expect, it } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import { ArielError } from "../errors.ts";
import { FakeFs } from "../testing/fake_fs.ts";
import { notRegular, readStateFile } from "./state-file.ts";

const P = "/ws/.ariel/leases/t1.json";
const NOT_REGULAR_HINT =
  "ariel's state files are regular files, never links; move it aside (nothing was changed)";

describe("notRegular", () => {
  it.each([
    ["symlink", "a symbolic link"],
    ["dir", "a directory"],
    ["other", "not a regular file"],
    ["file", "not a regular file"],
  ])("%s → “is %s”", (kind, is) => {
    const e = notRegular(P, kind, "lease");
    expect([e.code, e.exit, e.hint, e.message, e.context]).toEqual([
      "ERR_NOT_REGULAR_FILE",
      77,
      NOT_REGULAR_HINT,
      `lease ${P} is ${is}; refusing to read or replace it`,
      { path: P, kind },
    ]);
  });
});

describe("readStateFile", () => {
  it("a regular file: its text and fstat info; none: null", async () => {
    const fs = new FakeFs({ [P]: "{}\n" });
    expect(await readStateFile(fs, P, 3, "lease")).toEqual({
      text: "{}\n",
      info: { kind: "file", size: 3, mtimeMs: 0, mode: 0o644, dev: 1, ino: 0 },
    });
    expect(await readStateFile(fs, "/ws/none.json", 3, "lease")).toBeNull();
  });

  it.each([
    ["a symbolic link", { link: "/ws/elsewhere" }, "symlink"],
    ["a directory", { dir: true } as const, "dir"],
  ] as const)("%s → ERR_NOT_REGULAR_FILE", async (is, entry, kind) => {
    const fs = new FakeFs({ "/ws/elsewhere": "{}" });
    fs.put(P, entry);
    const e = await arielErrorOf(readStateFile(fs, P, 100, "task record"));
    expect([e.code, e.message, e.context]).toEqual([
      "ERR_NOT_REGULAR_FILE",
      `task record ${P} is ${is}; refusing to read or replace it`,
      { path: P, kind },
    ]);
  });

  it("over the bound, no tooLarge: ERR_RECORD_TOO_LARGE (65) with size and bound", async () => {
    const fs = new FakeFs({ [P]: "0123456789" });
    const e = await arielErrorOf(readStateFile(fs, P, 4, "lease"));
    expect([e.code, e.exit, e.hint, e.message, e.context]).toEqual([
      "ERR_RECORD_TOO_LARGE",
      65,
      "records are bounded (64 KiB default, 256 KiB hard)",
      `lease ${P}: 10 bytes exceeds the 4-byte bound`,
      { path: P, size: 10, max: 4 },
    ]);
  });

  it("over the bound with tooLarge: the caller's error, given the size", async () => {
    const fs = new FakeFs({ [P]: "0123456789" });
    const sizes: number[] = [];
    const mine = new ArielError("ERR_RECORD_CORRUPT", "mine");
    const tooLarge = (size: number) => {
      sizes.push(size);
      return mine;
    };
    await expect(readStateFile(fs, P, 4, "lease", tooLarge)).rejects.toBe(mine);
    expect(sizes).toEqual([10]);
  });
});

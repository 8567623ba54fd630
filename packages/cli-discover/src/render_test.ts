import { describe, expect, it } from "vitest";
import { type Row, renderJson, renderNul, renderText } from "./render.ts";

const A = "0123456789abcdef0123456789abcdef01234567";
const rows: Row[] = [
  { name: "api", path: "/ws/api", kind: "checkout", gitDir: "/ws/api/.git", head: A, branch: "main" },
  { name: "tab\tname", path: "/ws/tab\tname", kind: "worktree", gitDir: "/g", head: null, branch: "new" },
  { name: "x", path: "/ws/x", kind: "submodule", gitDir: "/ws/.git/modules/x", head: A, branch: null },
];
const status = { dirty: true, ahead: 2, behind: 0, upstream: "origin/main", fingerprint: "f".repeat(64) };

describe("renderText", () => {
  it("pipes tab-separated lines with '-' for null and escaped cells", () => {
    expect(renderText(rows, false, false)).toBe(
      `api\tcheckout\tmain\t${A}\t/ws/api\n` +
        "tab\\tname\tworktree\tnew\t-\t/ws/tab\\tname\n" +
        `x\tsubmodule\t-\t${A}\t/ws/x\n`,
    );
  });

  it("adds dirty, ahead and behind after the path with --status", () => {
    const withStatus: Row[] = [{ ...(rows[0] as Row), ...status }, rows[2] as Row];
    expect(renderText(withStatus, true, false)).toBe(
      `api\tcheckout\tmain\t${A}\t/ws/api\tdirty\t2\t0\n` + `x\tsubmodule\t-\t${A}\t/ws/x\t-\t-\t-\n`,
    );
  });

  it("prints an aligned table with short heads on a TTY", () => {
    expect(renderText([rows[0] as Row, rows[2] as Row], false, true)).toBe(
      "NAME  KIND       BRANCH      HEAD     PATH\n" +
        "api   checkout   main        0123456  /ws/api\n" +
        "x     submodule  (detached)  0123456  /ws/x\n",
    );
    expect(renderText([{ ...(rows[0] as Row), ...status, head: null }], true, true)).toBe(
      "NAME  KIND      BRANCH  HEAD      DIRTY  AHEAD  BEHIND  PATH\n" +
        "api   checkout  main    (unborn)  dirty  2      0       /ws/api\n",
    );
  });
});

describe("renderJson and renderNul", () => {
  it("writes the contract's fields in order; status fields only with --status", () => {
    expect(renderJson([rows[0] as Row], false)).toBe(
      `{"v":1,"type":"source","name":"api","path":"/ws/api","kind":"checkout","gitDir":"/ws/api/.git","head":"${A}","branch":"main"}\n`,
    );
    expect(renderJson([{ ...(rows[0] as Row), ...status }], true)).toBe(
      `{"v":1,"type":"source","name":"api","path":"/ws/api","kind":"checkout","gitDir":"/ws/api/.git","head":"${A}","branch":"main","dirty":true,"ahead":2,"behind":0,"upstream":"origin/main","fingerprint":"${"f".repeat(64)}"}\n`,
    );
  });

  it("NUL-terminates absolute paths", () => {
    expect(renderNul(rows)).toBe("/ws/api\0/ws/tab\tname\0/ws/x\0");
  });
});

import { describe, expect, it } from "vitest";
import { ProgressLine } from "./progress.ts";

function sink() {
  const out: string[] = [];
  return { out, write: (t: string) => void out.push(t) };
}

describe("ProgressLine", () => {
  it("overwrites one line and erases it at the end", () => {
    const s = sink();
    const p = new ProgressLine(s, true);
    p.report({ index: 1, total: 2, source: "api", action: "creating worktree" });
    p.report({ index: 2, total: 2, source: "web", action: "creating worktree" });
    p.clear();
    p.clear();
    expect(s.out.join("")).toBe(
      "\r\x1b[K[1/2] api: creating worktree\r\x1b[K[2/2] web: creating worktree\r\x1b[K",
    );
  });

  it("writes nothing at all when disabled (a pipe, --json)", () => {
    const s = sink();
    const p = new ProgressLine(s, false);
    p.report({ index: 1, total: 1, source: "api", action: "removing worktree" });
    p.clear();
    expect(s.out).toEqual([]);
  });

  it("a source name cannot drive the terminal", () => {
    const s = sink();
    new ProgressLine(s, true).report({ index: 1, total: 1, source: "a\x1b]0;x\x07", action: "x" });
    expect(s.out.join("")).toBe("\r\x1b[K[1/1] a?]0;x?: x");
  });

  it("a closed stderr loses the line, nothing else", () => {
    const p = new ProgressLine(
      {
        write: () => {
          throw new Error("EPIPE");
        },
      },
      true,
    );
    expect(() => p.report({ index: 1, total: 1, source: "a", action: "x" })).not.toThrow();
  });
});

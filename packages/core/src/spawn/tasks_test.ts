import { describe, expect, it } from "vitest";
import type { ArielError } from "../errors.ts";
import type { SpawnSource } from "./resolve.ts";
import { sourceTaskId, splitTasks } from "./tasks.ts";

const src = (name: string): SpawnSource => ({ name, path: `/w/${name}`, checkout: true });
const names = (slices: ReturnType<typeof splitTasks>) =>
  slices.map((s) => [s.taskId ?? null, s.sources.map((x) => x.name)]);

describe("splitTasks", () => {
  it.each([
    ["one source, generated", ["api"], {}, [[null, ["api"]]]],
    ["one source, pinned", ["api"], { taskId: "fix" }, [["fix", ["api"]]]],
    [
      "fan-out, generated",
      ["api", "web"],
      {},
      [
        [null, ["api"]],
        [null, ["web"]],
      ],
    ],
    [
      "fan-out, pinned",
      ["api", "libs/web"],
      { taskId: "fix" },
      [
        ["fix-api", ["api"]],
        ["fix-libs-web", ["libs/web"]],
      ],
    ],
    [
      "the root in a fan-out",
      [".", "api"],
      { taskId: "p" },
      [
        ["p-root", ["."]],
        ["p-api", ["api"]],
      ],
    ],
    ["--span, generated", ["api", "web"], { span: true }, [[null, ["api", "web"]]]],
    ["--span, pinned", ["api", "web"], { span: true, taskId: "both" }, [["both", ["api", "web"]]]],
  ] as const)("%s", (_, sources, iso, want) => {
    expect(names(splitTasks(sources.map(src), { span: false, ...iso }))).toEqual(want);
  });

  it("a pinned id too long for a source is ERR_INVALID_TASK_ID", () => {
    let err: ArielError | undefined;
    try {
      sourceTaskId("p".repeat(126), "api");
    } catch (e) {
      err = e as ArielError;
    }
    expect(err?.code).toBe("ERR_INVALID_TASK_ID");
  });
});

import { describe, expect, it } from "vitest";
import type { LifecyclePlan, PlannedHook } from "./plan_hooks.ts";
import { lifecyclePlanRecords, lifecyclePlanTables } from "./plan_hooks.ts";
import { printLifecyclePlan } from "./report.ts";

const hook = (over: Partial<PlannedHook>): PlannedHook => ({
  event: "post-create",
  source: "api",
  path: "/ws/.ariel/worktrees/t1/api",
  origin: "workspace",
  file: "/ws/ariel.config.json",
  hook: "npm ci",
  argv: ["sh", "-c", "npm ci"],
  trusted: true,
  ...over,
});
const plan: LifecyclePlan = {
  ports: ["web"],
  portRange: [20000, 29999],
  hooks: [
    hook({}),
    hook({
      origin: "repository",
      file: "/ws/api/ariel.config.json",
      hook: ["make", "setup"],
      argv: ["make", "setup"],
      trusted: false,
      untrusted: "changed",
    }),
  ],
  warnings: [],
};

describe("a lifecycle plan as data", () => {
  it("records: port.lease per name, then hook.run or hook.skip (with why) per hook", () => {
    expect(lifecyclePlanRecords([{ task: "t1", plan }]).map((r) => [r.action, r.name ?? r.reason])).toEqual([
      ["port.lease", "web"],
      ["hook.run", undefined],
      ["hook.skip", "changed"],
    ]);
  });
  it("tables: the trust in a word, the hook as configured; a task without a plan adds nothing", () => {
    expect(
      lifecyclePlanTables([
        { task: "t1", plan },
        { task: "t2", plan: undefined },
      ]),
    ).toEqual([
      { header: ["ACTION", "TASK", "PORT", "RANGE"], rows: [["port", "t1", "web", "20000-29999"]] },
      {
        header: ["ACTION", "TASK", "EVENT", "SOURCE", "TRUST", "FILE", "COMMAND"],
        rows: [
          ["hook", "t1", "post-create", "api", "yours", "/ws/ariel.config.json", "npm ci"],
          [
            "skip-hook",
            "t1",
            "post-create",
            "api",
            "changed",
            "/ws/api/ariel.config.json",
            '["make","setup"]',
          ],
        ],
      },
    ]);
    expect(lifecyclePlanTables([{ task: "t1", plan: { ...plan, ports: [], hooks: [] } }])).toEqual([]);
  });
  it("on a terminal: each table after a blank line, with its header", () => {
    const written: string[] = [];
    const io = {
      out: { record: () => {}, write: (s: string) => void written.push(s) },
      log: { warn: () => {} },
      tty: true,
    };
    printLifecyclePlan(io, false, [{ task: "t1", plan: { ...plan, hooks: [] } }]);
    expect(written.join("")).toBe("\nACTION  TASK  PORT  RANGE\nport    t1    web   20000-29999\n");
  });
});

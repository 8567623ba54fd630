import { describe, expect, it } from "vitest";
import { monitorPaths, runPaths } from "./paths.ts";

describe("run paths", () => {
  it("every file of one run, in its directory under .ariel/runs, and its history beside it", () => {
    const dir = "/ws/.ariel/runs/20261202T110943Z-abc123";
    expect(runPaths("/ws", "20261202T110943Z-abc123")).toEqual({
      dir,
      record: `${dir}/run.json`,
      exit: `${dir}/exit.json`,
      stdout: `${dir}/stdout`,
      stderr: `${dir}/stderr`,
      onExit: `${dir}/on-exit.log`,
      notify: `${dir}/notify.log`,
      attention: `${dir}/attention.json`,
      job: `${dir}/job.json`,
      lock: `${dir}/run.lock`,
      history: "/ws/.ariel/runs/20261202T110943Z-abc123.ndjson",
    });
  });

  it("the workspace monitor's socket, lock and identity in .ariel", () => {
    expect(monitorPaths("/ws")).toEqual({
      socket: "/ws/.ariel/monitor.sock",
      lock: "/ws/.ariel/monitor.lock",
      info: "/ws/.ariel/monitor.json",
    });
  });
});

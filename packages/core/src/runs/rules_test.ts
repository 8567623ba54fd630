import { describe, expect, it } from "vitest";
import { WORKSPACE_HASH_PATTERN, workspaceHash } from "../hash.ts";
import { DEFAULT_KILL_GRACE_MS, KILL_SIGNALS, parseKillSignal } from "./signals.ts";
import {
  EXIT_STATES,
  isExitState,
  RUN_STATES,
  type RunState,
  runIsLive,
  runIsLiveSync,
  runIsOver,
} from "./state.ts";

describe("parseKillSignal: one list, one parser (ariel-runs kill, the fleet's kill)", () => {
  it.each<[unknown, string | null]>([
    [undefined, "SIGTERM"],
    [null, "SIGTERM"],
    ["TERM", "SIGTERM"],
    ["term", "SIGTERM"],
    ["SIGINT", "SIGINT"],
    ["sigkill", "SIGKILL"],
    ["USR2", "SIGUSR2"],
    ["STOP", null],
    ["9", null],
    ["", null],
  ])("%j → %j", (raw, want) => {
    expect(parseKillSignal(raw)).toBe(want);
  });

  it("lists the seven signals and a 10 s default grace", () => {
    expect(KILL_SIGNALS).toEqual(["TERM", "INT", "HUP", "KILL", "QUIT", "USR1", "USR2"]);
    expect(DEFAULT_KILL_GRACE_MS).toBe(10_000);
  });
});

describe("runIsLive: live states, or lost with its group alive", () => {
  it.each<[RunState, boolean, boolean]>([
    ["starting", false, true],
    ["running", false, true],
    ["lost", true, true],
    ["lost", false, false],
    ["exited", true, false],
    ["failed", true, false],
    ["killed", true, false],
    ["crashed", true, false],
  ])("%s with group alive %s → %s", async (state, alive, want) => {
    let asked = 0;
    const groupAlive = () => {
      asked++;
      return alive;
    };
    expect(await runIsLive(state, groupAlive)).toBe(want);
    expect(runIsLiveSync(state, groupAlive)).toBe(want);
    expect(asked).toBe(state === "lost" ? 2 : 0);
  });
});

describe("runIsOver: final, and its group gone", () => {
  it.each<[RunState, boolean, boolean]>([
    ["running", false, false],
    ["starting", false, false],
    ["killed", false, true],
    ["killed", true, false],
    ["lost", true, false],
    ["lost", false, true],
    ["crashed", false, true],
  ])("%s with group alive %s → %s", async (state, alive, want) => {
    expect(await runIsOver(state, () => alive)).toBe(want);
  });
});

describe("exit states", () => {
  it("are the final states an exit records", () => {
    expect(EXIT_STATES).toEqual(["exited", "failed", "killed"]);
    expect(RUN_STATES.filter(isExitState)).toEqual(["exited", "failed", "killed"]);
  });
});

describe("WORKSPACE_HASH_PATTERN", () => {
  it("matches a workspace hash and nothing else", async () => {
    expect(WORKSPACE_HASH_PATTERN.test(await workspaceHash("/some/repo/root"))).toBe(true);
    for (const bad of ["ae89cb2b620ea8f", "ae89cb2b620ea8fcc", "AE89CB2B620EA8FC", "ae89cb2b620ea8fg"])
      expect(WORKSPACE_HASH_PATTERN.test(bad)).toBe(false);
  });
});

// The hand-over between `ariel-spawn --detach`, the monitor and readers (the cases are in
// e2e/runs_handover_cases.ts, shared with the Deno suite).
import { afterEach, describe, it } from "vitest";
import {
  createRefusesBadRecords,
  neverLostWhileTakenOver,
  rmForceWaitsForSettle,
  rmWhileMonitorSettles,
  startedBeforeExited,
  unendableRunIsLogged,
  waitAfterMonitorDiedMidFinish,
  writesToRemovedRunAreLogged,
} from "./e2e/runs_handover_cases.ts";
import { cleanUp } from "./runs_helpers.ts";

afterEach(cleanUp);

describe("spawn --detach: the monitor takes a run over", () => {
  it(
    "a child that exits at once: its history says process.started before process.exited",
    startedBeforeExited,
  );
  it(
    "while the monitor has not taken a run over, no reader sees it lost; once spawn returns it is running",
    neverLostWhileTakenOver,
  );
});

describe("the monitor's create request", () => {
  it(
    "writes no record that is not a new local run of its workspace, and starts nothing",
    createRefusesBadRecords,
  );
});

describe("wait when the monitor dies between exit.json and the rest of run.json", () => {
  it(
    "finishes with the status exit.json records instead of waiting for endedAt forever",
    waitAfterMonitorDiedMidFinish,
  );
});

describe("rm while the monitor settles an ended run (its worktree, hook, run.finished)", () => {
  it(
    "is refused (3, ERR_RUN_LIVE) and removes nothing; once settled the kept worktree is recorded and rm succeeds",
    rmWhileMonitorSettles,
  );
  it("rm --force waits for the monitor to settle it, then removes it", rmForceWaitsForSettle);
  it(
    "a run removed under its monitor: each failed write is logged once (run, step, code), nothing is recreated",
    writesToRemovedRunAreLogged,
  );
});

describe("a run the monitor cannot end after its child exited", () => {
  it(
    "(its restart cannot start, its lock is broken): said once as step end, then lost",
    unendableRunIsLogged,
  );
});

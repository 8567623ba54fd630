// The hand-over between `ariel-spawn --detach`, the monitor and readers under Deno (the cases
// are in ../e2e/runs_handover_cases.ts, shared with runs-handover.test.ts). Run:
// node_modules/.bin/deno test -A test/deno/runs_handover_test.ts
import {
  createRefusesBadRecords,
  neverLostWhileTakenOver,
  rmForceWaitsForSettle,
  rmWhileMonitorSettles,
  startedBeforeExited,
  unendableRunIsLogged,
  waitAfterMonitorDiedMidFinish,
  writesToRemovedRunAreLogged,
} from "../e2e/runs_handover_cases.ts";
import { runsTest as test } from "./runs_deno.ts";

test("a child that exits at once: process.started before process.exited", startedBeforeExited);
test("while the monitor takes a run over, no reader sees it lost", neverLostWhileTakenOver);
test("wait when the monitor died between exit.json and endedAt", waitAfterMonitorDiedMidFinish);
test("the monitor writes no record that is not a new local run of its workspace", createRefusesBadRecords);
test("rm while the monitor settles an ended run is refused; after it, rm succeeds", rmWhileMonitorSettles);
test("rm --force waits for the monitor to settle an ended run, then removes it", rmForceWaitsForSettle);
test(
  "a run removed under its monitor: each failed write is logged once, nothing recreated",
  writesToRemovedRunAreLogged,
);
test(
  "a run the monitor cannot end after its child exited: said once as step end, then lost",
  unendableRunIsLogged,
);

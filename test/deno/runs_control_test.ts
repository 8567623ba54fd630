// Background runs under Deno, the cases of test/runs*.test.ts about terminals, races, attach and
// scale (1, 5, 7, 9, 13) and a failed respawn (6): the scenarios of test/e2e/runs_cases.ts, which
// hold the Node tests' assertions. Run: node_modules/.bin/deno test -A test/deno/runs_control_test.ts
import {
  attachFromSeq,
  attachLate,
  fiftyDetachedRuns,
  killRacingExit,
  killRespawnRmAtOnce,
  respawnWithoutItsSource,
  sighupToTheSession,
} from "../e2e/runs_cases.ts";
import { runsTest as test } from "./runs_deno.ts";

test("case 1: the CLI's session gets SIGHUP: the run completes and records its exit", sighupToTheSession);
test("case 5: kill racing a natural exit: exactly one final state, the first, everywhere", killRacingExit);
test(
  "case 7: kill, respawn and rm of one run at once: serialized; one final state, no survivor",
  killRespawnRmAtOnce,
);
test(
  "case 6: a respawn that cannot start (its source is gone) leaves the original running",
  respawnWithoutItsSource,
);
test(
  "case 9: attach late replays from the start, goes live with no gap or duplicate, forwards stdin",
  attachLate,
);
test(
  "case 9: attach --from SEQ replays from that sequence; Ctrl-C detaches and the run goes on",
  attachFromSeq,
);
test(
  "case 13: 50 detached runs by 50 separate calls: one monitor, none lost, list correct",
  fiftyDetachedRuns,
);

// `--on-exit` hooks bounded by `--on-exit-timeout` under Deno: the scenarios of
// test/e2e/runs_hook_cases.ts, which hold the Node tests' assertions.
// Run: node_modules/.bin/deno test -A test/deno/runs_hook_test.ts
import { hangingHookIsStopped, quickHookEnds, termProofHookIsKilled } from "../e2e/runs_hook_cases.ts";
import { runsTest as test } from "./runs_deno.ts";

test(
  "a hook sleeping for a day is stopped after 2 s; run.finished is written and rm works",
  hangingHookIsStopped,
);
test("a hook that ignores SIGTERM is killed after --grace", termProofHookIsKilled);
test("a hook that ends in time is left alone", quickHookEnds);

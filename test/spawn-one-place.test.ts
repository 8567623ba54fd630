/**
 * One agent, one place (issue 19, decision 0055): a task has one agent unless `--join`, a
 * checkout one detached agent unless `--shared`, a fan-out one task per source, a start failure
 * is immediate, and spawn without `--source` works in the source the user stands in.
 */
import { afterEach, describe, it } from "vitest";
import { startFailureIsImmediate } from "./e2e/one_place_cases.ts";
import { cleanUp } from "./runs_helpers.ts";

afterEach(() => cleanUp());

describe("a start failure is immediate", () => {
  it("spawn --detach --isolate of a missing command: 127, the message, its clean worktree removed", async () => {
    await startFailureIsImmediate();
  });
});

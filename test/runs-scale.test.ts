import { afterEach, describe, it } from "vitest";
import { attachFromSeq, attachLate, fiftyDetachedRuns } from "./e2e/runs_cases.ts";
import { cleanUp } from "./runs_helpers.ts";

// The bodies are shared with the Deno suite (test/e2e/runs_cases.ts).
afterEach(cleanUp);

describe("ariel-runs attach (case 9)", () => {
  it(
    "late: replays from the start, goes live with no gap and no duplicate, forwards stdin to an --interactive run",
    attachLate,
  );

  it("--from SEQ replays from that sequence; Ctrl-C detaches and the run goes on", attachFromSeq);
});

describe("many runs (case 13)", () => {
  it(
    "50 detached runs started by 50 separate calls: all tracked by one monitor, none lost, list correct",
    fiftyDetachedRuns,
  );
});

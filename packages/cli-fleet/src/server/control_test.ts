import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { KILL_SIGNALS } from "@ariel/core";
import { createRun, writeExitOnce } from "@ariel/core/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFields } from "../../../core/src/host/runs/_fixture.ts";
import { type FleetWorld, fleetWorld, historyLine, json, NO_RUN, RUN, writeHistory } from "./_app_fixture.ts";
import { type RunControl, runControl } from "./control.ts";

// The real RunControl behind the app: what it checks of a request's body, and what it refuses,
// before anything is started or signalled. Runs started and killed for real (the built bins)
// are test/fleet-api.test.ts's.

/** A detached run that ended (status 0) before the test: its run.json and exit record, no process. */
const ENDED = "20261202T110200Z-dddddd";
/** A detached run that is not interactive, with no monitor and no process. */
const PLAIN = "20261202T110300Z-eeeeee";

let w: FleetWorld;
let control: RunControl;
const warnings: [string, string][] = [];

async function detachedRun(w: FleetWorld, runId: string, ended: boolean): Promise<void> {
  mkdirSync(join(w.ws, ".ariel/runs", runId), { recursive: true });
  await createRun(w.ws, runFields(w.known, runId));
  writeHistory(
    w.ws,
    runId,
    historyLine(runId, 0, { event: "run.started", argv: ["agent", "--go"], mode: "detached" }),
  );
  if (!ended) return;
  await writeExitOnce(w.ws, {
    v: 1,
    type: "exit",
    runId,
    code: 0,
    signal: null,
    status: 0,
    endedAt: "2026-12-02T11:10:00.000Z",
    state: "exited",
    reason: null,
  });
}

beforeAll(async () => {
  control = runControl(process.env, (message, runId) => warnings.push([message, runId]));
  w = await fleetWorld({ control });
  await detachedRun(w, ENDED, true);
  await detachedRun(w, PLAIN, false);
});
afterAll(async () => {
  await control.settled();
  w.dispose();
});

const bad = (message: string) => ({
  v: 1,
  type: "error",
  code: "ERR_INVALID_INPUT",
  message,
  hint: "see the API reference in docs/fleet.md",
  exit: 65,
});

describe("a foreground run cannot be controlled from the API", () => {
  it.each([
    ["kill", "killed"],
    ["respawn", "respawned"],
    ["input", "written to"],
  ])("POST …/%s is 409 ERR_REFUSED", async (action, what) => {
    const res = await json(await w.post(`/api/runs/${RUN}/${action}`, '{"data":"x"}'));
    expect(res).toEqual({
      status: 409,
      body: {
        v: 1,
        type: "error",
        code: "ERR_REFUSED",
        message: `run ${RUN} is a foreground ariel-spawn: it cannot be ${what} from here`,
        hint: "stop it where it runs (Ctrl-C); start runs with ariel-spawn --detach to control them from the fleet",
        exit: 3,
        runId: RUN,
      },
    });
  });

  it.each(["kill", "respawn", "input"])("POST …/%s of an unknown run is 404", async (action) => {
    const res = await json(await w.post(`/api/runs/${NO_RUN}/${action}`, "{}"));
    expect([res.status, (res.body as { code: string }).code]).toEqual([404, "ERR_RUN_NOT_FOUND"]);
  });
});

describe("kill", () => {
  const signals = KILL_SIGNALS.join(", ");
  it.each([
    ['{"signal":"SIGFOO"}', bad(`unknown signal "SIGFOO"; signals: ${signals}`)],
    ['{"signal":9}', bad(`unknown signal "9"; signals: ${signals}`)],
    ['{"graceMs":-1}', bad("graceMs must be a whole number of milliseconds (0 to 3600000)")],
    ['{"graceMs":1.5}', bad("graceMs must be a whole number of milliseconds (0 to 3600000)")],
    ['{"graceMs":"5"}', bad("graceMs must be a whole number of milliseconds (0 to 3600000)")],
    ['{"graceMs":3600001}', bad("graceMs must be a whole number of milliseconds (0 to 3600000)")],
  ])("%s is 400 and signals nothing", async (body, error) => {
    expect(await json(await w.post(`/api/runs/${PLAIN}/kill`, body))).toEqual({ status: 400, body: error });
  });

  it("of a run that has ended: 202 with its view, nothing to signal or wait for", async () => {
    const res = await json(await w.post(`/api/runs/${ENDED}/kill`, '{"signal":"TERM","graceMs":3600000}'));
    expect(res).toMatchObject({
      status: 202,
      body: { v: 1, type: "run", runId: ENDED, kind: "detached", state: "exited", status: 0 },
    });
    let waited: number | null = null;
    await control.settled((n) => {
      waited = n;
    });
    expect([waited, warnings]).toEqual([null, []]);
  });
});

describe("input", () => {
  it.each([
    ["{}", "data must be a string"],
    ['{"data":5}', "data must be a string"],
    ['{"data":null}', "data must be a string"],
  ])("%s is 400", async (body, message) => {
    expect(await json(await w.post(`/api/runs/${PLAIN}/input`, body))).toEqual({
      status: 400,
      body: bad(message),
    });
  });

  it("to a run started without --interactive or --tty is 409", async () => {
    expect(await json(await w.post(`/api/runs/${PLAIN}/input`, '{"data":"x\\n"}'))).toEqual({
      status: 409,
      body: {
        v: 1,
        type: "error",
        code: "ERR_REFUSED",
        message: `run ${PLAIN} was not started with --interactive or --tty`,
        hint: "start it with ariel-spawn --detach --interactive or --tty (or interactive: true in the API)",
        exit: 3,
      },
    });
  });
});

describe("respawn", () => {
  it("a bad graceMs is 400", async () => {
    const res = await json(await w.post(`/api/runs/${ENDED}/respawn`, '{"graceMs":-5}'));
    expect(res).toEqual({
      status: 400,
      body: bad("graceMs must be a whole number of milliseconds (0 to 3600000)"),
    });
  });
});

describe("spawn: the body is checked before anything starts", () => {
  it.each([
    ["no argv", "{}", "argv must be an array of strings"],
    ["argv a string", '{"argv":"true"}', "argv must be an array of strings"],
    ["an empty argv", '{"argv":[]}', "argv must name a command"],
    ["argv not strings", '{"argv":[1]}', "argv must be an array of strings"],
    ["a source number", '{"argv":["true"],"source":5}', "source must be an array of strings"],
    ["sources not strings", '{"argv":["true"],"source":["api",1]}', "source must be an array of strings"],
    ["a name number", '{"argv":["true"],"name":5}', "name must be a string"],
    ["shared a string", '{"argv":["true"],"shared":"yes"}', "shared must be a boolean"],
    ["isolate a number", '{"argv":["true"],"isolate":1}', "isolate must be a boolean"],
    ["sandbox null", '{"argv":["true"],"sandbox":null}', "sandbox must be a boolean"],
    ["sandboxNet off", '{"argv":["true"],"sandboxNet":"off"}', 'sandboxNet must be "on" or "none"'],
  ])("%s is 400", async (_n, body, message) => {
    const res = await json(await w.post(`/api/workspaces/${w.known.hash}/runs`, body));
    expect(res).toEqual({ status: 400, body: bad(message) });
  });

  it.each([
    ["an unknown source", '{"argv":["true"],"source":"nope"}', 404, "ERR_SOURCE_NOT_FOUND"],
    ["a source outside the workspace", '{"argv":["true"],"source":"../../etc"}', 403, "ERR_PATH_ESCAPE"],
    ["a bad run name", '{"argv":["true"],"name":"a b"}', 400, "ERR_INVALID_NAME"],
  ])("%s is %s %s", async (_n, body, status, code) => {
    const res = await json(await w.post(`/api/workspaces/${w.known.hash}/runs`, body));
    expect([res.status, (res.body as { code: string }).code]).toEqual([status, code]);
  });
});

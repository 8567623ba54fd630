import type { CursoredEvent } from "@ariel/core/host";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  BASE,
  type FleetWorld,
  fleetWorld,
  HOST,
  historyLine,
  json,
  RUN,
  writeHistory,
} from "./_app_fixture.ts";
import type { StreamResult } from "./_subscriber.ts";
import { followFleetShared } from "./events_hub.ts";
import { followShared } from "./run_hub.ts";

// More of the stream routes (streams.ts): which reader a run's stream uses (a live run's shared
// one, a finished run's replay alone), what closes a stream after the shared reader ends it
// (`end`, `overflow` with the cursor to resume from, or nothing), which output mode the fleet
// stream asks for, and the one-pass reads that must not wait on a run whose process lives.
// The shared readers are the real ones unless a test puts a fake in for one call.

vi.mock("./run_hub.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("./run_hub.ts")>();
  return { ...real, followShared: vi.fn(real.followShared) };
});
vi.mock("./events_hub.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("./events_hub.ts")>();
  return { ...real, followFleetShared: vi.fn(real.followFleetShared) };
});

let w: FleetWorld;
beforeAll(async () => {
  w = await fleetWorld();
});
afterAll(() => w.dispose());
afterEach(() => {
  vi.mocked(followShared).mockClear();
  vi.mocked(followFleetShared).mockClear();
});

let runs = 0;
/** A new foreground run of `w` whose ariel-spawn is this process: started, then `more` lines. */
function liveRun(...more: Record<string, unknown>[]): string {
  const id = `20261202T1102${String(runs++).padStart(2, "0")}Z-dddddd`;
  const started = { event: "run.started", argv: ["x"], targets: ["api"], pid: process.pid };
  writeHistory(w.ws, id, [started, ...more].map((f, s) => historyLine(id, s, f)).join(""));
  return id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The response to GET `path`, within a bound (then the request is aborted and this throws). */
async function getBounded(path: string): Promise<Response> {
  const ctl = new AbortController();
  const req = new Request(`${BASE}${path}`, { headers: { host: HOST }, signal: ctl.signal });
  let res: Response | null = null;
  let failed: unknown = null;
  w.fetch(req).then(
    (r) => {
      res = r;
    },
    (e) => {
      failed = e ?? "failed";
    },
  );
  for (let i = 0; i < 300 && res === null && failed === null; i++) await sleep(10);
  ctl.abort();
  if (res === null) throw failed ?? new Error(`no answer to ${path} in time`);
  return res;
}

/** An SSE response's whole text, its keep-alive comments left out. */
const sseText = async (res: Response) => (await res.text()).replaceAll(": \n\n", "");

const frame = (id: string | null, event: string, data: unknown) =>
  `${id === null ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** An event as a fake shared reader hands it on. */
const cursored = (event: string, seq: number, cursor: string): CursoredEvent =>
  ({ event: { v: 1, type: "event", event, seq }, cursor }) as unknown as CursoredEvent;

type Ending = { end: StreamResult["end"]; cursor: string | null };

/** A fake run reader for one call: one batch, then it ends as `ending` says. */
function fakeRunReader(ending: Ending): void {
  vi.mocked(followShared).mockImplementationOnce(async function* (_ws, _run, _from, _signal, result) {
    yield [cursored("run.state", 2, "2")];
    Object.assign(result, ending);
  });
}

describe("GET /api/runs/{id}/stream: the reader", () => {
  it("a finished run's replay is read alone, not by the shared reader", async () => {
    const res = await w.get(`/api/runs/${RUN}/stream?from=6`);
    expect(await sseText(res)).toContain("event: end\n");
    expect(followShared).not.toHaveBeenCalled();
  });

  it("a live run is read by the shared reader, from the request's cursor", async () => {
    const id = liveRun();
    fakeRunReader({ end: "ended", cursor: null });
    const res = await w.get(`/api/runs/${id}/stream?from=1`);
    expect(await sseText(res)).toBe(
      `retry: 1000\n\n${frame("2", "run.state", { v: 1, type: "event", event: "run.state", seq: 2 })}${frame(null, "end", { runId: id })}`,
    );
    expect(vi.mocked(followShared).mock.calls[0]![2]).toEqual({ seq: 1, stdout: 0, stderr: 0 });
  });
});

describe("GET /api/runs/{id}/stream of a live run: how it closes", () => {
  const first = frame("2", "run.state", { v: 1, type: "event", event: "run.state", seq: 2 });

  it("stopped (the shared reader failed): the stream just closes, no end (the client resumes)", async () => {
    const id = liveRun();
    fakeRunReader({ end: "stopped", cursor: null });
    const res = await w.get(`/api/runs/${id}/stream`);
    expect([res.status, await sseText(res)]).toEqual([200, `retry: 1000\n\n${first}`]);
  });

  it("overflow: a last message overflow with the cursor to resume from, as its id too", async () => {
    const id = liveRun();
    fakeRunReader({ end: "overflow", cursor: "2.5.0" });
    const res = await w.get(`/api/runs/${id}/stream`);
    expect(await sseText(res)).toBe(
      `retry: 1000\n\n${first}${frame("2.5.0", "overflow", { runId: id, cursor: "2.5.0" })}`,
    );
  });
});

describe("one pass over a run whose process lives", () => {
  it("GET …/events of a live run: the events so far, at once", async () => {
    const id = liveRun({ event: "run.state", from: "starting", to: "running" });
    const { status, body } = await json(await getBounded(`/api/runs/${id}/events`));
    expect([status, (body as { seq: number; event: string }[]).map((e) => `${e.event}@${e.seq}`)]).toEqual([
      200,
      ["run.started@1", "run.state@2"],
    ]);
  });

  it("GET …/stream of a finished run with nothing after the cursor is 204 at once, its ariel-spawn alive", async () => {
    const id = liveRun(
      { event: "run.exited", code: 0, signal: null, status: 0 },
      { event: "run.state", from: "starting", to: "exited" },
    );
    const res = await getBounded(`/api/runs/${id}/stream?from=3`);
    expect([res.status, await res.text()]).toEqual([204, ""]);
  });
});

describe("GET /api/events/stream", () => {
  /** A fake fleet reader for one call: `batch`, then it ends as `ending` says. */
  function fakeFleetReader(batch: CursoredEvent[], ending: Ending): void {
    vi.mocked(followFleetShared).mockImplementationOnce(async function* (_k, _c, _o, _s, result) {
      yield batch;
      Object.assign(result, ending);
    });
  }
  const data = (event: string, seq: number) => ({ v: 1, type: "event", event, seq });

  it("overflow: the events, then overflow with the cursor (no runId), as its id too", async () => {
    fakeFleetReader([cursored("run.state", 2, "c;x/y:2")], { end: "overflow", cursor: "c;x/y:2" });
    const res = await w.get("/api/events/stream");
    expect(await sseText(res)).toBe(
      `retry: 1000\n\n${frame("c;x/y:2", "run.state", data("run.state", 2))}${frame("c;x/y:2", "overflow", { cursor: "c;x/y:2" })}`,
    );
  });

  it("stopped: the events the filter keeps, then the stream just closes", async () => {
    const batch = [cursored("output", 1, "c1"), cursored("run.state", 2, "c2")];
    fakeFleetReader(batch, { end: "stopped", cursor: null });
    const res = await w.get("/api/events/stream?event=run.state");
    expect(await sseText(res)).toBe(`retry: 1000\n\n${frame("c2", "run.state", data("run.state", 2))}`);
  });

  it.each([
    ["", true],
    ["?event=output", true],
    ["?event=run.state,output", true],
    ["?event=run.state", false],
    ["?event=run.*", false],
  ])("%s: the shared reader reads output files: %s", async (query, output) => {
    fakeFleetReader([], { end: "stopped", cursor: null });
    const res = await w.get(`/api/events/stream${query}`);
    expect(await sseText(res)).toBe("retry: 1000\n\n");
    expect(vi.mocked(followFleetShared).mock.calls[0]![2]).toBe(output);
  });
});

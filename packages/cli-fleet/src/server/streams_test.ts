import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at, type FleetWorld, fleetWorld, historyLine, json, RUN, writeHistory } from "./_app_fixture.ts";
import { SECURITY_HEADERS } from "./guard.ts";

// A run's events (as an array and as SSE) and the fleet's event stream, from the app in this
// process over a run history written here: every frame's id, event and data, and where a
// resumed stream starts. Live runs of real processes are test/fleet-api.test.ts.

let w: FleetWorld;
beforeAll(async () => {
  // The app's clock: the fleet stream starts at the world run's last event (at(6)) by default.
  w = await fleetWorld({ now: () => Date.parse(at(6)) });
});
afterAll(() => w.dispose());

/** The world run's events as the API gives them: seq 1 to 7, the credential gone. */
function runEvents(hash: string): Record<string, unknown>[] {
  const ev = (seq: number, event: string, fields: Record<string, unknown>) => ({
    v: 1,
    type: "event",
    event,
    ts: at(seq - 1),
    workspace: hash,
    runId: RUN,
    seq,
    source: "api",
    ...fields,
  });
  return [
    ev(1, "run.started", { argv: ["make", "test"], targets: ["api"] }),
    ev(2, "run.state", { from: "starting", to: "running" }),
    ev(3, "output", { stream: "stdout", data: "one\n" }),
    ev(4, "output", { stream: "stderr", data: "two\n" }),
    ev(5, "output", { stream: "stdout", data: "https://example.com/r.git\n" }),
    ev(6, "run.exited", { code: 0, signal: null, status: 0 }),
    ev(7, "run.state", { from: "running", to: "exited" }),
  ];
}

/** One SSE message as the wire has it. */
const frame = (id: string | null, event: string, data: unknown) =>
  `${id === null ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A finished run's whole stream from after `seq`: retry, each event with its seq as id, end. */
const replay = (hash: string, after: number) =>
  `retry: 1000\n\n${runEvents(hash)
    .slice(after)
    .map((e) => frame(String(e.seq), e.event as string, e))
    .join("")}${frame(null, "end", { runId: RUN })}`;

/** Read an SSE body until `enough` says so (then cancel it) or it ends; the text read. */
async function readSse(res: Response, enough: (text: string) => boolean = () => false): Promise<string> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = "";
  for (;;) {
    const r = await reader.read();
    if (r.done) return text;
    text += dec.decode(r.value, { stream: true });
    if (enough(text)) {
      await reader.cancel();
      return text;
    }
  }
}

/** The event frames of a fleet stream's text (its `retry:` and keep-alive comments left out). */
const framesOf = (text: string) => text.split("\n\n").filter((f) => f.startsWith("id: "));

describe("GET /api/runs/{id}/events", () => {
  it.each([
    ["", {}, 0],
    ["?from=", {}, 0],
    ["?from=0", {}, 0],
    ["?from=5", {}, 5],
    ["?from=7", {}, 7],
    ["?from=99", {}, 7],
    ["", { "last-event-id": "5" }, 0],
  ])(
    "%s %j: the events after that seq (Last-Event-ID is the stream's, not this)",
    async (query, headers, after) => {
      const res = await w.get(`/api/runs/${RUN}/events${query}`, headers);
      expect(await json(res)).toEqual({ status: 200, body: runEvents(w.known.hash).slice(after) });
    },
  );

  it.each(["-1", "x", "1.2"])("from=%s is 400", async (from) => {
    const message = `from must be a sequence number (or SEQ.STDOUT.STDERR), not "${from}"`;
    expect(await json(await w.get(`/api/runs/${RUN}/events?from=${from}`))).toEqual({
      status: 400,
      body: {
        v: 1,
        type: "error",
        code: "ERR_USAGE",
        message,
        hint: "run with --help to see the flags",
        exit: 64,
      },
    });
  });
});

describe("GET /api/runs/{id}/stream of a finished run", () => {
  it("replays every event with its seq as id, then end, and closes; SSE headers and the security ones", async () => {
    const res = await w.get(`/api/runs/${RUN}/stream`);
    expect(Object.fromEntries(res.headers)).toEqual({
      ...SECURITY_HEADERS,
      "content-type": "text/event-stream; charset=utf-8",
      "x-accel-buffering": "no",
    });
    expect([res.status, await readSse(res)]).toEqual([200, replay(w.known.hash, 0)]);
  });

  it.each([
    ["?from=5", {}, 5],
    ["", { "last-event-id": "5" }, 5],
    ["?from=6", { "last-event-id": "2" }, 6],
    ["?from=", {}, 0],
    ["?from=0", {}, 0],
  ])("%s %j resumes after that seq (from before Last-Event-ID)", async (query, headers, after) => {
    const res = await w.get(`/api/runs/${RUN}/stream${query}`, headers);
    expect([res.status, await readSse(res)]).toEqual([200, replay(w.known.hash, after)]);
  });

  it.each([
    ["?from=7", {}],
    ["", { "last-event-id": "7" }],
    ["?from=12", {}],
  ])("%s %j: nothing after it is 204 with no body (EventSource stops)", async (query, headers) => {
    const res = await w.get(`/api/runs/${RUN}/stream${query}`, headers);
    expect([res.status, await res.text(), res.headers.get("x-frame-options")]).toEqual([204, "", "DENY"]);
  });

  it.each([
    ["?from=x", {}, 'from must be a sequence number (or SEQ.STDOUT.STDERR), not "x"'],
    [
      "",
      { "last-event-id": "-2" },
      'Last-Event-ID must be a sequence number (or SEQ.STDOUT.STDERR), not "-2"',
    ],
  ])("%s %j: a bad cursor is 400", async (query, headers, message) => {
    expect(await json(await w.get(`/api/runs/${RUN}/stream${query}`, headers))).toEqual({
      status: 400,
      body: {
        v: 1,
        type: "error",
        code: "ERR_USAGE",
        message,
        hint: "run with --help to see the flags",
        exit: 64,
      },
    });
  });
});

describe("GET /api/runs/{id}/stream of a live run", () => {
  it("follows the history as it grows, then end once the run's closing events are written", async () => {
    const live = await fleetWorld();
    try {
      await followLive(live);
    } finally {
      live.dispose();
    }
  });
});

/**
 * A foreground run of `w` whose ariel-spawn is this process (live until its closing events):
 * its stream gives its first event, and the rest once they are written, then end.
 */
async function followLive(w: FleetWorld): Promise<void> {
  const id = "20261202T110100Z-bbbbbb";
  const line = (s: number, f: Record<string, unknown>) => historyLine(id, s, f);
  const first = { event: "run.started", argv: ["x"], targets: ["api"], pid: process.pid };
  writeHistory(w.ws, id, line(0, first));
  const view = (await json(await w.get(`/api/runs/${id}`))).body;
  expect(view).toMatchObject({ state: "starting", lastSeq: 1 });
  const res = await w.get(`/api/runs/${id}/stream`);
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = "";
  while (!text.includes("\n\n", "retry: 1000\n\n".length)) text += dec.decode((await reader.read()).value);
  const exited = { event: "run.exited", code: 1, signal: null, status: 1 };
  const failed = { event: "run.state", from: "starting", to: "failed" };
  writeHistory(w.ws, id, line(1, exited) + line(2, failed));
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += dec.decode(r.value);
  const ev = (seq: number, fields: Record<string, unknown>) => {
    const { event, ...rest } = fields;
    const data = {
      v: 1,
      type: "event",
      event,
      ts: at(seq - 1),
      workspace: w.known.hash,
      runId: id,
      seq,
      source: "api",
      ...rest,
    };
    return frame(String(seq), event as string, data);
  };
  // (Keep-alive comments, if any, are no messages.)
  expect(text.replaceAll(": \n\n", "")).toBe(
    `retry: 1000\n\n${ev(1, first)}${ev(2, exited)}${ev(3, failed)}${frame(null, "end", { runId: id })}`,
  );
}

describe("GET /api/events/stream", () => {
  const hash = () => w.known.hash;
  /** The fleet cursor of the world run at `seq`, for a stream that started at `start` (base 36 ms). */
  const cursor = (start: string, seq: number) => `${start};${hash()}/${RUN}:${seq}`;
  const SINCE_2000 = "c2wfoqo0"; // 2000-01-01T00:00:00Z
  const event = (seq: number) => runEvents(hash())[seq - 1]!;

  it("?since=&event=: only those events, each with a fleet cursor as id", async () => {
    const res = await w.get("/api/events/stream?since=2000-01-01T00:00:00Z&event=run.state,run.exited");
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const text = await readSse(res, (t) => framesOf(t).length >= 3);
    expect(text.startsWith("retry: 1000\n\n")).toBe(true);
    expect(framesOf(text).map((f) => `${f}\n\n`)).toEqual([
      frame(cursor(SINCE_2000, 2), "run.state", event(2)),
      frame(cursor(SINCE_2000, 6), "run.exited", event(6)),
      frame(cursor(SINCE_2000, 7), "run.state", event(7)),
    ]);
  });

  it("?event= takes globs: run.* is every run event, output none of them", async () => {
    const res = await w.get("/api/events/stream?since=2000-01-01T00:00:00Z&event=run.*,,");
    const text = await readSse(res, (t) => framesOf(t).length >= 4);
    expect(framesOf(text).map((f) => f.split("\n")[1])).toEqual([
      "event: run.started",
      "event: run.state",
      "event: run.exited",
      "event: run.state",
    ]);
  });

  it.each([
    ["?from=CURSOR", {}],
    ["", { "last-event-id": "CURSOR" }],
    ["?since=2000-01-01T00:00:00Z&from=CURSOR", {}],
  ])("%s %j resumes right after the cursor's event", async (query, headers: Record<string, string>) => {
    const after = encodeURIComponent(cursor(SINCE_2000, 5));
    const res = await w.get(
      `/api/events/stream${query.replace("CURSOR", after)}`,
      Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k, v.replace("CURSOR", cursor(SINCE_2000, 5))]),
      ),
    );
    const text = await readSse(res, (t) => framesOf(t).length >= 1);
    expect(`${framesOf(text)[0]}\n\n`).toBe(frame(cursor(SINCE_2000, 6), "run.exited", event(6)));
  });

  it.each([
    ["?since=2026-12-02T11:00:05Z", "mx60l0qw", 6],
    ["", "mx60l1io", 7],
  ])("%s: the events at or after that time (default: the app's now)", async (query, start, seq) => {
    const text = await readSse(await w.get(`/api/events/stream${query}`), (t) => framesOf(t).length >= 1);
    expect(`${framesOf(text)[0]}\n\n`).toBe(
      frame(cursor(start, seq), event(seq).event as string, event(seq)),
    );
  });

  it.each([
    ["?from=x%3By", '"x;y" is not an event cursor'],
    ["?since=yesterday", 'since "yesterday" is not a time'],
    ["?event=nope", 'no event "nope"'],
  ])("%s is 400", async (query, message) => {
    const res = await json(await w.get(`/api/events/stream${query}`));
    expect(res).toMatchObject({
      status: 400,
      body: { v: 1, type: "error", code: "ERR_USAGE", message, exit: 64 },
    });
  });
});

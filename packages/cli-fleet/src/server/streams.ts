import { FINAL_STATES, type FleetEvent, type RunCursor } from "@ariel/core";
import { followRun, followRunBatches, type KnownWorkspace, type LoadedRun } from "@ariel/core/host";
import type { Context } from "hono";
import { followFleetShared } from "./events_hub.ts";
import type { Lookup } from "./lookup.ts";
import { eventFilterOf, fleetCursorOf, runCursorOf } from "./request.ts";
import { followShared } from "./run_hub.ts";
import { type SseItem, sseResponse } from "./sse.ts";

/** Whether a run has nothing after `from` (one pass over what is there). */
async function nothingAfter(ws: KnownWorkspace, run: LoadedRun, from: RunCursor): Promise<boolean> {
  for await (const _ of followRun(ws, run, from, new AbortController().signal, true)) return false;
  return true;
}

/** `GET /api/runs/{id}/events?from=`: what the stream would replay, as one array. */
export async function runEvents(c: Context, find: Lookup): Promise<Response> {
  const from = runCursorOf(c, false);
  const { ws, run } = await find.runOf(c.req.param("id")!);
  const events: FleetEvent[] = [];
  for await (const { event } of followRun(ws, run, from, c.req.raw.signal, true)) events.push(event);
  return c.json(events);
}

/** `GET /api/runs/{id}/stream`: SSE from the cursor, live until the run ends, then `end`. */
export async function runStream(c: Context, find: Lookup): Promise<Response> {
  const from = runCursorOf(c, true);
  const { ws, run } = await find.runOf(c.req.param("id")!);
  // A finished run with nothing after the cursor: 204 tells EventSource to stop reconnecting.
  if (FINAL_STATES.has(run.view.state) && (await nothingAfter(ws, run, from))) return c.body(null, 204);
  // A live run's clients share one reader (a finished run's replay is read by each client alone).
  const live = !FINAL_STATES.has(run.view.state);
  return sseResponse(async function* (signal): AsyncGenerator<SseItem[]> {
    const result = { ended: true };
    const source = live
      ? followShared(ws, run, from, signal, result)
      : followRunBatches(ws, run, from, signal);
    for await (const batch of source) {
      yield batch.map(({ event, cursor }) => ({ id: cursor, event: event.event, data: event }));
    }
    // Without `end` (a client that fell behind), the client reconnects and resumes.
    if (!signal.aborted && result.ended) yield [{ event: "end", data: { runId: run.view.runId } }];
  }, c.req.raw.signal);
}

/** `GET /api/events/stream`: every workspace's events (detached runs' output too) as SSE, never ending. */
export function eventsStream(c: Context, find: Lookup, nowMs: number): Response {
  const cursor = fleetCursorOf(c, nowMs);
  const only = eventFilterOf(c);
  // A reader that drops output does not make the server read every detached run's output files.
  const output = only === null || only.has("output");
  return sseResponse(async function* (signal): AsyncGenerator<SseItem[]> {
    // Every client of the same output mode shares one reader of the fleet's files.
    for await (const batch of followFleetShared(find.known, cursor, output, signal)) {
      yield batch
        .filter(({ event }) => only === null || only.has(event.event))
        .map(({ event, cursor: id }) => ({ id, event: event.event, data: event }));
    }
  }, c.req.raw.signal);
}

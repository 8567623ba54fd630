import { FINAL_STATES, type FleetEvent, type RunCursor } from "@ariel/core";
import { followRun, followRunBatches, type KnownWorkspace, type LoadedRun } from "@ariel/core/host";
import type { Context } from "hono";
import type { StreamResult } from "./_subscriber.ts";
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

/**
 * The message that closes a stream whose client fell too far behind: never
 * `end` (the run goes on), but `overflow` with the cursor to resume from, as `id:` too, so that
 * the reconnect (EventSource's own, or `?from=`) loses and repeats nothing.
 */
function overflowItem(cursor: string, runId?: string): SseItem {
  return { id: cursor, event: "overflow", data: { ...(runId ? { runId } : {}), cursor } };
}

/**
 * `GET /api/runs/{id}/stream`: SSE from the cursor, live until the run ends, then `end`; a client
 * that fell too far behind gets `overflow` instead (see {@link overflowItem}).
 */
export async function runStream(c: Context, find: Lookup): Promise<Response> {
  const from = runCursorOf(c, true);
  const { ws, run } = await find.runOf(c.req.param("id")!);
  // A finished run with nothing after the cursor: 204 tells EventSource to stop reconnecting.
  if (FINAL_STATES.has(run.view.state) && (await nothingAfter(ws, run, from))) return c.body(null, 204);
  // A live run's clients share one reader (a finished run's replay is read by each client alone).
  const live = !FINAL_STATES.has(run.view.state);
  return sseResponse(async function* (signal): AsyncGenerator<SseItem[]> {
    // Only a stream that reached the run's end says `end`: a client that gets it stops following.
    const result: StreamResult = { end: "stopped", cursor: null };
    const source = live
      ? followShared(ws, run, from, signal, result)
      : followRunBatches(ws, run, from, signal);
    for await (const batch of source) {
      yield batch.map(({ event, cursor }) => ({ id: cursor, event: event.event, data: event }));
    }
    if (!live && !signal.aborted) result.end = "ended"; // a finished run's replay, read to its end
    const runId = run.view.runId;
    if (result.end === "ended") yield [{ event: "end", data: { runId } }];
    else if (result.end === "overflow") yield [overflowItem(result.cursor!, runId)];
    // (`stopped`: the stream just closes, and the client reconnects and resumes.)
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
    const result: StreamResult = { end: "stopped", cursor: null };
    for await (const batch of followFleetShared(find.known, cursor, output, signal, result)) {
      yield batch
        .filter(({ event }) => only === null || only.has(event.event))
        .map(({ event, cursor: id }) => ({ id, event: event.event, data: event }));
    }
    if (result.end === "overflow") yield [overflowItem(result.cursor!)];
  }, c.req.raw.signal);
}

import {
  ArielError,
  type FleetCursor,
  type FleetEventName,
  parseCursor,
  parseRunCursor,
  quoteValue,
  RUN_CURSOR_START,
  type RunCursor,
  selectEventNames,
  startCursor,
} from "@ariel/core";
import type { Context } from "hono";

/** Largest request body accepted. */
const MAX_BODY = 64 * 1024;

/** A mutation's body: a JSON object (an empty body is `{}`), else 400. */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.length > MAX_BODY)
    throw new ArielError("ERR_INVALID_INPUT", `request body over ${MAX_BODY} bytes`);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ArielError("ERR_INVALID_INPUT", "request body is not JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ArielError("ERR_INVALID_INPUT", "request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/**
 * A run cursor from `?from=`, else `Last-Event-ID` (or the start); anything else is 400. An empty
 * `?from=` counts as none: a reconnecting EventSource's `Last-Event-ID` is then what it read last.
 */
export function runCursorOf(c: Context, headerToo: boolean): RunCursor {
  const query = c.req.query("from") || undefined;
  const text = query ?? (headerToo ? c.req.header("last-event-id") : undefined);
  if (text === undefined || text === "") return RUN_CURSOR_START;
  const cursor = parseRunCursor(text);
  if (cursor === null) {
    throw new ArielError(
      "ERR_USAGE",
      `${query !== undefined ? "from" : "Last-Event-ID"} must be a sequence number (or SEQ.STDOUT.STDERR), not ${quoteValue(text)}`,
    );
  }
  return cursor;
}

/**
 * The fleet stream's start: `?from=` or `Last-Event-ID` (a cursor; an empty `?from=` counts as
 * none), else `?since=`, else now.
 */
export function fleetCursorOf(c: Context, nowMs: number): FleetCursor {
  const fromText = c.req.query("from") || c.req.header("last-event-id");
  if (fromText !== undefined && fromText !== "") {
    const parsed = parseCursor(fromText);
    if (!parsed)
      throw new ArielError("ERR_USAGE", `${quoteValue(fromText.slice(0, 80))} is not an event cursor`);
    return parsed;
  }
  const sinceText = c.req.query("since");
  if (sinceText === undefined) return startCursor(nowMs);
  const t = Date.parse(sinceText);
  if (!Number.isFinite(t)) throw new ArielError("ERR_USAGE", `since ${quoteValue(sinceText)} is not a time`);
  return startCursor(t);
}

/** `?event=a,b` (names or globs: `agent.*`): only these events (null: all); one that selects none is 400. */
export function eventFilterOf(c: Context): ReadonlySet<FleetEventName> | null {
  const names = c.req
    .query("event")
    ?.split(",")
    .filter((x) => x !== "");
  return names === undefined ? null : selectEventNames(names);
}

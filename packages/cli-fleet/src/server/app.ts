import {
  ArielError,
  FINAL_STATES,
  FLEET_EVENT_NAMES,
  type FleetEvent,
  httpStatusOf,
  parseCursor,
  parseRunCursor,
  quoteValue,
  RUN_CURSOR_START,
  RUN_ID_PATTERN,
  type RunCursor,
  serializeRecord,
  startCursor,
  toArielError,
  workspaceView,
} from "@ariel/core";
import {
  FleetTail,
  followFleetBatches,
  followRun,
  followRunBatches,
  gatherFleet,
  gatherWorkspace,
  type KnownWorkspace,
  type KnownWorkspaces,
  type LoadedRun,
  loadRun,
  workspaceSources,
  workspaceTasks,
} from "@ariel/core/host";
import { type Context, Hono } from "hono";
import { dashboardFile } from "./assets.ts";
import type { RunControl } from "./control.ts";
import { type GuardOptions, guard, SECURITY_HEADERS } from "./guard.ts";
import { HttpRefusal } from "./http_error.ts";
import { ROUTES, type RouteName } from "./routes.ts";
import { type SseItem, sseResponse } from "./sse.ts";

export interface FleetAppOptions {
  /** The workspaces to serve, read again on every request (a newly registered one shows up). */
  workspaces: () => Promise<KnownWorkspaces>;
  control: RunControl;
  guard: GuardOptions;
  now?: () => number;
  /** Where internal errors are reported (stderr). */
  onInternalError?: (e: unknown) => void;
}

/** Largest request body accepted. */
const MAX_BODY = 64 * 1024;

const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

type Handler = (c: Context) => Promise<Response> | Response;

/** A route parameter that tries to leave its place is a path escape (403), checked before any read. */
function noEscape(value: string, what: string): void {
  if (/[/\\\0]|\.\./.test(value)) {
    throw new ArielError("ERR_PATH_ESCAPE", `${what} ${quoteValue(value)} is not a plain name`, {
      context: { [what]: value },
    });
  }
}

function cursorParam(text: string | undefined, what: string): RunCursor {
  if (text === undefined || text === "") return RUN_CURSOR_START;
  const c = parseRunCursor(text);
  if (c === null) {
    throw new ArielError(
      "ERR_USAGE",
      `${what} must be a sequence number (or SEQ.STDOUT.STDERR), not ${quoteValue(text)}`,
    );
  }
  return c;
}

/** Whether a run has nothing after `from` (one pass over what is there). */
async function nothingAfter(ws: KnownWorkspace, run: LoadedRun, from: RunCursor): Promise<boolean> {
  const ac = new AbortController();
  for await (const _ of followRun(ws, run, from, ac.signal, true)) return false;
  return true;
}

async function jsonBody(c: Context): Promise<Record<string, unknown>> {
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
 * The fleet's HTTP app (Hono): every route of {@link ROUTES}, the guard in front of them, and
 * errors as the CLI's error record with an HTTP status. Runtime-neutral: Node and Deno serve
 * its `fetch`.
 */
export function createFleetApp(options: FleetAppOptions): { fetch: (req: Request) => Promise<Response> } {
  const now = options.now ?? (() => Date.now());
  const known = async (): Promise<KnownWorkspace[]> => (await options.workspaces()).workspaces;

  async function workspaceOf(hash: string): Promise<KnownWorkspace> {
    noEscape(hash, "workspace");
    const ws = /^[0-9a-f]{16}$/.test(hash) ? (await known()).find((w) => w.hash === hash) : undefined;
    if (!ws) {
      throw new ArielError("ERR_WORKSPACE_NOT_FOUND", `no workspace ${quoteValue(hash)} in the fleet`, {
        hint: "GET /api/workspaces lists them",
        context: { workspace: hash },
      });
    }
    return ws;
  }

  async function runOf(id: string): Promise<{ ws: KnownWorkspace; run: LoadedRun }> {
    noEscape(id, "run");
    if (RUN_ID_PATTERN.test(id)) {
      for (const ws of await known()) {
        if (!ws.exists) continue;
        const run = await loadRun(ws, id);
        if (run) return { ws, run };
      }
    }
    throw new ArielError("ERR_RUN_NOT_FOUND", `no run ${quoteValue(id)} in the fleet`, {
      context: { runId: id },
    });
  }

  function staticFile(name: string): Handler {
    return (c) => {
      const body = dashboardFile(name);
      if (body === undefined) throw new ArielError("ERR_NOINPUT", `no file ${quoteValue(name)}`);
      return c.body(body, 200, {
        "content-type": CONTENT_TYPES[name.slice(name.lastIndexOf(".") + 1)] ?? "text/plain",
      });
    };
  }

  const handlers: Record<RouteName, Handler> = {
    healthz: (c) => c.json({ v: 1, type: "health", ok: true }),
    readyz: async (c) => {
      const { workspaces, problems } = await options.workspaces();
      return c.json({
        v: 1,
        type: "ready",
        ready: true,
        workspaces: workspaces.length,
        problems: problems.length,
      });
    },
    fleet: async (c) => c.json(await gatherFleet(await known(), now())),
    workspaces: async (c) => c.json((await gatherFleet(await known(), now())).workspaces),
    workspace: async (c) =>
      c.json(workspaceView((await gatherWorkspace(await workspaceOf(c.req.param("hash")!))).facts)),
    sources: async (c) => {
      const ws = await workspaceOf(c.req.param("hash")!);
      return c.json(ws.exists ? await workspaceSources(ws.root) : []);
    },
    tasks: async (c) => {
      const ws = await workspaceOf(c.req.param("hash")!);
      return c.json(ws.exists ? (await workspaceTasks(ws)).tasks : []);
    },
    workspaceRuns: async (c) => {
      const ws = await workspaceOf(c.req.param("hash")!);
      const state = c.req.query("state");
      const runs = (await gatherWorkspace(ws)).runs.map((r) => r.view);
      return c.json(state === undefined ? runs : runs.filter((r) => r.state === state));
    },
    spawn: async (c) => {
      const ws = await workspaceOf(c.req.param("hash")!);
      return c.json(await options.control.spawn(ws, await jsonBody(c)), 201);
    },
    run: async (c) => c.json((await runOf(c.req.param("id")!)).run.view),
    runEvents: async (c) => {
      const from = cursorParam(c.req.query("from"), "from");
      const { ws, run } = await runOf(c.req.param("id")!);
      const events: FleetEvent[] = [];
      for await (const { event } of followRun(ws, run, from, c.req.raw.signal, true)) events.push(event);
      return c.json(events);
    },
    runStream: async (c) => {
      const query = c.req.query("from");
      const from = cursorParam(
        query ?? c.req.header("last-event-id"),
        query !== undefined ? "from" : "Last-Event-ID",
      );
      const { ws, run } = await runOf(c.req.param("id")!);
      const final = FINAL_STATES.has(run.view.state);
      // A finished run with nothing after the cursor: 204 tells EventSource to stop reconnecting.
      if (final && (await nothingAfter(ws, run, from))) return c.body(null, 204);
      return sseResponse(async function* (signal): AsyncGenerator<SseItem[]> {
        for await (const batch of followRunBatches(ws, run, from, signal)) {
          yield batch.map(({ event, cursor }) => ({ id: cursor, event: event.event, data: event }));
        }
        if (!signal.aborted) yield [{ event: "end", data: { runId: run.view.runId } }];
      }, c.req.raw.signal);
    },
    eventsStream: (c) => {
      const fromText = c.req.query("from") ?? c.req.header("last-event-id");
      const sinceText = c.req.query("since");
      let cursor = startCursor(now());
      if (fromText !== undefined && fromText !== "") {
        const parsed = parseCursor(fromText);
        if (!parsed)
          throw new ArielError("ERR_USAGE", `${quoteValue(fromText.slice(0, 80))} is not an event cursor`);
        cursor = parsed;
      } else if (sinceText !== undefined) {
        const t = Date.parse(sinceText);
        if (!Number.isFinite(t))
          throw new ArielError("ERR_USAGE", `since ${quoteValue(sinceText)} is not a time`);
        cursor = startCursor(t);
      }
      const only = c.req
        .query("event")
        ?.split(",")
        .filter((x) => x !== "");
      for (const name of only ?? []) {
        if (!(FLEET_EVENT_NAMES as readonly string[]).includes(name)) {
          throw new ArielError("ERR_USAGE", `unknown event ${quoteValue(name)}`, {
            hint: `events: ${FLEET_EVENT_NAMES.join(", ")}`,
          });
        }
      }
      const tail = new FleetTail(known, cursor);
      return sseResponse(async function* (signal): AsyncGenerator<SseItem[]> {
        for await (const batch of followFleetBatches(tail, signal)) {
          yield batch
            .filter(({ event }) => !only || only.includes(event.event))
            .map(({ event, cursor: id }) => ({ id, event: event.event, data: event satisfies FleetEvent }));
        }
      }, c.req.raw.signal);
    },
    kill: async (c) => {
      const { ws, run } = await runOf(c.req.param("id")!);
      return c.json(await options.control.kill(ws, run.view, await jsonBody(c)));
    },
    respawn: async (c) => {
      const { ws, run } = await runOf(c.req.param("id")!);
      return c.json(await options.control.respawn(ws, run.view, await jsonBody(c)), 201);
    },
    input: async (c) => {
      const { ws, run } = await runOf(c.req.param("id")!);
      await options.control.input(ws, run.view, await jsonBody(c));
      return c.json({ v: 1, type: "ok", runId: run.view.runId });
    },
    dashboard: staticFile("index.html"),
  };

  const app = new Hono();
  app.use("*", guard(options.guard));
  for (const r of ROUTES) app.on(r.method, r.path, handlers[r.name]);
  for (const name of ["app.js", "app.css", "favicon.svg"]) app.get(`/${name}`, staticFile(name));
  for (const path of new Set(ROUTES.map((r) => r.path))) {
    app.all(path, (c) => {
      throw new HttpRefusal(405, new ArielError("ERR_USAGE", `${c.req.method} is not allowed on ${path}`));
    });
  }
  app.notFound(() => {
    throw new ArielError("ERR_NOINPUT", "no such route", { hint: "the API reference is in docs/fleet.md" });
  });
  app.onError((e, c) => {
    const refusal = e instanceof HttpRefusal ? e : null;
    const err = refusal?.error ?? toArielError(e);
    if (err.code === "ERR_INTERNAL") options.onInternalError?.(e);
    // v and type first, as in every record (toRecord puts the context first).
    const { v, type, ...rest } = err.toRecord();
    return c.body(
      `${serializeRecord({ v, type, ...rest })}\n`,
      (refusal?.status ?? httpStatusOf(err.exit)) as 500,
      {
        "content-type": "application/json",
      },
    );
  });

  return {
    fetch: async (req: Request) => {
      const res = await app.fetch(req);
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
      return res;
    },
  };
}

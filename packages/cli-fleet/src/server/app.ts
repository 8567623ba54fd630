import { ArielError, httpStatusOf, serializeRecord, toArielError, workspaceView } from "@ariel/core";
import {
  gatherFleet,
  gatherWorkspace,
  type KnownWorkspaces,
  workspaceSources,
  workspaceTasks,
} from "@ariel/core/host";
import { type Context, Hono } from "hono";
import type { RunControl } from "./control.ts";
import { type GuardOptions, guard, type Peer, SECURITY_HEADERS } from "./guard.ts";
import { HttpRefusal } from "./http_error.ts";
import { lookup } from "./lookup.ts";
import { jsonBody } from "./request.ts";
import { ROUTES, type RouteName } from "./routes.ts";
import { DASHBOARD_ROUTES, staticFile } from "./static.ts";
import { eventsStream, runEvents, runStream } from "./streams.ts";
import type { TaskControl } from "./tasks.ts";

export interface FleetAppOptions {
  /** The workspaces to serve, read again on every request (a newly registered one shows up). */
  workspaces: () => Promise<KnownWorkspaces>;
  control: RunControl;
  tasks: TaskControl;
  guard: GuardOptions;
  now?: () => number;
  /** Where internal errors are reported (stderr). */
  onInternalError?: (e: unknown) => void;
}

type Handler = (c: Context) => Promise<Response> | Response;

/** An error as the CLI's error record (v and type first) with its HTTP status. */
function errorResponse(c: Context, e: unknown, onInternal?: (e: unknown) => void): Response {
  const refusal = e instanceof HttpRefusal ? e : null;
  const err = refusal?.error ?? toArielError(e);
  if (err.code === "ERR_INTERNAL") onInternal?.(e);
  const { v, type, ...rest } = err.toRecord();
  const status = (refusal?.status ?? httpStatusOf(err.exit)) as 500;
  return c.body(`${serializeRecord({ v, type, ...rest })}\n`, status, { "content-type": "application/json" });
}

/**
 * The fleet's HTTP app (Hono): every route of {@link ROUTES}, the guard in front of them, and
 * errors as the CLI's error record with an HTTP status. Runtime-neutral: Node and Deno serve
 * its `fetch`.
 */
export function createFleetApp(options: FleetAppOptions): {
  fetch: (req: Request, peer?: Peer) => Promise<Response>;
} {
  const now = options.now ?? (() => Date.now());
  const find = lookup(options.workspaces);
  const hash = (c: Context) => find.workspaceOf(c.req.param("hash")!);
  const runOf = (c: Context) => find.runOf(c.req.param("id")!);

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
    fleet: async (c) => c.json(await gatherFleet(await find.known(), now())),
    workspaces: async (c) => c.json((await gatherFleet(await find.known(), now())).workspaces),
    workspace: async (c) =>
      c.json(workspaceView((await gatherWorkspace(await hash(c), { lastLine: false })).facts)),
    sources: async (c) => {
      const ws = await hash(c);
      return c.json(ws.exists ? await workspaceSources(ws.root) : []);
    },
    tasks: async (c) => {
      const ws = await hash(c);
      return c.json(ws.exists ? (await workspaceTasks(ws)).tasks : []);
    },
    taskDiff: async (c) => c.json(await options.tasks.diff(await hash(c), c.req.param("task")!)),
    land: async (c) => {
      const ws = await hash(c);
      return c.json(await options.tasks.land(ws, c.req.param("task")!, await jsonBody(c)));
    },
    workspaceRuns: async (c) => {
      const state = c.req.query("state");
      const runs = (await gatherWorkspace(await hash(c))).runs.map((r) => r.view);
      return c.json(state === undefined ? runs : runs.filter((r) => r.state === state));
    },
    spawn: async (c) => c.json(await options.control.spawn(await hash(c), await jsonBody(c)), 201),
    run: async (c) => c.json((await runOf(c)).run.view),
    runEvents: (c) => runEvents(c, find),
    runStream: (c) => runStream(c, find),
    eventsStream: (c) => eventsStream(c, find, now()),
    kill: async (c) => {
      const { ws, run } = await runOf(c);
      // Accepted: the first signal is sent; the run's `run.state` event tells how it ends.
      return c.json(await options.control.kill(ws, run.view, await jsonBody(c)), 202);
    },
    respawn: async (c) => {
      const { ws, run } = await runOf(c);
      return c.json(await options.control.respawn(ws, run.view, await jsonBody(c)), 201);
    },
    input: async (c) => {
      const { ws, run } = await runOf(c);
      await options.control.input(ws, run.view, await jsonBody(c));
      return c.json({ v: 1, type: "ok", runId: run.view.runId });
    },
    // With a token, the page says so: it asks for the token before it calls the API.
    dashboard: staticFile("index.html", (html) =>
      options.guard.token === null
        ? html
        : html.replace('<html lang="en">', '<html lang="en" data-auth="bearer">'),
    ),
  };

  const app = new Hono();
  const open = new Set(["/", ...DASHBOARD_ROUTES.map((n) => `/${n}`)]);
  app.use("*", guard({ ...options.guard, open }));
  for (const r of ROUTES) app.on(r.method, r.path, handlers[r.name]);
  for (const name of DASHBOARD_ROUTES) app.get(`/${name}`, staticFile(name));
  for (const path of new Set(ROUTES.map((r) => r.path))) {
    app.all(path, (c) => {
      throw new HttpRefusal(405, new ArielError("ERR_USAGE", `${c.req.method} is not allowed on ${path}`));
    });
  }
  app.notFound(() => {
    throw new ArielError("ERR_NOINPUT", "no such route", { hint: "the API reference is in docs/fleet.md" });
  });
  app.onError((e, c) => errorResponse(c, e, options.onInternalError));

  return {
    fetch: async (req: Request, peer: Peer = {}) => {
      const res = await app.fetch(req, peer);
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
      return res;
    },
  };
}

/**
 * Every route of `ariel-fleet serve`, as data: the server binds a handler to each name, and
 * docs/fleet.md's API reference is generated from this table (`npm run schema` writes it,
 * `npm run schema -- --check` fails on drift). No imports: scripts read it as it is.
 */

export interface RouteSpec {
  method: "GET" | "POST";
  /** Hono path syntax (`:hash`, `:id`). */
  path: string;
  name: string;
  /** One line: what it returns or does. */
  summary: string;
  /** Query parameters, `name=MEANING`. */
  query?: readonly string[];
  /** `json`, `sse` or `html`. */
  kind: "json" | "sse" | "static";
  /** HTTP statuses of its error records beyond the ones every route has (400/401/403/421). */
  errors: readonly number[];
}

export const ROUTES = [
  {
    method: "GET",
    path: "/healthz",
    name: "healthz",
    kind: "json",
    summary: 'the server answers: `{"v":1,"type":"health","ok":true}`',
    errors: [],
  },
  {
    method: "GET",
    path: "/readyz",
    name: "readyz",
    kind: "json",
    summary:
      'ready to serve: `{"v":1,"type":"ready","ready":true,"workspaces":N,"problems":N}` (problems: unreadable registry entries)',
    errors: [],
  },
  {
    method: "GET",
    path: "/api/fleet",
    name: "fleet",
    kind: "json",
    summary: "the FleetSnapshot: host and every workspace with health, sources, tasks and runs by state",
    errors: [],
  },
  {
    method: "GET",
    path: "/api/workspaces",
    name: "workspaces",
    kind: "json",
    summary: "the workspaces of the snapshot, as an array",
    errors: [],
  },
  {
    method: "GET",
    path: "/api/workspaces/:hash",
    name: "workspace",
    kind: "json",
    summary: "one workspace's view",
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/workspaces/:hash/sources",
    name: "sources",
    kind: "json",
    summary: "its sources (discovery records)",
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/workspaces/:hash/tasks",
    name: "tasks",
    kind: "json",
    summary: "its task records",
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/workspaces/:hash/tasks/:task/diff",
    name: "taskDiff",
    kind: "json",
    summary:
      "per leg of the task, what its branch holds that its base does not (as `ariel-worktree diff --task T --json`): `source`, `branch`, `base`, `head`, `commits` (ahead, newest first), `files`, `uncommitted`",
    errors: [404],
  },
  {
    method: "POST",
    path: "/api/workspaces/:hash/tasks/:task/land",
    name: "land",
    kind: "json",
    summary:
      'land the task\'s branches, every leg or none (as `ariel-worktree land`, never `--remove`): body `{"strategy":"ff|merge|squash|rebase","into":BRANCH}` (both optional; default a merge into each source\'s checked-out branch); 200 with a `land` record per leg; a refused land (a conflict, a dirty target, …) is 409 with the first refusal\'s error record and every refusal of every leg in its `refusals`, and nothing moved',
    errors: [404, 409, 503],
  },
  {
    method: "GET",
    path: "/api/workspaces/:hash/runs",
    name: "workspaceRuns",
    kind: "json",
    summary: "its runs (run views, oldest first)",
    query: ["state=STATE: only runs in this state"],
    errors: [404],
  },
  {
    method: "POST",
    path: "/api/workspaces/:hash/runs",
    name: "spawn",
    kind: "json",
    summary:
      'start detached runs (as `ariel-spawn --detach`): body `{"argv":[…],"source":…,"name":…,"interactive":…,"shared":…,"isolate":…,"sandbox":…,"sandboxNet":…}` (`shared` as `--shared`: a second detached run in one checkout; `isolate` as `--isolate`; `sandbox` true as `--sandbox`, false as `--no-sandbox`, absent: the config; `sandboxNet` `"on"` or `"none"`); 201 with an array of run views',
    errors: [404, 409, 503],
  },
  {
    method: "GET",
    path: "/api/runs/:id",
    name: "run",
    kind: "json",
    summary: "one run's view",
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/runs/:id/events",
    name: "runEvents",
    kind: "json",
    summary: "the run's events after a run cursor, as an array (a detached run's output included)",
    query: [
      "from=CURSOR: only events after it (`SEQ`, or `SEQ.STDOUT.STDERR` for a detached run; default: all)",
    ],
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/runs/:id/stream",
    name: "runStream",
    kind: "sse",
    summary:
      "the run's events (`id:` = the run cursor), live until the run ends, then `event: end` (a client that fell too far behind gets `event: overflow` with its cursor instead, and resumes from it); a finished run replays and closes; 204 when a finished run has nothing after the cursor",
    query: ["from=CURSOR: resume after it (or the Last-Event-ID header)"],
    errors: [404],
  },
  {
    method: "GET",
    path: "/api/events/stream",
    name: "eventsStream",
    kind: "sse",
    summary: "every workspace's events, detached runs' output included (`id:` = a fleet cursor); never ends",
    query: [
      "since=TIME: events at or after this ISO time (default: now)",
      "from=CURSOR: resume after this cursor (or the Last-Event-ID header)",
      "event=NAME,…: only these events",
    ],
    errors: [],
  },
  {
    method: "POST",
    path: "/api/runs/:id/kill",
    name: "kill",
    kind: "json",
    summary:
      'stop a run (its process group; TERM, then KILL after the grace): body `{"signal":…,"graceMs":…}`; 202 with the run view once the first signal is sent, without waiting for the grace: the run\'s `run.state` event (to `killed`) reports the end',
    errors: [404, 409, 503],
  },
  {
    method: "POST",
    path: "/api/runs/:id/respawn",
    name: "respawn",
    kind: "json",
    summary: "start the run again (a new run id; a live run is killed first); 201 with the new run view",
    errors: [404, 409, 503],
  },
  {
    method: "POST",
    path: "/api/runs/:id/input",
    name: "input",
    kind: "json",
    summary: 'write to an interactive run\'s stdin, or type into a tty run\'s terminal: body `{"data":"…"}`',
    errors: [404, 409, 503],
  },
  {
    method: "GET",
    path: "/",
    name: "dashboard",
    kind: "static",
    summary: "the dashboard (HTML; its script and style at `/app.js`, `/app.css`)",
    errors: [],
  },
] as const satisfies readonly RouteSpec[];

export type RouteName = (typeof ROUTES)[number]["name"];

/** Statuses every route may answer with (checked before any handler runs). */
export const COMMON_ERRORS: readonly { status: number; when: string }[] = [
  { status: 400, when: "a bad parameter or body (ERR_USAGE, ERR_INVALID_INPUT)" },
  { status: 401, when: "a token file is configured and the request has no valid `Authorization: Bearer`" },
  {
    status: 403,
    when: "a mutation that is not `application/json` or comes from a foreign `Origin`; a path escape",
  },
  { status: 404, when: "no such route, workspace or run" },
  { status: 405, when: "a known path with another method" },
  { status: 421, when: "the `Host` header is not the address the server is bound to (DNS rebinding)" },
];

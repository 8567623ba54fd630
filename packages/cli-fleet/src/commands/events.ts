import {
  ArielError,
  type FleetCursor,
  type FleetEvent,
  parseCursor,
  quoteValue,
  selectEventNames,
  shellWords,
  startCursor,
} from "@ariel/core";
import {
  type ArgsDef,
  type CursoredEvent,
  defineCommand,
  escapeCell,
  FleetTail,
  followFleet,
  type RunContext,
} from "@ariel/core/host";
import { COMMON_ARGS, untilInterrupted, workspacesOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  since: { type: "string", valueHint: "TIME", description: "only events at or after this ISO 8601 time" },
  from: {
    type: "string",
    valueHint: "CURSOR",
    description: "only events after this cursor (an event's `cursor` with --json; SSE's id)",
  },
  type: {
    type: "string",
    valueHint: "EVENT[,EVENT]",
    description: "only these events: names or globs (agent.* for what agents report; run.attention)",
  },
  follow: {
    type: "boolean",
    alias: "f",
    description: "print new events as they happen, until interrupted (from now; --since/--from replay first)",
  },
} as const satisfies ArgsDef;

/** `ariel-fleet events`: the normalized events of every workspace, as one stream. */
export const eventsCommand = defineCommand({
  meta: {
    name: "events",
    description:
      "normalized events of every workspace, oldest first; --follow prints new ones as they happen",
    usage: "[--since TIME | --from CURSOR] [--type EVENT[,EVENT]] [--follow] [--workspace DIR]... [--json]",
    examples: [
      ["ariel-fleet events --since 2026-12-02T11:00:00Z", "what happened since 11:00 UTC"],
      ["ariel-fleet events -f", "what happens from now on"],
      ["ariel-fleet events -f --type 'agent.*,run.attention'", "what the agents report, and who needs you"],
      [
        "ariel-fleet events -f --json | jq -c 'select(.event == \"run.state\")'",
        "every run's state changes, live",
      ],
    ],
  },
  args,
  run,
});

/**
 * Where the stream starts: `--from CURSOR` right after the event it was given with; `--since TIME`
 * at that time; else everything (a listing) or now (`--follow`: a follower wants what happens
 * next, as `tail -f` does, not the whole history first).
 */
function startOf(ctx: RunContext<typeof args>): FleetCursor {
  const { since, from, follow } = ctx.args;
  if (since !== undefined && from !== undefined)
    throw new ArielError("ERR_USAGE", "--since and --from exclude each other");
  if (from !== undefined) {
    const c = parseCursor(from);
    if (c === null) {
      throw new ArielError("ERR_USAGE", `--from ${quoteValue(from)} is not a cursor`, {
        hint: "give the cursor of an event printed by ariel-fleet events --json",
      });
    }
    return c;
  }
  if (since === undefined) return startCursor(follow ? Date.now() : 0);
  const t = Date.parse(since);
  if (!Number.isFinite(t)) {
    throw new ArielError("ERR_USAGE", `--since ${quoteValue(since)} is not a time`, {
      hint: "give an ISO 8601 time such as 2026-12-02T11:00:00Z",
    });
  }
  return startCursor(t);
}

function detail(e: FleetEvent): string {
  switch (e.event) {
    case "run.attention":
      return `${e.from} -> ${e.to}: ${e.reason}${typeof e.by === "string" ? ` (by ${e.by})` : ""}`;
    case "agent.session":
      return `${e.agent} session ${e.id}`;
    case "agent.turn":
      return `${e.agent} turn ${e.phase}`;
    case "agent.tool":
      return `${e.agent} ${e.name} ${e.phase}${e.ok === false ? " (failed)" : ""}`;
    case "agent.notice":
      return `${e.agent} ${e.kind}: ${e.message}`;
    case "output":
      return `${e.stream}: ${String(e.data).replace(/\n$/, "")}`;
    case "run.state":
      return `${e.from} -> ${e.to}`;
    case "run.exited":
      return `status ${e.status}`;
    default:
      return typeof e.source === "string" ? e.source : "";
  }
}

function print(ctx: RunContext<typeof args>, { event: e, cursor }: CursoredEvent): void {
  if (ctx.args.json) ctx.out.record({ ...e, cursor });
  else {
    // Each cell escaped as the contract's tables are (a tab or newline in output never splits a line).
    const cells = [e.ts, e.workspace, e.runId, String(e.seq), e.event, detail(e)].map((c) =>
      escapeCell(c).replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "?"),
    );
    ctx.out.write(`${cells.join("\t")}\n`);
  }
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const start = startOf(ctx);
  const only =
    ctx.args.type === undefined ? null : selectEventNames(ctx.args.type.split(",").filter((x) => x !== ""));
  const shown = (e: CursoredEvent) => only === null || only.has(e.event.event);
  const list = workspacesOf(ctx);
  const first = await list();
  for (const p of first.problems) ctx.log.warn(p.code, p.message, p.context);
  const tail = new FleetTail(async () => (await list()).workspaces, start);
  if (ctx.args.follow) {
    const stop = untilInterrupted(ctx);
    try {
      for await (const e of followFleet(tail, stop.signal)) if (shown(e)) print(ctx, e);
    } finally {
      stop.dispose();
    }
  } else {
    for (const e of await tail.poll()) if (shown(e)) print(ctx, e);
  }
  // A person at a terminal gets the way back to this point (a script has each event's cursor).
  if (!ctx.args.json && ctx.term.stderr && !ctx.args.follow) {
    const again = ["ariel-fleet", "events", ...ctx.args.workspace.flatMap((w) => ["--workspace", w])];
    ctx.log.info(`to go on from here: ${shellWords([...again, "--from", tail.cursor])}`);
  }
  if (tail.skipped > 0) {
    ctx.log.warn("WARN_SKIPPED", `skipped ${tail.skipped} history line(s) that are not fleet events`, {
      skipped: tail.skipped,
    });
  }
  return first.problems.length > 0 ? 1 : 0;
}

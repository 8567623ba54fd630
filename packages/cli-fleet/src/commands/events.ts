import { ArielError, type FleetEvent, quoteValue, startCursor } from "@ariel/core";
import { type ArgsDef, defineCommand, FleetTail, followFleet, type RunContext } from "@ariel/core/host";
import { COMMON_ARGS, untilInterrupted, workspacesOf } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  since: { type: "string", valueHint: "TIME", description: "only events at or after this ISO 8601 time" },
  follow: { type: "boolean", alias: "f", description: "keep printing new events until interrupted" },
} as const satisfies ArgsDef;

/** `ariel-fleet events`: the normalized events of every workspace, as one stream. */
export const eventsCommand = defineCommand({
  meta: {
    name: "events",
    description: "normalized events of every workspace, oldest first; --follow keeps printing new ones",
    usage: "[--since TIME] [--follow] [--workspace DIR]... [--json]",
    examples: [
      ["ariel-fleet events --since 2026-12-02T11:00:00Z", "what happened since 11:00 UTC"],
      [
        "ariel-fleet events -f --json | jq -c 'select(.event == \"run.state\")'",
        "every run's state changes, live",
      ],
    ],
  },
  args,
  run,
});

function sinceOf(ctx: RunContext<typeof args>): number {
  const s = ctx.args.since;
  if (typeof s !== "string") return 0;
  const t = Date.parse(s);
  if (!Number.isFinite(t)) {
    throw new ArielError("ERR_USAGE", `--since ${quoteValue(s)} is not a time`, {
      hint: "give an ISO 8601 time such as 2026-12-02T11:00:00Z",
    });
  }
  return t;
}

function detail(e: FleetEvent): string {
  switch (e.event) {
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

function print(ctx: RunContext<typeof args>, e: FleetEvent): void {
  if (ctx.args.json) ctx.out.record(e);
  else {
    const line = [e.ts, e.workspace, e.runId, String(e.seq), e.event, detail(e)].join("\t");
    ctx.out.write(`${line.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "?")}\n`);
  }
}

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const since = sinceOf(ctx);
  const list = workspacesOf(ctx);
  const first = await list();
  for (const p of first.problems) ctx.log.warn(p.code, p.message, p.context);
  const tail = new FleetTail(async () => (await list()).workspaces, startCursor(since));
  if (ctx.args.follow) {
    const stop = untilInterrupted(ctx);
    try {
      for await (const { event } of followFleet(tail, stop.signal)) print(ctx, event);
    } finally {
      stop.dispose();
    }
  } else {
    for (const { event } of await tail.poll()) print(ctx, event);
  }
  if (tail.skipped > 0) {
    ctx.log.warn("WARN_SKIPPED", `skipped ${tail.skipped} history line(s) that are not fleet events`, {
      skipped: tail.skipped,
    });
  }
  return first.problems.length > 0 ? 1 : 0;
}

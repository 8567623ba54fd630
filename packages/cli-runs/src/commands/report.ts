import { ArielError, REPORTING_AGENTS } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext, runReporter } from "@ariel/core/host";

const args = {
  agent: {
    type: "positional",
    valueHint: "AGENT",
    description: `the agent whose payload this is (${REPORTING_AGENTS.join(", ")})`,
  },
  payload: {
    type: "positional",
    required: false,
    valueHint: "PAYLOAD",
    description: "the payload as an argument (Codex's notify); else it is read from stdin",
  },
} as const satisfies ArgsDef;

/**
 * `ariel-runs report AGENT [PAYLOAD]`: hand an agent's payload to its run's monitor (docs/runs.md,
 * "What agents report"). What the hooks ariel wires run (its own small bundle, the same code);
 * here for wiring an agent by hand. Prints nothing and exits 0 whatever the monitor does, and
 * does nothing outside a wired run (no ARIEL_REPORT_* in the environment).
 */
export const reportCommand = defineCommand({
  meta: {
    name: "report",
    description:
      "hand an agent's hook payload (stdin, or the last argument) to its run's monitor; prints nothing",
    usage: "AGENT [PAYLOAD]",
    examples: [
      ["ariel-runs report claude < payload.json", "what a Claude Code hook of a wired run runs"],
      ['ariel-runs report codex \'{"type":"agent-turn-complete",…}\'', "what Codex's notify runs"],
    ],
  },
  args,
  async run(ctx: RunContext<typeof args>): Promise<number> {
    const agent = ctx.args.agent;
    if (!(REPORTING_AGENTS as readonly string[]).includes(agent)) {
      throw new ArielError("ERR_USAGE", `no reporting agent ${JSON.stringify(agent)}`, {
        hint: `one of ${REPORTING_AGENTS.join(", ")}`,
      });
    }
    const payload = ctx.args.payload;
    await runReporter(payload === undefined ? [agent] : [agent, payload], {
      env: ctx.env,
      stdin: process.stdin,
      startedMs: Math.round(performance.timeOrigin),
    });
    return 0;
  },
});

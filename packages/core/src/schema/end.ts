/**
 * The `end` record: the last line of `ariel-runs logs -f --json`, once the run is final and
 * settled: its state and status, and what it left (an isolated run's worktree, the next command).
 *
 * @example
 * ```json
 * {"v":1,"type":"end","runId":"20261203T091500Z-k3x9a2","name":"agent@chalk","state":"failed","status":1,"code":1,"signal":null,"worktree":{"outcome":"kept","reason":"dirty"},"next":"ariel-worktree remove --task t1 --source chalk --snapshot"}
 * ```
 */
import * as z from "zod/mini";

// Built on first use, not when the module loads (see warning.ts).
function build() {
  return z.looseObject({
    v: z.literal(1),
    type: z.literal("end"),
    runId: z.string().check(z.regex(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/)),
    name: z.nullable(z.string()),
    state: z.enum(["exited", "failed", "killed", "lost", "crashed"]),
    /** Shell-style exit status; null when unknown (lost, crashed). */
    status: z.nullable(z.int().check(z.minimum(0), z.maximum(255))),
    code: z.nullable(z.int()),
    signal: z.nullable(z.string()),
    worktree: z.nullable(
      z.object({ outcome: z.enum(["removed", "kept", "snapshotted"]), reason: z.nullable(z.string()) }),
    ),
    /** The command that deals with a kept worktree. */
    next: z.nullable(z.string()),
  });
}
let built: ReturnType<typeof build> | undefined;

export function endSchema(): ReturnType<typeof build> {
  built ??= build();
  return built;
}

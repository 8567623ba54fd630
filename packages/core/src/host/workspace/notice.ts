import { quoteValue } from "../../names.ts";
import { shellWords } from "../../shell_words.ts";
import type { Workspace } from "../../workspace.ts";
import type { Reporter } from "../cli/mod.ts";

const told = new Set<string>();

/**
 * When an ancestor's `.ariel/` won over the git checkout holding the cwd, say so once per
 * process, on a terminal only: commands then act on that ancestor, not on the checkout the user
 * is in, and a stray `.ariel/` (made in `~` by accident) is otherwise invisible.
 *
 * @example
 * ```ts
 * noteShadowedCheckout(ctx.log, ws, isTerminal("stderr", ctx.env));
 * // ariel-spawn: note: workspace root "/home/me" (it has .ariel/), not the checkout "/home/me/src/app" holding the cwd; -C /home/me/src/app to use the checkout
 * ```
 */
export function noteShadowedCheckout(
  log: Pick<Reporter, "info">,
  ws: Pick<Workspace, "root" | "shadows">,
  terminal: boolean,
): void {
  if (!terminal || ws.shadows === undefined || told.has(ws.shadows)) return;
  told.add(ws.shadows);
  log.info(
    `note: workspace root ${quoteValue(ws.root)} (it has .ariel/), not the checkout ${quoteValue(ws.shadows)} holding the cwd; -C ${shellWords([ws.shadows])} to use the checkout`,
  );
}

import { quoteValue } from "../../names.ts";
import { shellWords } from "../../shell_words.ts";
import type { Workspace } from "../../workspace.ts";
import type { Reporter } from "../cli/mod.ts";
import { warnWithHint } from "../warn.ts";

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

/**
 * When the root was given in a task's directory (`-C`, `ARIEL_WORKSPACE_ROOT`), or a stray
 * `.ariel/` there was passed over, say once per process that the command acts on the workspace
 * that owns the task (decision 0106): a warning, so `--json` gets a record on stderr, on a
 * terminal or not (a script that named the task directory learns where it acted).
 *
 * @example
 * ```ts
 * noteInTask(ctx.log, ws);
 * // ariel-worktree: warning: -C "/ws/.ariel/worktrees/login" is in the directory of task "login", which is never a workspace; acting on the workspace "/ws" that owns it
 * // ariel-worktree: hint: name the workspace itself: -C /ws
 * ```
 */
export function noteInTask(
  log: Pick<Reporter, "warn">,
  ws: Pick<Workspace, "root" | "via" | "inTask">,
): void {
  const t = ws.inTask;
  // Found from the cwd in a leg (as the default layout's legs always were): nothing to say.
  if (t === undefined || ws.via === "git" || ws.via === "cwd" || told.has(`task:${t.path}`)) return;
  told.add(`task:${t.path}`);
  const given =
    ws.via === "flag"
      ? `-C ${quoteValue(t.path)}`
      : ws.via === "env"
        ? `ARIEL_WORKSPACE_ROOT ${quoteValue(t.path)}`
        : `${quoteValue(t.path)} (a stray .ariel/ there)`;
  const task = t.task === null ? "a task" : `task ${quoteValue(t.task)}`;
  warnWithHint(log, {
    code: "WARN_TASK_DIR",
    message: `${given} is in the directory of ${task}, which is never a workspace; acting on the workspace ${quoteValue(ws.root)} that owns it`,
    hint: `name the workspace itself: -C ${shellWords([ws.root])}`,
    context: { path: t.path, task: t.task, root: ws.root },
  });
}

/** Both notes about where the workspace was found ({@link noteShadowedCheckout}, {@link noteInTask}). */
export function noteWorkspace(
  log: Pick<Reporter, "info" | "warn">,
  ws: Pick<Workspace, "root" | "via" | "shadows" | "inTask">,
  terminal: boolean,
): void {
  noteShadowedCheckout(log, ws, terminal);
  noteInTask(log, ws);
}

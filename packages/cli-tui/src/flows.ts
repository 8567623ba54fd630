/**
 * What the keys that act do, between the key and the host: the question a kill or a removal asks,
 * the prompt of a send, the plan a land shows first, then the action (data/actions.ts) and its
 * outcome in the status line or a pager. The app hands in its {@link Ui}.
 */
import type { Actions, Outcome } from "./data/actions.ts";
import { failed } from "./data/actions.ts";
import type { FleetSource } from "./data/fleet.ts";
import type { Preview } from "./data/preview.ts";
import type { Item } from "./model/items.ts";
import type { UiState } from "./ui/state.ts";

/** What a flow needs of the app. */
export interface Ui {
  state: UiState;
  actions: Actions;
  fleet: FleetSource;
  preview: Preview;
  selected(): Item | null;
  redraw(): void;
  say(o: Outcome | string, ok?: boolean): void;
  /** An outcome with more to say than one line: a pager; else the message line. */
  show(o: Outcome): void;
  /** After an action on a run: the run read again, then its outcome. */
  after(o: Outcome, run: { workspace: { root: string; hash: string }; runId: string }): Promise<void>;
  /** Run `f` with the busy line up; the list again after it (unless it opened a panel). */
  busy(title: string, f: () => Promise<void>): Promise<void>;
}

type Run = Extract<Item, { kind: "run" }>["run"];

/** `s`, `k`, `r`, `R` on a run: a prompt or a question, then the action. */
export async function runAction(
  ui: Ui,
  action: "send" | "kill" | "respawn" | "resume",
  run: Run | null,
): Promise<void> {
  switch (action) {
    case "send":
      if (!run) return ui.say("select a run to send a line to", false);
      ui.state.mode = {
        kind: "input",
        title: `send a line to ${run.name ?? run.runId}`,
        text: "",
        submit: async (text) => ui.after(await ui.actions.send(run, text), run),
      };
      return ui.redraw();
    case "kill":
      if (!run) return ui.say("select a run to kill", false);
      ui.state.mode = {
        kind: "confirm",
        title: `kill ${run.name ?? run.runId}?`,
        lines: [`TERM to its process group, KILL after 10 s (ariel-runs kill ${run.name ?? run.runId})`],
        yes: async () => ui.after(await ui.actions.kill(run), run),
      };
      return ui.redraw();
    case "respawn":
    case "resume": {
      if (!run) return ui.say("select a run to respawn", false);
      const resume = action === "resume";
      const go = async () => ui.after(await ui.actions.respawn(run, resume), run);
      if (run.state !== "running" && run.state !== "starting") return ui.busy("respawning", go);
      ui.state.mode = {
        kind: "confirm",
        title: `respawn ${run.name ?? run.runId}${resume ? " --resume" : ""}? it is live: it is killed first`,
        lines: [],
        yes: go,
      };
      return ui.redraw();
    }
  }
}

/** The task an item stands for: a task, or the task a run works in. */
function taskOf(item: Item | null): { root: string; hash: string; taskId: string } | null {
  if (item?.kind === "task") return { ...item.workspace, taskId: item.taskId };
  if (item?.kind === "run" && item.run.task) return { ...item.run.workspace, taskId: item.run.task };
  return null;
}

/** `d`, `L`, `x` on a task (or a run in one): its diff in a pager; land: the plan, a question, the outcome; remove: a question, the outcome. */
export async function taskAction(
  ui: Ui,
  action: "diff" | "land" | "remove",
  item: Item | null,
): Promise<void> {
  const t = taskOf(item);
  if (!t)
    return ui.say(`select a task (or a run in one) to ${action === "diff" ? "see its diff" : action}`, false);
  if (action === "diff") {
    return ui.busy("reading the diff", async () => {
      try {
        const legs = await ui.actions.diff(t, t.taskId);
        const lines = legs.flatMap((d) => [
          `── ${d.source} · ${d.branch} · ${d.commits.length} commit(s) ahead of ${d.base.slice(0, 12)}, ${d.files.length} file(s) changed, ${d.uncommitted.length} uncommitted`,
          ...d.commits.map((c) => `commit ${c.commit.slice(0, 12)} ${c.subject}`),
          ...(d.patch ?? "").split("\n"),
        ]);
        ui.state.mode = { kind: "pager", title: `diff of task ${t.taskId}`, lines, scroll: 0 };
      } catch (e) {
        ui.show(failed(e));
      }
    });
  }
  if (action === "remove") {
    ui.state.mode = {
      kind: "confirm",
      title: `remove task ${t.taskId}'s worktrees?`,
      lines: [
        "branches are kept; a leg with work that would be lost is refused",
        `(ariel-worktree remove --task ${t.taskId})`,
      ],
      yes: async () => {
        const o = await ui.actions.remove(t, t.taskId);
        ui.fleet.touchTasks(t.hash, t.taskId);
        ui.show(o);
      },
    };
    return ui.redraw();
  }
  return ui.busy("planning the land", async () => {
    try {
      const { outcome } = await ui.actions.landPlan(t, t.taskId);
      if (!outcome.ok) return ui.show(outcome);
      ui.state.mode = {
        kind: "confirm",
        title: `land task ${t.taskId}? every leg or none (merge)`,
        lines: outcome.lines ?? [],
        yes: async () => {
          const o = await ui.actions.land(t, t.taskId);
          ui.fleet.touchTasks(t.hash, t.taskId);
          await ui.preview.show(ui.selected(), true);
          ui.show(o);
        },
      };
    } catch (e) {
      ui.show(failed(e));
    }
  });
}

import { ArielError } from "../../errors.ts";
import type { RunBackend } from "../../runs/backend.ts";
import { FINAL_STATES } from "../../runs/state.ts";
import { TTY_ENTER } from "../../runs/tty.ts";
import { shellWords } from "../../shell_words.ts";

/**
 * `ariel-runs send RUN TEXT [--enter]` (and the terminal UI's `s`): type `text` into a live tty or
 * --interactive run, then Enter on its own write, as a key pressed after the text (a paste with
 * its newline inside is taken as text by agents that read bracketed paste). A run started
 * without a terminal or stdin is ERR_USAGE (64); an ended one ERR_REFUSED (3), naming respawn.
 */
export async function sendToRun(
  backend: RunBackend,
  runId: string,
  text: string,
  enter: boolean,
  /** The run as the user named it, for hints (its id when not given). */
  named: string = runId,
): Promise<void> {
  const view = await backend.get(runId);
  const rec = view.record;
  if (!rec.tty && !rec.interactive) {
    throw new ArielError(
      "ERR_USAGE",
      `run ${runId} takes no input: it was started without --tty or --interactive`,
      { context: { runId } },
    );
  }
  if (FINAL_STATES.has(view.state)) {
    throw new ArielError("ERR_REFUSED", `run ${runId} is ${view.state}: nothing reads what is typed`, {
      hint: `ariel-runs respawn ${shellWords([named])} starts it again`,
      context: { runId, state: view.state },
    });
  }
  const bytes = new TextEncoder().encode(text);
  if (bytes.length > 0) await backend.sendInput(runId, bytes);
  if (enter) await backend.sendInput(runId, new TextEncoder().encode(rec.tty ? TTY_ENTER : "\n"));
}

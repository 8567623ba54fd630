import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";
import { didYouMean } from "../suggest.ts";

/** The shells `ariel-worktree shell-init` writes for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

// Task ids of the open tasks, and the sources of one task: the first and second column of
// `ariel-worktree list` in a pipe (stable tab-separated lines, no header).
const TASKS = "command ariel-worktree list --no-bytes 2>/dev/null | cut -f1 | sort -u";
const legsOf = (task: string) =>
  `command ariel-worktree list --no-bytes --task ${task} 2>/dev/null | cut -f2`;

const BASH = `# ariel-worktree shell-init bash: acd TASK [SOURCE] changes to a task's worktree.
acd() {
  local dir
  dir="$(command ariel-worktree path "$@")" || return
  cd -- "$dir" || return
}
_ariel_acd() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="$(${TASKS})"
  elif [ "$COMP_CWORD" -eq 2 ]; then
    words="$(${legsOf(`"\${COMP_WORDS[1]}"`)})"
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _ariel_acd acd
`;

const ZSH = `# ariel-worktree shell-init zsh: acd TASK [SOURCE] changes to a task's worktree.
acd() {
  local dir
  dir="$(command ariel-worktree path "$@")" || return
  cd -- "$dir" || return
}
_ariel_acd() {
  local -a items
  if (( CURRENT == 2 )); then
    items=(\${(f)"$(${TASKS})"})
  elif (( CURRENT == 3 )); then
    items=(\${(f)"$(${legsOf(`"\${words[2]}"`)})"})
  fi
  compadd -a items
}
if (( $+functions[compdef] )); then compdef _ariel_acd acd; fi
`;

const FISH = `# ariel-worktree shell-init fish: acd TASK [SOURCE] changes to a task's worktree.
function acd --description "cd to a task's worktree"
    set -l dir (command ariel-worktree path $argv); or return
    cd -- $dir
end
complete -c acd -f -n 'test (count (commandline -opc)) -eq 1' -a '(${TASKS})'
complete -c acd -f -n 'test (count (commandline -opc)) -eq 2' -a '(${legsOf("(commandline -opc)[2]")})'
`;

/**
 * The shell code `ariel-worktree shell-init SHELL` prints: an `acd TASK [SOURCE]` function that
 * changes to `ariel-worktree path TASK [SOURCE]`, with completion of task ids (then sources).
 * An unknown shell is ERR_USAGE (64) with a suggestion.
 *
 * @example
 * ```ts
 * shellInit("bash").includes("complete -F _ariel_acd acd"); // true
 * ```
 */
export function shellInit(shell: string): string {
  if (shell === "bash") return BASH;
  if (shell === "zsh") return ZSH;
  if (shell === "fish") return FISH;
  const suggestion = didYouMean(shell, SHELLS);
  throw new ArielError("ERR_USAGE", `unknown shell ${quoteValue(shell)}`, {
    hint: `${suggestion ? `${suggestion} ` : ""}use one of: ${SHELLS.join(", ")}`,
    context: { shell },
  });
}

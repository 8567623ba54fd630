import { shellInit } from "@ariel/core";
import { type ArgsDef, defineCommand, type RunContext } from "@ariel/core/host";
import { COMMON_ARGS } from "./_common.ts";

const args = {
  ...COMMON_ARGS,
  shell: { type: "positional", valueHint: "bash|zsh|fish", description: "the shell to write for" },
} as const satisfies ArgsDef;

/** `ariel-worktree shell-init`: the `acd` function, for `eval` in a shell's rc file. */
export const shellInitCommand = defineCommand({
  meta: {
    name: "shell-init",
    description: "print an acd TASK [SOURCE] shell function (cd to a task's leg) with completion",
    usage: "bash|zsh|fish",
    examples: [
      [
        "ariel-worktree shell-init bash",
        'for ~/.bashrc: eval "$(ariel-worktree shell-init bash)", then acd t1 api',
      ],
      [
        "ariel-worktree shell-init zsh",
        'for ~/.zshrc, after compinit: eval "$(ariel-worktree shell-init zsh)"',
      ],
      ["ariel-worktree shell-init fish", "for config.fish: ariel-worktree shell-init fish | source"],
    ],
  },
  args,
  run,
});

function run(ctx: RunContext<typeof args>): number {
  ctx.out.write(shellInit(ctx.args.shell));
  return 0;
}

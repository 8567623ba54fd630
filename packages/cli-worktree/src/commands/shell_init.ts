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
      ['eval "$(ariel-worktree shell-init bash)"', "in ~/.bashrc: acd t1 api goes to t1's api leg"],
      ['eval "$(ariel-worktree shell-init zsh)"', "in ~/.zshrc, after compinit"],
      ["ariel-worktree shell-init fish | source", "in ~/.config/fish/config.fish"],
    ],
  },
  args,
  run,
});

function run(ctx: RunContext<typeof args>): number {
  ctx.out.write(shellInit(ctx.args.shell));
  return 0;
}

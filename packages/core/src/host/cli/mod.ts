/**
 * @module host/cli — the command-line shell every ariel CLI shares: commands declared with
 * {@link defineCommand} (citty's shape, typed args, lazy sub-commands), strict parsing, help,
 * messages on stderr, and {@link runCli}, the one place that turns errors into exit statuses.
 * docs/architecture.md ("Writing a command") shows the pattern.
 */
export * from "./common_args.ts";
export * from "./context.ts";
export * from "./define.ts";
export * from "./help.ts";
export * from "./parse.ts";
export * from "./reporter.ts";
export * from "./route.ts";
export * from "./run.ts";
export * from "./terminal.ts";

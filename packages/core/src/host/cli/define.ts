/**
 * How an ariel command is declared: citty's vocabulary (`meta`, `args`, lazy `subCommands`, and
 * citty's arg definitions: `type`, `description`, `valueHint`, `alias`, `default`, `required`)
 * with what citty lacks added (repeatable flags, examples, a command after `--`) and a run
 * function that gets ariel's {@link RunContext}. The values a command receives are typed from
 * its `args`, so a misspelt flag or a wrong value type is a compile error.
 *
 * citty's runtime (`runMain`, `runCommand`, its non-strict parser) is not used: `runCli` parses
 * strictly, keeps usage and errors on stderr and decides exit statuses in one place
 * (docs/decisions/0020-cli-layer-cli.md).
 *
 * @example
 * ```ts
 * export const listCommand = defineCommand({
 *   meta: { name: "list", description: "list tasks", examples: [["ariel-worktree list --json", "as NDJSON"]] },
 *   args: { task: { type: "string", valueHint: "ID", description: "only this task" } },
 *   run(ctx) {
 *     const task = ctx.args.task; // string | undefined
 *     return 0;
 *   },
 * });
 * ```
 */
import type { BooleanArgDef, CommandMeta, PositionalArgDef, Resolvable, StringArgDef } from "citty";
import type { RunContext } from "./context.ts";

/** A boolean flag (`--json`). citty's `alias`: one letter is the short form (`-n`), longer ones are `--aliases`. */
export type BooleanFlagDef = BooleanArgDef & { type: "boolean" };

/** A flag with a value (`--task ID`); `multiple` makes it repeatable, collected in command-line order. */
export type StringFlagDef = StringArgDef & { type: "string"; multiple?: boolean };

/**
 * A positional argument (`logs RUN`), required unless `required: false` (as in citty);
 * `multiple` collects every remaining word (`wait RUN...`).
 */
export type PositionalDef = PositionalArgDef & { type: "positional"; multiple?: boolean };

export type ArgDef = BooleanFlagDef | StringFlagDef | PositionalDef;

/** A command's flags and positionals by name (the long flag name, e.g. "dry-run"). */
export type ArgsDef = Record<string, ArgDef>;

/** The value a command receives for one arg definition. */
export type ArgValue<D extends ArgDef> = D extends { multiple: true }
  ? string[]
  : D extends { type: "boolean" }
    ? D extends { default: boolean }
      ? boolean
      : boolean | undefined
    : D extends { type: "positional" }
      ? D extends { required: false }
        ? string | undefined
        : string
      : D extends { default: string }
        ? string
        : D extends { required: true }
          ? string
          : string | undefined;

/** Parsed values by arg name: what `ctx.args` is. Repeatable ones are arrays (empty when absent). */
export type ParsedArgs<T extends ArgsDef> = { readonly [K in keyof T]: ArgValue<T[K]> };

/** One `--help` example: the command line and what it does. */
export type Example = readonly [command: string, what: string];

/** citty's command meta, with ariel's help text. */
export interface Meta extends CommandMeta {
  name: string;
  description: string;
  /** The usage line after the command path, e.g. "[OPTIONS] -- CMD [ARGS...]". */
  usage?: string;
  /** 2–4 real command lines shown under `Examples:` in `--help`. */
  examples?: readonly Example[];
}

/** What the command takes after a literal `--` (ariel-spawn's command). */
export interface RestDef {
  /** Shown in messages and help, e.g. "CMD [ARGS...]". */
  valueHint: string;
}

/** A command or a group of sub-commands. */
export interface CommandDef<T extends ArgsDef = ArgsDef> {
  meta: Meta;
  /**
   * Flags (and positionals). On a command with sub-commands these are its global flags: accepted
   * before or after the sub-command's name, and given to the sub-command (which declares them
   * too, to get them typed).
   */
  args?: T;
  /** Everything after `--`, untouched; without it a `--` with words after it is a usage error. */
  rest?: RestDef;
  /** Sub-commands, each resolvable lazily: `() => import("./add.ts").then((m) => m.addCommand)`. */
  subCommands?: Record<string, Resolvable<CommandDef>>;
  /** Declared as a method, so a command with any args is a `CommandDef` (for routing and help). */
  run?(ctx: RunContext<T>): number | Promise<number>;
}

/**
 * Declare a command; the identity at run time (like citty's `defineCommand`), there so that
 * TypeScript infers the literal `args` and types `ctx.args` from them.
 */
export function defineCommand<const T extends ArgsDef = Record<never, ArgDef>>(
  def: CommandDef<T>,
): CommandDef<T> {
  return def;
}

/** A sub-command's definition, loading it when it is lazy. */
export async function resolveCommand(sub: Resolvable<CommandDef>): Promise<CommandDef> {
  return typeof sub === "function" ? await sub() : await sub;
}

/** The aliases of an arg, split into the one-letter short form and the long ones. */
export function aliasesOf(def: ArgDef): { short: string | undefined; long: string[] } {
  const all = def.type === "positional" ? [] : def.alias === undefined ? [] : [def.alias].flat();
  return { short: all.find((a) => a.length === 1), long: all.filter((a) => a.length > 1) };
}

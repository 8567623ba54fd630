/**
 * Finding the sub-command in a command line, as git and gh do: global flags may come before or
 * after its name (`ariel-worktree -C DIR list`, `ariel-worktree list -C DIR`), and
 * `help [COMMAND]` shows a command's help; `help contract` (every CLI) the contract in brief.
 */
import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import { didYouMean } from "../../suggest.ts";
import { type ArgsDef, aliasesOf, type CommandDef, resolveCommand } from "./define.ts";
import { BUILTIN_FLAGS, parseCommandLine } from "./parse.ts";

/** Where a command line leads. */
export type Route =
  /** Run (or show the help of) `def` with `argv` (the sub-command's name taken out). */
  | { kind: "command"; def: CommandDef; path: string; argv: readonly string[] }
  /** `help [COMMAND]`: the help of `def`. */
  | { kind: "help"; def: CommandDef; path: string; group: boolean }
  /** No sub-command named: the group's own flags (`--help`, `--version`, or a usage error). */
  | { kind: "group"; argv: readonly string[] }
  /** `help contract`: the output contract in brief (exit statuses, record rules). */
  | { kind: "contract" };

/** Index of the first word that is not a flag or a flag's value, before any `--`; -1 if none. */
function firstWord(argv: readonly string[], args: ArgsDef): number {
  const valued = new Set<string>();
  const all: ArgsDef = { ...args, ...BUILTIN_FLAGS };
  for (const [name, def] of Object.entries(all)) {
    if (def.type !== "string") continue;
    const { short, long } = aliasesOf(def);
    valued.add(`--${name}`);
    for (const a of long) valued.add(`--${a}`);
    if (short) valued.add(`-${short}`);
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") return -1;
    if (a.startsWith("-") && a !== "-") {
      if (valued.has(a)) i++;
      continue;
    }
    return i;
  }
  return -1;
}

/** The named sub-command of `group`, or a usage error with a "did you mean". */
async function subCommand(group: CommandDef, name: string): Promise<CommandDef> {
  const subs = group.subCommands ?? {};
  const sub = Object.hasOwn(subs, name) ? subs[name] : undefined;
  if (sub === undefined) {
    const suggestion = didYouMean(name, [...Object.keys(subs), "help"]);
    throw new ArielError("ERR_USAGE", `unknown command ${quoteValue(name)}`, {
      hint: `${suggestion ? `${suggestion} ` : ""}run ${group.meta.name} help to see the commands`,
    });
  }
  const def = await resolveCommand(sub);
  // The group's global flags are the sub-command's too.
  return { ...def, args: { ...group.args, ...def.args } };
}

/**
 * Route `argv` through `def`'s sub-commands (a command without any routes to itself).
 *
 * @example
 * ```ts
 * await routeCommand(worktree, ["-C", "/ws", "list", "--json"]);
 * // { kind: "command", def: <list>, path: "ariel-worktree list", argv: ["-C", "/ws", "--json"] }
 * ```
 */
export async function routeCommand(def: CommandDef, argv: readonly string[]): Promise<Route> {
  const name = def.meta.name;
  // Exactly `help contract` or `help`: in a CLI without sub-commands a bare word is an error, in
  // a group `contract` names no command, so neither takes anything away.
  if (argv.length === 2 && argv[0] === "help" && argv[1] === "contract") return { kind: "contract" };
  if (!def.subCommands) {
    if (argv.length === 1 && argv[0] === "help") return { kind: "help", def, path: name, group: false };
    return { kind: "command", def, path: name, argv };
  }
  const at = firstWord(argv, def.args ?? {});
  if (at === -1) return { kind: "group", argv };
  // What comes before the name must be the group's own flags: `--exclude x list` is a typo, not
  // the sub-command "x".
  if (at > 0) parseCommandLine(def.args ?? {}, argv.slice(0, at), { commandPath: name });
  const word = argv[at] as string;
  const others = [...argv.slice(0, at), ...argv.slice(at + 1)];
  if (word === "help") {
    const target = others.find((a) => !a.startsWith("-"));
    if (target === undefined) return { kind: "help", def, path: name, group: true };
    return { kind: "help", def: await subCommand(def, target), path: `${name} ${target}`, group: false };
  }
  return { kind: "command", def: await subCommand(def, word), path: `${name} ${word}`, argv: others };
}

/** A group's sub-commands with their descriptions, for its help (loads the lazy ones). */
export async function listCommands(group: CommandDef): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const [n, sub] of Object.entries(group.subCommands ?? {})) {
    out.push([n, (await resolveCommand(sub)).meta.description]);
  }
  return out;
}

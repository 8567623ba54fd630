/**
 * Strict flag parsing for ariel's commands, on node:util's tokenizer (Node and Deno both serve
 * it): unknown flags, missing values, a value given to a boolean, a non-repeatable flag given
 * twice and stray words are usage errors (ERR_USAGE, exit 64) that say what to type instead.
 */

import { parseArgs } from "node:util";
import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import { shellWords } from "../../shell_words.ts";
import { didYouMean } from "../../suggest.ts";
import { type ArgsDef, aliasesOf, type RestDef } from "./define.ts";

/** Parsed values by arg name, before typing: what {@link ParsedArgs} describes. */
export type ArgValues = Record<string, string | boolean | string[] | undefined>;

export interface ParseResult {
  values: ArgValues;
  /** Everything after the first `--` (empty without one). */
  rest: string[];
  help: boolean;
  version: boolean;
}

/** The flags every command takes besides its own. */
export const BUILTIN_FLAGS = {
  help: { type: "boolean", alias: "h", description: "show this help" },
  version: { type: "boolean", alias: "V", description: "print the version" },
} as const satisfies ArgsDef;

type Token = {
  kind: "option" | "positional" | "option-terminator";
  name?: string;
  rawName?: string;
  index: number;
  value?: string | undefined;
  inlineValue?: boolean | undefined;
};

function usage(message: string, hint?: string): ArielError {
  return new ArielError("ERR_USAGE", message, hint === undefined ? {} : { hint });
}

/** A value read as the next word that looks like a flag (node's rule: `-x`, never a lone `-`). */
function looksLikeFlag(value: string): boolean {
  return value.length > 1 && value.startsWith("-");
}

/**
 * Parse `argv` against `args`. `commandPath` names the command in messages; `rest` says whether
 * it takes a command after `--`.
 *
 * @example
 * ```ts
 * parseCommandLine({ task: { type: "string" } }, ["--task", "t1"], { commandPath: "x" });
 * // { values: { task: "t1" }, rest: [], help: false, version: false }
 * ```
 */
export function parseCommandLine(
  args: ArgsDef,
  argv: readonly string[],
  options: { commandPath: string; rest?: RestDef | undefined },
): ParseResult {
  const { commandPath } = options;
  const dd = argv.indexOf("--");
  const head = dd === -1 ? argv : argv.slice(0, dd);
  const rest = dd === -1 ? [] : argv.slice(dd + 1);
  const all: ArgsDef = { ...args, ...BUILTIN_FLAGS };
  const nodeOptions: Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean }> = {};
  const mainName = new Map<string, string>();
  const spellings: string[] = [];
  for (const [name, def] of Object.entries(all)) {
    if (def.type === "positional") continue;
    const { short, long } = aliasesOf(def);
    nodeOptions[name] = { type: def.type, ...(short ? { short } : {}) };
    mainName.set(name, name);
    spellings.push(`--${name}`, ...(short ? [`-${short}`] : []));
    for (const a of long) {
      nodeOptions[a] = { type: def.type };
      mainName.set(a, name);
      spellings.push(`--${a}`);
    }
  }
  const { tokens } = parseArgs({
    args: [...head],
    options: nodeOptions,
    strict: false,
    allowPositionals: true,
    tokens: true,
  }) as { tokens: Token[] };

  const values: ArgValues = {};
  const positionals: string[] = [];
  let help = false;
  let version = false;
  for (const t of tokens) {
    if (t.kind === "positional") {
      const value = t.value ?? "";
      if (options.rest && !Object.values(args).some((d) => d.type === "positional")) {
        // `ariel-spawn --source x ls`: the command belongs after `--`.
        const fixed = [...head.slice(0, t.index), "--", ...head.slice(t.index), ...(dd === -1 ? [] : rest)];
        throw usage(
          `unexpected argument ${quoteValue(value)}`,
          `put the command after --: ${commandPath} ${shellWords(fixed)}`,
        );
      }
      positionals.push(value);
      continue;
    }
    if (t.kind !== "option" || t.name === undefined) continue;
    const raw = t.rawName ?? t.name;
    const name = mainName.get(t.name);
    const def = name === undefined ? undefined : all[name];
    if (name === undefined || def === undefined || def.type === "positional") {
      const suggestion = didYouMean(raw, spellings);
      throw usage(
        `unknown flag ${quoteValue(raw)}`,
        `${suggestion ? `${suggestion} ` : ""}run ${commandPath} --help to see the flags`,
      );
    }
    if (def.type === "boolean") {
      if (t.value !== undefined) throw usage(`flag ${quoteValue(raw)} does not take a value`);
      if (name === "help") help = true;
      else if (name === "version") version = true;
      else values[name] = true;
      continue;
    }
    const hint = def.valueHint ?? "VALUE";
    if (t.value === undefined) throw usage(`flag ${quoteValue(raw)} needs a value`, `write ${raw} ${hint}`);
    if (t.inlineValue === false && looksLikeFlag(t.value)) {
      throw usage(
        `flag ${quoteValue(raw)} needs a value, but the next word ${quoteValue(t.value)} looks like a flag`,
        `to pass a value starting with "-", write ${shellWords([`${raw}${raw.startsWith("--") ? "=" : ""}${t.value}`])}`,
      );
    }
    if (def.multiple) {
      const prev = values[name];
      values[name] = [...(Array.isArray(prev) ? prev : []), t.value];
    } else {
      if (values[name] !== undefined) throw usage(`flag ${quoteValue(`--${name}`)} given twice`);
      values[name] = t.value;
    }
  }
  if (help || version) return { values, rest, help, version };
  assignPositionals(args, positionals, values, commandPath);
  if (rest.length > 0 && !options.rest) {
    throw usage(`unexpected argument ${quoteValue(rest[0])} after --: ${commandPath} takes no command`);
  }
  for (const [name, def] of Object.entries(args)) {
    if (values[name] === undefined && def.default !== undefined) values[name] = def.default;
    if (def.type === "string" && def.multiple && values[name] === undefined) values[name] = [];
    if (def.required === true && def.type === "string" && values[name] === undefined) {
      throw usage(`${commandPath} needs --${name} ${def.valueHint ?? "VALUE"}`);
    }
  }
  return { values, rest, help, version };
}

function assignPositionals(args: ArgsDef, words: string[], values: ArgValues, commandPath: string): void {
  let i = 0;
  for (const [name, def] of Object.entries(args)) {
    if (def.type !== "positional") continue;
    const label = def.valueHint ?? name.toUpperCase();
    if (def.multiple) {
      const all = words.slice(i);
      values[name] = all;
      i = words.length;
      if (all.length === 0 && def.required !== false) {
        throw usage(`${commandPath} needs ${label}`);
      }
      continue;
    }
    const word = words[i++];
    if (word === undefined) {
      if (def.required !== false && def.default === undefined) throw usage(`${commandPath} needs ${label}`);
      continue;
    }
    values[name] = word;
  }
  const extra = words[i];
  if (extra !== undefined) throw usage(`unexpected argument ${quoteValue(extra)}`);
}

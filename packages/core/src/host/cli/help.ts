/**
 * Plain-text help of a command (no colours: it is often piped): what it does, usage, its
 * sub-commands, flags, 2–4 examples, and the command that prints the exit statuses.
 */
import { type ArgDef, aliasesOf, type CommandDef, resolveCommand } from "./define.ts";
import { BUILTIN_FLAGS } from "./parse.ts";
import { listCommands } from "./route.ts";

function flagLine(name: string, def: ArgDef): string {
  if (def.type === "positional") return def.valueHint ?? name.toUpperCase();
  const { short, long } = aliasesOf(def);
  const names = [...(short ? [`-${short}`] : []), `--${name}`, ...long.map((a) => `--${a}`)];
  const value = def.type === "string" ? ` ${def.valueHint ?? "VALUE"}` : "";
  return `${names.join(", ")}${value}`;
}

function columns(rows: readonly (readonly [string, string])[]): string[] {
  const w = Math.max(...rows.map(([l]) => l.length));
  return rows.map(([l, d]) => `  ${l.padEnd(w)}  ${d}`.trimEnd());
}

/**
 * The help text. `commands` lists a group's sub-commands (name, description) when `def` is one.
 *
 * @example
 * ```ts
 * renderHelp(listCommand, "ariel-worktree list", "0.1.0").split("\n")[0];
 * // "ariel-worktree list 0.1.0: list task worktrees: ..."
 * ```
 */
export function renderHelp(
  def: CommandDef,
  commandPath: string,
  version: string,
  commands: readonly (readonly [string, string])[] = [],
): string {
  const { meta } = def;
  const lines = [`${commandPath}${version ? ` ${version}` : ""}: ${meta.description}`, ""];
  const usage = meta.usage ?? (commands.length > 0 ? "<command> [OPTIONS]" : "[OPTIONS]");
  lines.push(`Usage: ${commandPath} ${usage}`, "");
  if (commands.length > 0) {
    lines.push("Commands:", ...columns([...commands, ["help [COMMAND]", "show the help of a command"]]), "");
  }
  const args = Object.entries(def.args ?? {});
  const positionals = args.filter(([, d]) => d.type === "positional");
  if (positionals.length > 0) {
    lines.push(
      "Arguments:",
      ...columns(positionals.map(([n, d]) => [flagLine(n, d), d.description ?? ""])),
      "",
    );
  }
  const flags = [...args.filter(([, d]) => d.type !== "positional"), ...Object.entries(BUILTIN_FLAGS)];
  lines.push(
    commands.length > 0 ? "Global options (before or after the command):" : "Options:",
    ...columns(flags.map(([n, d]) => [flagLine(n, d), d.description ?? ""])),
    "",
  );
  if (meta.examples && meta.examples.length > 0) {
    lines.push("Examples:");
    for (const [command, what] of meta.examples) lines.push(`  # ${what}`, `  ${command}`);
    lines.push("");
  }
  lines.push(`Exit statuses and record rules: ${commandPath.split(" ")[0]} help contract`);
  return `${lines.join("\n")}\n`;
}

/**
 * Every help page of a CLI, its own and then each sub-command's in the order it lists them, as
 * one markdown document (docs/help/<bin>.md): what a reader can look up without the CLI
 * installed, and what a change to a description or an example shows in review. Without the
 * version, so a release does not change it.
 */
export async function renderHelpReference(def: CommandDef): Promise<string> {
  const bin = def.meta.name;
  const commands = await listCommands(def);
  const pages = [`## ${bin}\n\n\`\`\`text\n${renderHelp(def, bin, "", commands)}\`\`\`\n`];
  for (const [name, lazy] of Object.entries(def.subCommands ?? {})) {
    const sub = await resolveCommand(lazy);
    pages.push(`## ${bin} ${name}\n\n\`\`\`text\n${renderHelp(sub, `${bin} ${name}`, "")}\`\`\`\n`);
  }
  const intro =
    `# ${bin}: every help page\n\n` +
    `What \`${bin} --help\`${commands.length > 0 ? ` and \`${bin} COMMAND --help\` print` : " prints"}, the first line without the ` +
    "version. Generated from the commands by `npm run schema`; a test fails when it differs.\n";
  return [intro, ...pages].join("\n");
}

/**
 * The `n` form: where (a source or an existing task), the agent, the command, a name, and
 * toggles. Fields and toggles are data: a flag `ariel-spawn --detach` gains later is one row of
 * {@link TOGGLES} (its label, the flag a person would type, and how it changes the request the
 * form makes). Pure: the form's state in, the request and the command line it stands for out.
 */
import { shellWords } from "@ariel/core";

/** The request the form makes: what the app hands to the host's detached start. */
export interface NewRunRequest {
  /**
   * Source names (completed from discovery), separated by spaces or commas (see
   * {@link sourceNames}: `api web` is `--source api --source web`), or "" for the workspace root.
   */
  source: string;
  /** An existing or new task id with isolate ("" for a generated one). */
  task: string;
  name: string;
  agent: string;
  argv: string[];
  isolate: boolean;
  span: boolean;
  /** Keep the worktree when the run ends (`--keep`; by default a clean one is removed). */
  keep: boolean;
  /** Set by the `sandbox` row: the field `ariel-spawn --sandbox` fills (see TOGGLES). */
  sandbox: boolean;
}

/** A toggle of the form: one row per `ariel-spawn` flag. */
export interface Toggle {
  id: string;
  label: string;
  /** The flag on the command line the form shows. */
  flag: string;
  /** What it changes in the request. */
  apply: (req: NewRunRequest) => NewRunRequest;
}

export const TOGGLES: readonly Toggle[] = [
  {
    id: "isolate",
    label: "isolate (own worktree)",
    flag: "--isolate",
    apply: (r) => ({ ...r, isolate: true }),
  },
  {
    id: "keep",
    label: "keep the worktree when it ends",
    flag: "--keep",
    apply: (r) => ({ ...r, isolate: true, keep: true }),
  },
  {
    id: "span",
    label: "span (one task over the sources)",
    flag: "--span",
    apply: (r) => ({ ...r, isolate: true, span: true }),
  },
  {
    id: "sandbox",
    label: "sandbox",
    flag: "--sandbox",
    apply: (r) => ({ ...r, sandbox: true }),
  },
];

export const FIELDS = ["source", "task", "agent", "command", "name"] as const;
export type Field = (typeof FIELDS)[number];

export const FIELD_LABELS: Record<Field, string> = {
  source: "source",
  task: "task",
  agent: "agent",
  command: "command",
  name: "name",
};

export interface FormState {
  values: Record<Field, string>;
  /** Toggle ids that are on. */
  on: string[];
  /** The row with the cursor: a field, or a toggle's index after the fields. */
  row: number;
  error: string | null;
}

export function newForm(defaults: Partial<Record<Field, string>> = {}): FormState {
  return {
    values: { source: "", task: "", agent: "", command: "", name: "", ...defaults },
    on: [],
    row: 0,
    error: null,
  };
}

/** The toggles the form offers, one row each. */
export function toggles(): Toggle[] {
  return [...TOGGLES];
}

/** Split a command line on spaces, keeping '…' and "…" together (no shell: nothing expands). */
export function splitCommand(line: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2]?.replace(/\\(.)/g, "$1") ?? m[3]!);
  return out;
}

/**
 * The request of a filled form, or why it cannot be made. The agent names the program to run
 * when the command is empty (`claude`), else the preset for the command (`--agent`).
 */
export function requestOf(form: FormState): NewRunRequest | { error: string } {
  const v = form.values;
  const argv = splitCommand(v.command.trim() === "" ? v.agent : v.command);
  if (argv.length === 0) return { error: "name an agent or a command to run" };
  let req: NewRunRequest = {
    source: v.source.trim(),
    task: v.task.trim(),
    name: v.name.trim(),
    agent: v.agent.trim(),
    argv,
    isolate: false,
    span: false,
    keep: false,
    sandbox: false,
  };
  for (const t of toggles()) if (form.on.includes(t.id)) req = t.apply(req);
  if (req.task !== "" && !req.isolate) req = { ...req, isolate: true };
  return req;
}

/** The `ariel-spawn` command line the form stands for (shown under the form, and in docs). */
export function commandLine(form: FormState): string {
  const r = requestOf(form);
  if ("error" in r) return "";
  const flags = ["ariel-spawn", "--detach", "--tty"];
  if (r.name) flags.push("--name", r.name);
  for (const s of sourceNames(r.source)) flags.push("--source", s);
  for (const t of toggles()) if (form.on.includes(t.id)) flags.push(t.flag);
  if (r.task) flags.push("--task", r.task);
  if (r.agent && v(form).command.trim() !== "") flags.push("--agent", r.agent);
  return shellWords([...flags, "--", ...r.argv]);
}

const v = (form: FormState) => form.values;

/**
 * The sources a form's source field names: its words, split on spaces and commas.
 *
 * @example
 * ```ts
 * sourceNames("api, web"); // ["api", "web"]
 * ```
 */
export function sourceNames(field: string): string[] {
  return field.split(/[\s,]+/).filter((s) => s !== "");
}

/**
 * Complete the last of the words in `text` from `names` (the source field, which takes several):
 * the words before it kept as they are.
 *
 * @example
 * ```ts
 * completeLast("api w", ["api", "web"]); // "api web"
 * ```
 */
export function completeLast(text: string, names: readonly string[]): string {
  const at = Math.max(text.lastIndexOf(" "), text.lastIndexOf(",")) + 1;
  const last = text.slice(at);
  if (last === "") return text;
  return text.slice(0, at) + complete(last, names);
}

/**
 * Complete `text` from `names` (sources from discovery, task ids): the one name it starts, or
 * the longest start they share; `text` itself when nothing starts with it.
 *
 * @example
 * ```ts
 * complete("al", ["alpha", "beta"]); // "alpha"
 * complete("a", ["api", "app"]); // "ap"
 * ```
 */
export function complete(text: string, names: readonly string[]): string {
  const hits = names.filter((n) => n.startsWith(text));
  if (hits.length === 0) return text;
  let common = hits[0]!;
  for (const h of hits) while (!h.startsWith(common)) common = common.slice(0, -1);
  return common.length > text.length ? common : text;
}

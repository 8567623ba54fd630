/**
 * Every key of the list, as data: what `?` shows, what the status line offers, what
 * docs/tui.md lists (a test checks the page names each), and what the app dispatches on.
 */

export type Action =
  | "attach"
  | "new"
  | "send"
  | "kill"
  | "respawn"
  | "resume"
  | "diff"
  | "land"
  | "remove"
  | "filter"
  | "up"
  | "down"
  | "pageUp"
  | "pageDown"
  | "focus"
  | "help"
  | "quit";

export interface KeyBinding {
  /** The key names that do it (as {@link decodeKeys} names them). */
  keys: readonly string[];
  /** How `?` and the docs write the keys. */
  label: string;
  action: Action;
  help: string;
  /** Shown on the status line (the few a person needs first). */
  status?: string;
}

export const KEYS: readonly KeyBinding[] = [
  {
    keys: ["enter"],
    label: "Enter",
    action: "attach",
    help: "attach: be the run's terminal; Ctrl-] comes back here",
    status: "attach",
  },
  {
    keys: ["n"],
    label: "n",
    action: "new",
    help: "new run: source or task, agent, command, isolate/span/sandbox",
    status: "new",
  },
  {
    keys: ["s"],
    label: "s",
    action: "send",
    help: "send a line to the run (typed, then Enter)",
    status: "send",
  },
  {
    keys: ["k"],
    label: "k",
    action: "kill",
    help: "kill the run (asks): TERM to its group, KILL after 10 s",
    status: "kill",
  },
  {
    keys: ["r"],
    label: "r",
    action: "respawn",
    help: "respawn: the same spec again (a live run is killed first)",
  },
  {
    keys: ["R"],
    label: "R",
    action: "resume",
    help: "respawn --resume: go on with the agent's conversation",
  },
  {
    keys: ["d"],
    label: "d",
    action: "diff",
    help: "the task's diff: per leg, commits, files, the patch",
    status: "diff",
  },
  {
    keys: ["L"],
    label: "L",
    action: "land",
    help: "land the task: the plan, asks, each leg's outcome (all or none)",
    status: "land",
  },
  {
    keys: ["x"],
    label: "x",
    action: "remove",
    help: "remove the task's worktrees (asks; refuses to lose work)",
  },
  {
    keys: ["/"],
    label: "/",
    action: "filter",
    help: "filter by name, source, task, command or state",
    status: "filter",
  },
  {
    keys: ["up", "K"],
    label: "↑ K",
    action: "up",
    help: "the previous item (in the preview: scroll up)",
  },
  {
    keys: ["down", "j"],
    label: "↓ j",
    action: "down",
    help: "the next item (in the preview: scroll down)",
  },
  { keys: ["pageup"], label: "PgUp", action: "pageUp", help: "a page up" },
  { keys: ["pagedown", "space"], label: "PgDn Space", action: "pageDown", help: "a page down" },
  { keys: ["tab"], label: "Tab", action: "focus", help: "move between the list and the preview" },
  { keys: ["?"], label: "?", action: "help", help: "this help", status: "help" },
  {
    keys: ["q", "ctrl-c"],
    label: "q",
    action: "quit",
    help: "quit (runs go on; nothing is stopped)",
    status: "quit",
  },
];

/**
 * `k` kills, as the issue asks; `K` and the arrows move up. A list also scrolls with `j`/`k` in
 * many programs: in the preview (Tab), where nothing is killed, `k` scrolls up.
 */
export function actionOf(key: string, focus: "list" | "preview"): Action | null {
  if (focus === "preview" && key === "k") return "up";
  return KEYS.find((b) => b.keys.includes(key))?.action ?? null;
}

/**
 * Key names of a chunk read from a terminal in raw mode: printable characters as themselves,
 * `enter`, `tab`, `backspace`, `escape`, `up`/`down`/`left`/`right`, `pageup`/`pagedown`,
 * `home`/`end`, `ctrl-X`, `space`. An unknown escape sequence is one `unknown` key.
 *
 * @example
 * ```ts
 * decodeKeys("j\x1b[A\r"); // ["j", "up", "enter"]
 * ```
 */
export function decodeKeys(chunk: string): string[] {
  const keys: string[] = [];
  const CSI: Record<string, string> = {
    A: "up",
    B: "down",
    C: "right",
    D: "left",
    H: "home",
    F: "end",
    "5~": "pageup",
    "6~": "pagedown",
    "1~": "home",
    "4~": "end",
    "3~": "delete",
    Z: "backtab",
  };
  for (let i = 0; i < chunk.length; ) {
    const c = chunk[i]!;
    if (c === "\x1b") {
      const m = /^\x1b[[O]([0-9;]*[A-Za-z~])/.exec(chunk.slice(i));
      if (m) {
        keys.push(CSI[m[1]!.replace(/^1;\d+/, "")] ?? "unknown");
        i += m[0].length;
      } else {
        keys.push("escape");
        i++;
      }
      continue;
    }
    const code = c.charCodeAt(0);
    if (c === "\r" || c === "\n") keys.push("enter");
    else if (c === "\t") keys.push("tab");
    else if (c === "\x7f" || c === "\b") keys.push("backspace");
    else if (c === " ") keys.push("space");
    else if (code < 0x20) keys.push(`ctrl-${String.fromCharCode(code + 0x60)}`);
    else {
      const cp = chunk.codePointAt(i)!;
      keys.push(String.fromCodePoint(cp));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    i++;
  }
  return keys;
}

/**
 * One check over every `--json` line the end-to-end suite gets from a CLI: each is one JSON
 * object whose first two keys are `v` and `type` (docs/contract.md). Every helper that starts a
 * built CLI hands its process to {@link watchJsonLines}; what is wrong is kept here, and the
 * vitest setup (`json_lines_setup.ts`) fails the test it happened in. Works under Deno too (no
 * vitest here).
 */
import type { ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";

const found: string[] = [];

/** True when `args` ask for `--json`, before any `--` (what follows is a child's argv). */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--json");
}

/**
 * Why `line` is not a record of the contract's shape, or null: not one JSON object, or its first
 * two keys are not `v`, `type`. Test hooks' markers (`ariel-test-…`) are not records.
 *
 * @example
 * ```ts
 * recordLineProblem('{"v":1,"type":"run"}'); // null
 * recordLineProblem('{"type":"run","v":1}'); // 'the first keys are ["type","v"], not ["v","type"]'
 * ```
 */
export function recordLineProblem(line: string): string | null {
  if (line === "" || line.startsWith("ariel-test-")) return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return "not a JSON record";
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "not a JSON object";
  const first = Object.keys(value).slice(0, 2);
  return first[0] === "v" && first[1] === "type"
    ? null
    : `the first keys are ${JSON.stringify(first)}, not ["v","type"]`;
}

/**
 * Check each whole line of `child`'s stdout and stderr as it comes, when `args` ask for `--json`
 * (`what` names the command in the report). A torn last line is not checked.
 */
export function watchJsonLines(child: ChildProcess, what: string, args: readonly string[]): void {
  if (!wantsJson(args)) return;
  for (const [name, stream] of [
    ["stdout", child.stdout],
    ["stderr", child.stderr],
  ] as const) {
    if (!stream) continue;
    const decoder = new StringDecoder("utf8");
    let pending = "";
    stream.on("data", (chunk: Buffer | string) => {
      pending += typeof chunk === "string" ? chunk : decoder.write(chunk);
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const why = recordLineProblem(line);
        if (why) found.push(`${what} ${args.join(" ")}: ${name}: ${why}: ${line.slice(0, 300)}`);
      }
    });
  }
}

/** The problems found since the last call (the setup fails the test with them). */
export function takeJsonLineProblems(): string[] {
  return found.splice(0);
}

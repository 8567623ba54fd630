import { ArielError } from "../errors.ts";
import { sourceNameProblem, validateSourceName } from "../names.ts";
import { parseNdjsonLine, readLines } from "../ndjson.ts";
import { checkRecord } from "../schema/mod.ts";
import { type SourceRecord, sourceSchema } from "../schema/source.ts";

/**
 * What a user named as a target, before it is resolved against the workspace:
 * - `name`: a source name (workspace-relative POSIX path, `.` for the root);
 * - `path`: a filesystem path (absolute, or starting with `./` or `../`), resolved against the cwd;
 * - `record`: a `source` record as `ariel-discover --json` prints it (its `name` is used, its
 *   `path` must agree with the workspace).
 */
export type TargetSpec =
  | { kind: "name"; name: string; origin: string }
  | { kind: "path"; path: string; origin: string }
  | { kind: "record"; name: string; path: string; origin: string };

/** True when a plain target is a filesystem path rather than a source name. */
export function isPathLike(text: string): boolean {
  return text.startsWith("/") || text.startsWith("./") || text.startsWith("../") || text === "..";
}

/**
 * Classify one `--source` value.
 *
 * @example
 * ```ts
 * parseTargetArg("api");   // { kind: "name", name: "api", origin: "--source api" }
 * parseTargetArg("./api"); // { kind: "path", path: "./api", origin: "--source ./api" }
 * ```
 */
export function parseTargetArg(value: string): TargetSpec {
  const origin = `--source ${value}`;
  if (value === "") throw new ArielError("ERR_USAGE", "--source needs a source name or path");
  if (isPathLike(value)) return { kind: "path", path: value, origin };
  return { kind: "name", name: validateSourceName(value), origin };
}

function invalid(line: number, message: string, hint?: string): ArielError {
  return new ArielError("ERR_INVALID_INPUT", `stdin line ${line}: ${message}`, {
    ...(hint ? { hint } : {}),
    context: { line },
  });
}

/**
 * Parse the targets read from stdin (`--source -`): one per line, either a `source` record as
 * `ariel-discover --json` prints it, or a plain source name or path. Blank lines are skipped. A
 * line that is any other JSON value (`null`, `true`, `42`, `"x"`, `[...]`) is rejected rather
 * than looked up as a name; a source named like a JSON literal is given as a path (`./42`).
 * Any malformed line rejects the whole input (ERR_INVALID_INPUT, exit 65, naming the line), so
 * nothing starts on half a list.
 *
 * @example
 * ```ts
 * parseTargetLines('{"v":1,"type":"source","name":"api","path":"/w/api"}\nweb\n');
 * // [{ kind: "record", name: "api", path: "/w/api", origin: "stdin line 1" },
 * //  { kind: "name", name: "web", origin: "stdin line 2" }]
 * ```
 */
export async function parseTargetLines(
  input: string | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
): Promise<TargetSpec[]> {
  const specs: TargetSpec[] = [];
  try {
    for await (const { line: n, text } of readLines(input)) {
      if (text.charCodeAt(0) === 0xfeff) {
        throw invalid(n, "starts with a UTF-8 byte order mark (BOM)", "write plain UTF-8 without a BOM");
      }
      const line = text.trim();
      if (line === "") continue;
      const origin = `stdin line ${n}`;
      if (line.startsWith("{")) {
        specs.push({ ...parseSourceRecord(line, n), origin });
        continue;
      }
      const kind = jsonKind(line);
      if (kind !== null) {
        throw invalid(
          n,
          `expected a source record (a JSON object), a source name or a path, got ${kind}`,
          kind === "an array"
            ? `for a JSON array of records, pipe it through jq -c '.[]'`
            : kind === "a string"
              ? "pipe in `ariel-discover --json` output, or one source name or path a line"
              : `a source whose name is a JSON literal is given as a path: ./${line}`,
        );
      }
      if (/[\u0000-\u001f\u007f]/.test(line)) throw invalid(n, "control character in a source name or path");
      if (isPathLike(line)) {
        specs.push({ kind: "path", path: line, origin });
        continue;
      }
      const problem = sourceNameProblem(line);
      if (problem) throw invalid(n, `invalid source name ${JSON.stringify(line)}: ${problem}`);
      specs.push({ kind: "name", name: line, origin });
    }
  } catch (e) {
    // The core's reader says "line N: ..."; say where the line came from.
    if (e instanceof ArielError && e.message.startsWith("line ")) e.message = `stdin ${e.message}`;
    throw e;
  }
  return specs;
}

/**
 * What a line is when it parses as a JSON value other than an object (`null`, `true`, `42`,
 * `"x"`, `[1]`), or null when it is no JSON at all: such a line is never taken as a source name.
 */
function jsonKind(line: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // Broken JSON that starts like an array or a string is still no name.
    return line.startsWith("[") ? "an array" : line.startsWith('"') ? "a string" : null;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? null : `a ${typeof value}`;
}

/** Parse and check one `source` record line; returns its name and path. */
function parseSourceRecord(line: string, n: number): { kind: "record"; name: string; path: string } {
  let rec: Record<string, unknown>;
  try {
    rec = parseNdjsonLine(line, n) as Record<string, unknown>;
  } catch (e) {
    // `{` alone on a line, or an object cut at a line break: JSON printed over several lines.
    if (e instanceof ArielError && !line.endsWith("}")) {
      throw new ArielError(e.code, e.message, {
        hint: "the input looks like pretty-printed JSON; records must be one a line: pipe it through jq -c",
        context: e.context,
      });
    }
    throw e;
  }
  if (rec.type !== "source") {
    throw invalid(
      n,
      `expected a "source" record, got type ${JSON.stringify(rec.type ?? null)}`,
      "pipe in `ariel-discover --json` output, or one source name or path a line",
    );
  }
  let source: SourceRecord;
  try {
    source = checkRecord(sourceSchema(), rec, `stdin line ${n}`);
  } catch (e) {
    if (e instanceof ArielError) Object.assign(e.context, { line: n });
    throw e;
  }
  const problem = sourceNameProblem(source.name);
  if (problem) throw invalid(n, `invalid source name ${JSON.stringify(source.name)}: ${problem}`);
  return { kind: "record", name: source.name, path: source.path };
}

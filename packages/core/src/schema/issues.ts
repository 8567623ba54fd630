/**
 * zod issues as one readable line each: `leaseTtlMs: must be at least 1000`. zod/mini ships no
 * messages ("Invalid input"), so the common issue kinds are spelled out here.
 */
import type * as z from "zod/mini";

type Issue = z.core.$ZodIssue;

/** `a.b[0].c` for a zod issue path; `(root)` when empty. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out === "" ? "(root)" : out;
}

function describe(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return `expected ${issue.expected}`;
    case "too_small":
      return issue.origin === "array" || issue.origin === "string"
        ? `must have at least ${issue.minimum} ${issue.origin === "array" ? "item(s)" : "character(s)"}`
        : `must be at least ${issue.minimum}`;
    case "too_big":
      return issue.origin === "array" || issue.origin === "string"
        ? `must have at most ${issue.maximum} ${issue.origin === "array" ? "item(s)" : "character(s)"}`
        : `must be at most ${issue.maximum}`;
    case "invalid_value":
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}`;
    case "invalid_format":
      return issue.pattern ? `must match ${issue.pattern}` : `must be a valid ${issue.format}`;
    case "unrecognized_keys":
      return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
    case "invalid_union":
      return "matches none of the allowed forms";
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    default:
      return issue.message || "is invalid";
  }
}

/** One line for one issue: `<path>: <what is wrong>`. */
export function formatIssue(issue: Issue): string {
  return `${issuePath(issue.path)}: ${describe(issue)}`;
}

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

/**
 * The issue to report: for a union the value did match one form of by its type (an object for
 * `true | {…}`), that form's own first issue, with the whole path; else the issue itself.
 */
export function innermostIssue(issue: Issue): Issue {
  if (issue.code !== "invalid_union") return issue;
  const fits = issue.errors.filter(
    (b) => b.length > 0 && !(b[0]!.code === "invalid_type" && b[0]!.path.length === 0),
  );
  if (fits.length !== 1) return issue;
  const inner = fits[0]![0]!;
  return innermostIssue({ ...inner, path: [...issue.path, ...inner.path] } as Issue);
}

/** One line for one issue: `<path>: <what is wrong>`. */
export function formatIssue(issue: Issue): string {
  const i = innermostIssue(issue);
  return `${issuePath(i.path)}: ${describe(i)}`;
}

import type { ArgsDef } from "./define.ts";

/**
 * `-C DIR` / `--workspace-root DIR` / `--repo-root DIR`: the flag every ariel CLI takes, defined
 * once. Spread it into a command's args: `args: { ...WORKSPACE_ROOT_ARG, json: … }`.
 */
export const WORKSPACE_ROOT_ARG = {
  "workspace-root": {
    type: "string",
    alias: ["C", "repo-root"],
    valueHint: "DIR",
    description:
      "the workspace root (default: $ARIEL_WORKSPACE_ROOT, .ariel/ or the git top level above the cwd)",
  },
} as const satisfies ArgsDef;

/** `--json`: NDJSON records on stdout, errors and warnings as NDJSON on stderr. Defined once. */
export const JSON_ARG = {
  json: { type: "boolean", description: "NDJSON records on stdout (errors as NDJSON on stderr)" },
} as const satisfies ArgsDef;

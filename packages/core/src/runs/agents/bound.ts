/**
 * A payload cut to size before it leaves the agent's side (the reporter): ariel reads a few
 * scalar fields of each payload, and a tool's input may be a whole file. Strings are cut, deep
 * objects and long lists dropped, so a report fits in one small line. Pure, and imports nothing:
 * the reporter bundles it, and must start fast.
 *
 * @example
 * ```ts
 * boundPayload({ tool_name: "Write", tool_input: { content: "x".repeat(10_000) } }).tool_input;
 * // { content: "xxx…" } (2,048 characters)
 * ```
 */

/** The limits of {@link boundPayload}. */
export const PAYLOAD_BOUNDS = { depth: 3, string: 2048, items: 16, keys: 64 } as const;

/** `value` with every string, list and object within {@link PAYLOAD_BOUNDS}. */
export function boundPayload(value: unknown, depth = 0): unknown {
  if (typeof value === "string") {
    return value.length <= PAYLOAD_BOUNDS.string ? value : `${value.slice(0, PAYLOAD_BOUNDS.string - 1)}…`;
  }
  if (typeof value !== "object" || value === null) return value;
  if (depth >= PAYLOAD_BOUNDS.depth) return Array.isArray(value) ? [] : {};
  if (Array.isArray(value))
    return value.slice(0, PAYLOAD_BOUNDS.items).map((v) => boundPayload(v, depth + 1));
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(value)) {
    if (n++ >= PAYLOAD_BOUNDS.keys) break;
    out[k.slice(0, 128)] = boundPayload(v, depth + 1);
  }
  return out;
}

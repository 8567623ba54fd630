/** The Node-style error code of a thrown value (`ENOENT`, ...), or "". */
export function errCode(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

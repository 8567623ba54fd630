/** Lexical POSIX path helpers for discovery's hot path (no I/O, no dependency). */

/** Join `rel` onto the absolute directory `dir` (an absolute `rel` wins) and normalize `.`/`..`. */
export function resolveFrom(dir: string, rel: string): string {
  return normalizeAbs(rel.startsWith("/") ? rel : `${dir}/${rel}`);
}

/** Normalize an absolute POSIX path: collapse `//`, `.` and `..`; no trailing slash. */
export function normalizeAbs(p: string): string {
  if (!p.includes("/.") && !p.includes("//") && !(p.length > 1 && p.endsWith("/"))) return p;
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return `/${out.join("/")}`;
}

/** `child` is `root` or lies below it (both normalized absolute paths). */
export function isUnder(root: string, child: string): boolean {
  if (root === "/") return child.startsWith("/");
  return child === root || child.startsWith(`${root}/`);
}

/** The Node-style error code of a thrown value (`ENOENT`, ...), or "". */
export function errCode(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

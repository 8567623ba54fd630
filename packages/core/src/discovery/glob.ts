/**
 * A small glob matcher for `--exclude`: `*` (any run of characters except `/`), `**` (any run
 * including `/`; `a/**\/b` also matches `a/b`), `?` (one character except `/`), `[abc]`, `[a-z]`,
 * `[!abc]` / `[^abc]`, and `\x` for a literal `x`. A pattern is matched against a directory's
 * workspace-relative POSIX path and against its basename; a leading `/` anchors it to the path
 * only; a trailing `/` is ignored (every candidate is a directory).
 *
 * @example
 * ```ts
 * const m = compileGlobs(["vendor", "legacy-*", "/tools/**"]);
 * m("libs/vendor");   // true (basename)
 * m("legacy-api");    // true
 * m("tools/a/b");     // true (anchored)
 * m("x/tools/a");     // false
 * ```
 */

/** Translate one glob into an anchored RegExp. Throws TypeError on an unclosed `[`. */
export function globToRegExp(glob: string): RegExp {
  let re = "^";
  let i = 0;
  while (i < glob.length) {
    const c = glob[i] as string;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        // `**/` matches zero or more whole directories; a bare `**` anything at all.
        if (glob[i + 2] === "/") {
          re += "(?:.*/)?";
          i += 3;
        } else {
          re += ".*";
          i += 2;
        }
      } else {
        re += "[^/]*";
        i += 1;
      }
    } else if (c === "?") {
      re += "[^/]";
      i += 1;
    } else if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end === -1) throw new TypeError(`unclosed '[' in glob ${JSON.stringify(glob)}`);
      let body = glob.slice(i + 1, end);
      let negate = false;
      if (body[0] === "!" || body[0] === "^") {
        negate = true;
        body = body.slice(1);
      }
      const cls = body.replace(/[\\\]^]/g, (m) => `\\${m}`);
      re += negate ? `[^/${cls}]` : `[${cls}]`;
      i = end + 1;
    } else if (c === "\\" && i + 1 < glob.length) {
      re += escapeRegExp(glob[i + 1] as string);
      i += 2;
    } else {
      re += escapeRegExp(c);
      i += 1;
    }
  }
  return new RegExp(`${re}$`, "s");
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, (m) => `\\${m}`);
}

/** True when `relPath` (workspace-relative POSIX, no leading `./`) matches `glob`. */
export function matchGlob(glob: string, relPath: string): boolean {
  return compileGlobs([glob])(relPath);
}

/**
 * Compile `--exclude` patterns once into a predicate over workspace-relative POSIX paths.
 * Throws TypeError for a malformed pattern (the CLI reports it as a usage error).
 */
export function compileGlobs(globs: readonly string[]): (relPath: string) => boolean {
  const anchored: RegExp[] = [];
  const floating: RegExp[] = [];
  for (const raw of globs) {
    let g = raw;
    while (g.length > 1 && g.endsWith("/")) g = g.slice(0, -1);
    if (g.startsWith("/")) anchored.push(globToRegExp(g.replace(/^\/+/, "")));
    else floating.push(globToRegExp(g));
  }
  if (anchored.length === 0 && floating.length === 0) return () => false;
  return (relPath) => {
    const slash = relPath.lastIndexOf("/");
    const base = slash === -1 ? relPath : relPath.slice(slash + 1);
    for (const re of anchored) if (re.test(relPath)) return true;
    for (const re of floating) if (re.test(relPath) || re.test(base)) return true;
    return false;
  };
}

import { accessSync, constants as fsConstants, statSync } from "node:fs";

/**
 * The file `execvp` would run for `command` along `path` (a PATH value), or null when it must
 * be left to the search at each start: the command names a path (has a `/`), there is no PATH,
 * a PATH entry before the match is relative (its meaning depends on the child's cwd), or no
 * entry holds an executable regular file (the search then reports the error as before). Looked
 * up once for a fan-out instead of once per child: the child's search along PATH (one failed
 * `execve` per entry before the match) runs while the parent waits for the exec.
 *
 * @example
 * ```ts
 * findOnPath("git", "/usr/local/bin:/usr/bin"); // "/usr/bin/git"
 * findOnPath("./build.sh", "/usr/bin");         // null: run as given
 * ```
 */
export function findOnPath(command: string, path: string | undefined): string | null {
  if (command === "" || command.includes("/") || path === undefined) return null;
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/")) return null;
    const file = dir.endsWith("/") ? `${dir}${command}` : `${dir}/${command}`;
    try {
      accessSync(file, fsConstants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not there, or not executable: execvp goes on to the next entry too
    }
  }
  return null;
}

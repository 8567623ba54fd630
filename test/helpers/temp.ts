/**
 * Temporary workspaces for a vitest file, removed after each test.
 *
 * @example
 * ```ts
 * const { ws, track } = tempWorkspaces();
 * it("…", () => { const root = ws(["api", "web"]); const home = track(tempDir()); });
 * ```
 */
import { afterEach } from "vitest";
import { workspace } from "../spawn_helpers.ts";
import { removeDir } from "./git.ts";

export function tempWorkspaces(): {
  ws: (names: readonly string[]) => string;
  track: (dir: string) => string;
} {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) removeDir(d);
  });
  const track = (dir: string) => {
    dirs.push(dir);
    return dir;
  };
  return { ws: (names) => track(workspace(names)), track };
}

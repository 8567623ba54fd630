/**
 * For the walk's tests only: trees of a chosen shape, a walked tree by path, and `find` wrappers
 * that record each invocation (its working directory, its temporary output file, its start
 * points) in a file of its own before running GNU find.
 * @internal
 *
 * @example
 * ```ts
 * const find = loggingFind(join(root, "find-a"));
 * await walkTrees([tree], newWalkState(), { jobs: 1, find: find.path });
 * find.calls(); // [{ cwd: tree, output: "/tmp/ariel-du-…", starts: ["./d000", …] }]
 * ```
 */
import { spawnSync } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DuTree } from "../../disk/usage.ts";

/** Allocated bytes of `path` itself (st_blocks × 512). */
export const bytes = (path: string): number => lstatSync(path).blocks * 512;

/** The GNU find on PATH, by absolute path (wrappers run it so that PATH may point at them). */
export const realFind = spawnSync("sh", ["-c", "command -v find"], { encoding: "utf8" }).stdout.trim();
export const hasGnuFind = spawnSync("find", ["/", "-maxdepth", "0", "-printf", "%b"]).status === 0;

/** Write `size` bytes to `path`, making its directory. */
export function write(path: string, size: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, "x".repeat(size));
}

/**
 * A tree of `dirs` directories (`d000`, `d001`, …) at its top, each holding `files` files
 * (`f000`, … of 1 + index bytes) and `subdirs` empty directories; `topFiles` files at the top.
 */
export function shapedTree(
  dir: string,
  shape: { dirs: number; files?: number; subdirs?: number; topFiles?: number },
): string {
  const pad = (i: number) => String(i).padStart(3, "0");
  mkdirSync(dir, { recursive: true });
  for (let t = 0; t < (shape.topFiles ?? 0); t++) write(join(dir, `top${pad(t)}`), t + 1);
  for (let d = 0; d < shape.dirs; d++) {
    const sub = join(dir, `d${pad(d)}`);
    mkdirSync(sub);
    for (let f = 0; f < (shape.files ?? 0); f++) writeFileSync(join(sub, `f${pad(f)}`), "y".repeat(f + 1));
    for (let s = 0; s < (shape.subdirs ?? 0); s++) mkdirSync(join(sub, `s${pad(s)}`));
  }
  return dir;
}

/** Each directory of a walked tree by its path (`.`, `./a`, `./a/b`) as `[own, files]`. */
export function byPath(tree: DuTree): Record<string, [number, number]> {
  const paths: string[] = [];
  const out: Record<string, [number, number]> = {};
  for (const [i, d] of tree.dirs.entries()) {
    paths[i] = d.parent < 0 ? "." : `${paths[d.parent]}/${d.name}`;
    out[paths[i]!] = [d.own, d.files];
  }
  return out;
}

/** Sum of a walked tree's bytes. */
export const total = (tree: DuTree): number => tree.dirs.reduce((n, d) => n + d.own + d.files, 0);

/** One run of a {@link loggingFind}. */
export interface FindCall {
  /** Its working directory. */
  cwd: string;
  /** What its standard output is (`readlink /proc/<pid>/fd/1`). */
  output: string;
  /** Its arguments before find's expression: the start points. */
  starts: string[];
}

/**
 * An executable at `path` that records each run in `<path>.calls/` (runs at once do not share a
 * file), then runs `body` (default: GNU find with its arguments, `exec`ed). `$FIND` in `body` is
 * GNU find's path.
 */
export function loggingFind(path: string, body = 'exec "$FIND" "$@"'): { path: string; calls(): FindCall[] } {
  const dir = `${path}.calls`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `FIND='${realFind}'`,
      `log=$(mktemp '${dir}/call.XXXXXX')`,
      'out=$(readlink "/proc/$$/fd/1")',
      '{ pwd; echo "$out"; for a in "$@"; do [ "$a" = "(" ] && break; printf "%s\\n" "$a"; done; } > "$log"',
      body,
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return {
    path,
    calls: () =>
      readdirSync(dir)
        .map((name) => readFileSync(join(dir, name), "utf8").split("\n").slice(0, -1))
        .map(([cwd, output, ...starts]) => ({ cwd: cwd!, output: output!, starts: starts.sort() }))
        .sort((a, b) => (a.cwd + a.starts.join() < b.cwd + b.starts.join() ? -1 : 1)),
  };
}

/**
 * A directory whose path is a few bytes under PATH_MAX (4,096), holding `short` (a file of 3,000
 * bytes) and a file and a directory whose paths are over it (`lstat` gives ENAMETOOLONG). Made
 * through a shell in the directory (relative names); remove it with {@link removeLong}.
 */
export function longPathTree(root: string): {
  dir: string;
  short: string;
  longFile: string;
  longDir: string;
} {
  let dir = join(root, "long");
  while (dir.length < 4000) dir = join(dir, "l".repeat(Math.min(200, 4000 - dir.length)));
  mkdirSync(dir, { recursive: true });
  const [file, sub] = ["f".repeat(120), "d".repeat(120)];
  const r = spawnSync("sh", ["-c", `mkdir ${sub} && printf x > ${file} && head -c 3000 /dev/zero > short`], {
    cwd: dir,
  });
  if (r.status !== 0) throw new Error(`longPathTree: ${r.stderr}`);
  return { dir, short: join(dir, "short"), longFile: `${dir}/${file}`, longDir: `${dir}/${sub}` };
}

/** Remove a tree made by {@link longPathTree} (rm works below PATH_MAX; Node's rmSync does not). */
export function removeLong(root: string): void {
  spawnSync("rm", ["-rf", join(root, "long")]);
}

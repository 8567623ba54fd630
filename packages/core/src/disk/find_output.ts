/**
 * What `ariel-worktree du` reads from GNU `find`: the expression that prints one short record per
 * entry (allocated blocks, depth, and the name of directories or the `dev:ino` of multiply-linked
 * files), a streaming parser of those records into a {@link FoundTree}, and how a found tree is
 * added to a {@link DuTree}. Pure; host/walk/parallel_walk.ts runs the processes.
 */
import type { DuDir, DuTree } from "./usage.ts";

/**
 * The `find` arguments after the start points. `-P` is find's default: links are never
 * followed. Records end in NUL; `<d>` is the depth below the start point, `<b>` the allocated
 * 512-byte blocks (`st_blocks`):
 *
 * - `D<d> <b> <name>` a directory,
 * - `U<d> <b> <path>` a directory this user cannot list or enter (pruned, reported),
 * - `H<d> <b> <dev>:<ino>` a non-directory with more than one link,
 * - `F<d> <b>` any other entry (a file, a symbolic link, a socket, …).
 *
 * `-readable`/`-executable` ask `access(2)`, as the kernel would for the walk itself, so an
 * unreadable directory is a record and not an error: find exits 0 unless something else went
 * wrong (an entry vanished under it, say), and then the walk falls back.
 */
export const FIND_EXPRESSION = [
  "(",
  "-type",
  "d",
  "(",
  "-readable",
  "-executable",
  "-printf",
  "D%d %b %f\\0",
  "-o",
  "-printf",
  "U%d %b %p\\0",
  "-prune",
  ")",
  ")",
  "-o",
  "(",
  "-links",
  "+1",
  "-printf",
  "H%d %b %D:%i\\0",
  ")",
  "-o",
  "-printf",
  "F%d %b\\0",
] as const;

/** A multiply-linked file, counted only if no walk of this run counted it before. */
export interface FoundLink {
  /** The directory holding it, encoded like {@link DuDir.parent} in a {@link FoundTree}. */
  dir: number;
  bytes: number;
  /** `dev:ino`, the same text as `${st.dev}:${st.ino}` of Node's `lstat`. */
  key: string;
}

/**
 * One find process's part of a tree. `dirs[i].parent` is an index into `dirs` when >= 0, and
 * `-1 - j` for a directory attached to entry `j` of the tree it will be added to.
 */
export interface FoundTree {
  dirs: DuDir[];
  /** Bytes of non-directories directly in directories of the target tree, by its index. */
  outer: Map<number, number>;
  links: FoundLink[];
  /** Absolute paths of the directories find could not list (`U` records). */
  unreadable: string[];
}

/**
 * A start point of one find process, in the order given: `{ parent }` a new entry below target
 * entry `parent`; `{ dir }` the directory that is target entry `dir` already (measured and listed
 * by the caller, its depth-0 record is skipped and only what is under it is added).
 */
export type FindRoot = { parent: number } | { dir: number };

const NUL = 0;
const SPACE = 32;
const ZERO = 48;
const NINE = 57;
const F = 70;
const decoder = new TextDecoder();

/**
 * Parses the NUL-separated records {@link FIND_EXPRESSION} prints, chunk by chunk as they
 * arrive. Throws a plain `Error` on anything it does not expect (another find's format, a
 * record out of order); the caller then measures those paths another way.
 *
 * @example
 * ```ts
 * const p = new FindOutputParser([{ parent: 0 }]);
 * p.push(new TextEncoder().encode("D0 8 src\0F1 16\0"));
 * p.end().dirs; // [{ parent: -1, name: "src", own: 4096, files: 8192 }]
 * ```
 */
export class FindOutputParser {
  private readonly roots: readonly FindRoot[];
  private readonly out: FoundTree = { dirs: [], outer: new Map(), links: [], unreadable: [] };
  /** Encoded index of the directory at each depth of the current start point. */
  private readonly stack: number[] = [];
  private started = 0;
  private rest: Uint8Array | null = null;

  constructor(roots: readonly FindRoot[]) {
    this.roots = roots;
  }

  /** Parse the complete records of `chunk` (with what was left of the last one). */
  push(chunk: Uint8Array): void {
    let buf = chunk;
    if (this.rest) {
      buf = new Uint8Array(this.rest.length + chunk.length);
      buf.set(this.rest);
      buf.set(chunk, this.rest.length);
    }
    const end = buf.lastIndexOf(NUL);
    if (end < 0) {
      this.rest = buf;
      return;
    }
    const { stack, out } = this;
    let i = 0;
    while (i <= end) {
      // Nine records in ten are `F<d> <b>` of a file under a directory already seen: parsed
      // here, in this loop, without a call. Anything else goes the general way (record()).
      if (buf[i] === F) {
        let j = i + 1;
        let c = buf[j]!;
        let depth = 0;
        while (c >= ZERO && c <= NINE) {
          depth = depth * 10 + c - ZERO;
          c = buf[++j]!;
        }
        if (c === SPACE && depth > 0 && depth <= stack.length) {
          const b0 = ++j;
          c = buf[j]!;
          let blocks = 0;
          while (c >= ZERO && c <= NINE) {
            blocks = blocks * 10 + c - ZERO;
            c = buf[++j]!;
          }
          if (c === NUL && j > b0) {
            if (stack.length > depth) stack.length = depth;
            const parent = stack[depth - 1]!;
            if (parent >= 0) out.dirs[parent]!.files += blocks * 512;
            else out.outer.set(-1 - parent, (out.outer.get(-1 - parent) ?? 0) + blocks * 512);
            i = j + 1;
            continue;
          }
        }
      }
      i = this.record(buf, i);
    }
    this.rest = end + 1 < buf.length ? buf.slice(end + 1) : null;
  }

  /** The parsed tree, once find has exited 0; throws if the output was cut short. */
  end(): FoundTree {
    if (this.rest) throw new Error("find output: last record not terminated");
    if (this.started !== this.roots.length) {
      throw new Error(`find output: ${this.started} start points of ${this.roots.length}`);
    }
    return this.out;
  }

  /** Parse the record at `i`; returns the index after its NUL. */
  private record(buf: Uint8Array, i: number): number {
    const type = buf[i];
    let j = i + 1;
    let depth = 0;
    const d0 = j;
    while (buf[j]! >= ZERO && buf[j]! <= ZERO + 9) depth = depth * 10 + buf[j++]! - ZERO;
    if (j === d0 || buf[j] !== SPACE) throw new Error(`find output: bad record at byte ${i}`);
    let blocks = 0;
    const b0 = ++j;
    while (buf[j]! >= ZERO && buf[j]! <= ZERO + 9) blocks = blocks * 10 + buf[j++]! - ZERO;
    if (j === b0) throw new Error(`find output: bad record at byte ${i}`);
    const bytes = blocks * 512;
    let text = "";
    if (type !== 70 /* F */) {
      if (buf[j] !== SPACE) throw new Error(`find output: bad record at byte ${i}`);
      const t0 = ++j;
      while (buf[j] !== NUL) j++;
      // An ASCII name (most are) without a TextDecoder call. Inline on purpose: with it this
      // method is too large for V8 to inline into push(), whose loop then compiles in 3–8 ms
      // instead of 13.5 (--trace-opt) and runs optimized sooner: the parse of a 70,000-entry
      // leg's records takes 15 ms of CPU instead of 21 (decision 0050).
      let ascii = j - t0 < 256;
      for (let k = t0; ascii && k < j; k++) if (buf[k]! > 127) ascii = false;
      text = ascii
        ? String.fromCharCode.apply(null, buf.subarray(t0, j) as unknown as number[])
        : decoder.decode(buf.subarray(t0, j));
    }
    if (buf[j] !== NUL) throw new Error(`find output: bad record at byte ${i}`);
    this.entry(type, depth, bytes, text);
    return j + 1;
  }

  private entry(type: number | undefined, depth: number, bytes: number, text: string): void {
    const { stack, out } = this;
    let parent: number;
    if (depth === 0) {
      const root = this.roots[this.started++];
      if (!root) throw new Error("find output: more start points than given");
      if ("dir" in root) {
        // Measured by the caller: only what is under it counts. Unreadable by now: reported.
        stack.length = 0;
        if (type === 68 /* D */) stack.push(-1 - root.dir);
        else if (type === 85 /* U */) out.unreadable.push(text);
        else throw new Error("find output: a directory start point is not a directory");
        return;
      }
      parent = -1 - root.parent;
    } else {
      if (depth > stack.length) throw new Error("find output: record deeper than its directory");
      parent = stack[depth - 1]!;
    }
    stack.length = depth;
    switch (type) {
      case 68 /* D */:
      case 85 /* U */:
        {
          let name = text;
          if (type === 85) {
            out.unreadable.push(text);
            name = text.slice(text.lastIndexOf("/") + 1);
          }
          stack.push(out.dirs.length);
          out.dirs.push({ parent, name, own: bytes, files: 0 });
          return;
        }
      case 72 /* H */:
        {
          const colon = text.indexOf(":");
          if (colon < 1) throw new Error("find output: bad dev:ino");
          // Through Number, as Node's lstat gives them: the same text for the same file.
          out.links.push({
            dir: parent,
            bytes,
            key: `${Number(text.slice(0, colon))}:${Number(text.slice(colon + 1))}`,
          });
          return;
        }
      case 70 /* F */:
        if (parent >= 0) out.dirs[parent]!.files += bytes;
        else out.outer.set(-1 - parent, (out.outer.get(-1 - parent) ?? 0) + bytes);
        return;
      default:
        throw new Error("find output: unknown record type");
    }
  }
}

/**
 * Count the multiply-linked files of `links` in `tree`, in order, each only if no tree of this
 * run counted its `dev:ino` before (`seen`). `dir` indexes `tree.dirs`.
 */
export function countLinks(tree: DuTree, links: readonly FoundLink[], seen: Map<string, DuTree>): void {
  for (const l of links) {
    if (seen.has(l.key)) continue;
    seen.set(l.key, tree);
    tree.hardlinked += l.bytes;
    tree.dirs[l.dir]!.files += l.bytes;
  }
}

/**
 * Append what one find process found to `tree` (its directories after the tree's, so parents
 * still come before children), then count its links against `seen`.
 *
 * @example
 * ```ts
 * const tree = { hardlinked: 0, dirs: [{ parent: -1, name: "", own: 4096, files: 0 }] };
 * const p = new FindOutputParser([{ parent: 0 }]);
 * p.push(new TextEncoder().encode("D0 8 src\0F1 16\0"));
 * appendFound(tree, p.end(), new Map());
 * // tree.dirs[1]: { parent: 0, name: "src", own: 4096, files: 8192 }
 * ```
 */
export function appendFound(tree: DuTree, found: FoundTree, seen: Map<string, DuTree>): void {
  const offset = tree.dirs.length;
  const at = (encoded: number) => (encoded >= 0 ? encoded + offset : -1 - encoded);
  // The found tree is used once: its entries move into `tree` as they are.
  for (const d of found.dirs) {
    d.parent = at(d.parent);
    tree.dirs.push(d);
  }
  for (const [i, bytes] of found.outer) tree.dirs[i]!.files += bytes;
  countLinks(
    tree,
    found.links.map((l) => ({ ...l, dir: at(l.dir) })),
    seen,
  );
}

/**
 * Output rotation. A stream's bytes live in at most two files: the current one (`stdout`) and
 * the previous segment (`stdout.1`). Sequence numbers stay absolute across rotations: `base` is
 * the sequence of the current file's first byte, `prevBase` that of `stdout.1` (null when there
 * is none). Bytes older than `prevBase` were dropped by an earlier rotation.
 */
export interface Segments {
  base: number;
  prevBase: number | null;
}

/** The default size cap of one stream's current file (64 MiB). */
export const DEFAULT_OUTPUT_CAP = 64 * 1024 * 1024;

/**
 * Where to read sequence `from`: in the current file, in the previous segment, or (dropped)
 * from the oldest byte still kept.
 *
 * @example
 * ```ts
 * locate({ base: 100, prevBase: 40 }, 50);  // { file: "previous", offset: 10, start: 50 }
 * locate({ base: 100, prevBase: 40 }, 10);  // { file: "previous", offset: 0, start: 40 }
 * locate({ base: 100, prevBase: 40 }, 120); // { file: "current", offset: 20, start: 120 }
 * ```
 */
export function locate(
  seg: Segments,
  from: number,
): { file: "current" | "previous"; offset: number; start: number } {
  if (from >= seg.base) return { file: "current", offset: from - seg.base, start: from };
  if (seg.prevBase === null) return { file: "current", offset: 0, start: seg.base };
  const start = Math.max(from, seg.prevBase);
  return { file: "previous", offset: start - seg.prevBase, start };
}

/**
 * The segments after rotating a current file of `size` bytes, or null when it is under `cap`.
 *
 * @example
 * ```ts
 * rotate({ base: 0, prevBase: null }, 150, 100); // { base: 150, prevBase: 0 }
 * rotate({ base: 0, prevBase: null }, 50, 100);  // null
 * ```
 */
export function rotate(seg: Segments, size: number, cap: number): Segments | null {
  if (size < cap || size === 0) return null;
  return { base: seg.base + size, prevBase: seg.base };
}

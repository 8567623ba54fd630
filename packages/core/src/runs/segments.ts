/**
 * The output size cap. A stream is one file (`stdout`, `stderr`) that the child appends to
 * through its own descriptor, so a byte's offset in it is its sequence number, for good. The
 * monitor caps what is kept by dropping whole **segments** (`segmentSize(cap)` bytes) from the
 * head of the file: it records the new `dropped` offset (`<stream>.dropped`), then punches a hole
 * over those bytes (they read as zeros and take no disk space; the file keeps its length). What
 * is kept, from `dropped` to the end, is at least the cap (once that much was written) and under
 * the cap plus one segment.
 */

/** The default size cap of one stream (64 MiB). */
export const DEFAULT_OUTPUT_CAP = 64 * 1024 * 1024;

/** Holes are punched in whole blocks of this size, so the space is really freed. */
export const SEGMENT_ALIGN = 4096;

/**
 * The unit in which a stream's head is dropped: a quarter of the cap, in whole 4 KiB blocks,
 * at least one block. Fewer, larger drops cost the monitor less (one `fallocate` each).
 *
 * @example
 * ```ts
 * segmentSize(64 * 1024 * 1024); // 16777216
 * segmentSize(16384);            // 4096
 * segmentSize(10);               // 4096
 * ```
 */
export function segmentSize(cap: number): number {
  return Math.max(SEGMENT_ALIGN, Math.floor(cap / 4 / SEGMENT_ALIGN) * SEGMENT_ALIGN);
}

/**
 * The new `dropped` offset for a stream of `size` bytes (sequences) of which those under
 * `dropped` are gone, or null when nothing more has to go: whole segments, keeping at least the
 * last `cap` bytes.
 *
 * @example
 * ```ts
 * dropTo(20480, 0, 16384);    // 4096: keeps 16384 bytes
 * dropTo(24000, 4096, 16384); // 4096 is still enough → null (19904 kept, under cap + 4096)
 * dropTo(16000, 0, 16384);    // null: under the cap
 * ```
 */
export function dropTo(size: number, dropped: number, cap: number): number | null {
  if (size <= cap) return null;
  const seg = segmentSize(cap);
  const to = Math.floor((size - cap) / seg) * seg;
  return to > dropped ? to : null;
}

/**
 * What a read of `bytes` from sequence `start` may return once `dropped` (read again after the
 * read) says where the kept output begins now: the monitor records a drop before it punches the
 * hole, so any byte under that offset may already read as zero and is cut off.
 *
 * @example
 * ```ts
 * keptPart(100, 50, 120); // { start: 120, skip: 20 }: bytes 100..119 were dropped meanwhile
 * keptPart(100, 50, 40);  // { start: 100, skip: 0 }
 * keptPart(100, 50, 400); // { start: 400, skip: 50 }: everything read was dropped
 * ```
 */
export function keptPart(start: number, length: number, dropped: number): { start: number; skip: number } {
  if (dropped <= start) return { start, skip: 0 };
  return { start: dropped, skip: Math.min(length, dropped - start) };
}

/** How far past a drop the monitor looks for the end of the line the drop cut. */
export const LINE_RESUME_WINDOW = 64 * 1024;

/**
 * Where a reader moved past a drop at `to` goes on: the first line start at or after `to`, so it
 * never gets the tail of a line whose head was dropped (a line reader would take it for a line of
 * its own). `head` holds the bytes from `to - 1` (the last one dropped, read before the hole is
 * punched) on. `to` itself when that byte ends a line, or when no line ends in `head` (a line
 * longer than {@link LINE_RESUME_WINDOW}: its tail is then read as it is).
 *
 * @example
 * ```ts
 * const bytes = (s: string) => new TextEncoder().encode(s);
 * lineResume(bytes("\nabc\n"), 100); // 100: the drop ended a line
 * lineResume(bytes("12\n3\n"), 100);  // 102: "2\n" is the tail of a dropped line
 * lineResume(bytes("xyz"), 100);      // 100: no line end in sight
 * ```
 */
export function lineResume(head: Uint8Array, to: number): number {
  const nl = head.indexOf(10);
  return nl < 0 ? to : to + nl;
}

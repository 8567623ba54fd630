/**
 * Byte counts for a person: binary units with at most one decimal (three significant digits),
 * as `ls -lh` and `du -h` print them.
 *
 * @example
 * ```ts
 * formatBytes(0);         // "0 B"
 * formatBytes(1536);      // "1.5 KiB"
 * formatBytes(48213);     // "47 KiB"
 * formatBytes(5_000_000); // "4.8 MiB"
 * ```
 */
const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] as const;

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`not a byte count: ${bytes}`);
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${value} B`;
  const shown = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  if (shown >= 1024 && unit < UNITS.length - 1) return `1 ${UNITS[unit + 1]}`;
  return `${shown} ${UNITS[unit]}`;
}

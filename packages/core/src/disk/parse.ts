/**
 * Sizes as people type them (`--min-free 5G`, `--keep-bytes 20G`), parsed into bytes. Pure.
 * (Durations: `parseDuration` in runs/duration.ts.)
 *
 * @example
 * ```ts
 * parseSize("1.5G"); // 1610612736
 * ```
 */
import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";

const SIZE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

/**
 * Bytes from `N`, `N[KMGT]`, `N[KMGT]iB` (binary units, as `du -h` prints them; `KB` means KiB
 * too). A bad value is ERR_USAGE (64) naming the flag.
 */
export function parseSize(text: string, flag = "size"): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(text);
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) {
    throw new ArielError("ERR_USAGE", `${flag}: not a size: ${quoteValue(text)}`, {
      hint: "write a byte count or a number with K, M, G or T (binary units), e.g. 512M or 5G",
      context: { value: text },
    });
  }
  return Math.floor(Number(m[1]) * unit);
}

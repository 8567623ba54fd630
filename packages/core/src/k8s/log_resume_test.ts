import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import {
  acceptLogLine,
  newLogCursor,
  reopenLogCursor,
  sinceTimeOf,
  splitTimestamp,
  timestampKey,
} from "./log_resume.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe("timestampKey", () => {
  eachMaps(
    timestampKey,
    [
      ["2026-12-02T10:00:00Z", "2026-12-02T10:00:00.000000000"],
      ["2026-12-02T10:00:00.5Z", "2026-12-02T10:00:00.500000000"],
      ["2026-12-02T10:00:00.123456789Z", "2026-12-02T10:00:00.123456789"],
      ["2026-12-02T11:00:00.25+01:00", "2026-12-02T10:00:00.250000000"],
      ["2026-12-02 10:00:00Z", null],
      ["hello", null],
      ["2026-12-02T10:00:00.1234567891Z", null],
    ],
    "%s → %s",
  );

  it("sorts like time where RFC3339Nano strings do not", () => {
    const a = "2026-12-02T10:00:00.1Z";
    const b = "2026-12-02T10:00:00.12Z";
    expect(a > b).toBe(true); // the raw strings sort wrong
    expect(timestampKey(a)! < timestampKey(b)!).toBe(true);
  });
});

describe("splitTimestamp", () => {
  it.each([
    ["2026-12-02T10:00:00.5Z hello world\n", "2026-12-02T10:00:00.500000000", "hello world\n"],
    ["2026-12-02T10:00:00Z \n", "2026-12-02T10:00:00.000000000", "\n"],
    ["no timestamp here\n", null, "no timestamp here\n"],
    [" leading space\n", null, " leading space\n"],
  ])("%j", (line, key, content) => {
    const r = splitTimestamp(enc(line));
    expect([r.key, dec(r.content)]).toEqual([key, content]);
  });
});

describe("resuming a followed log", () => {
  const T = (s: string) => timestampKey(`2026-12-02T10:00:${s}Z`);
  /** Feed `lines` (timestamps) on one connection; return those printed. */
  function feed(c: ReturnType<typeof newLogCursor>, lines: readonly string[]): string[] {
    return lines.filter((l) => acceptLogLine(c, T(l.split("#")[0]!)));
  }

  it("prints every line once across drops, lines with one timestamp included", () => {
    // The log: a (00.1), b c d (00.5, one timestamp), e (01.2). `#n` tells equal stamps apart.
    let c = newLogCursor();
    expect(feed(c, ["00.1", "00.5#b"])).toEqual(["00.1", "00.5#b"]);
    expect(sinceTimeOf(c)).toBe("2026-12-02T10:00:00Z");
    // Reconnect from second 00: the server sends everything from 00 again.
    c = reopenLogCursor(c);
    expect(feed(c, ["00.1", "00.5#b", "00.5#c"])).toEqual(["00.5#c"]);
    c = reopenLogCursor(c);
    expect(feed(c, ["00.1", "00.5#b", "00.5#c", "00.5#d", "01.2"])).toEqual(["00.5#d", "01.2"]);
    expect(sinceTimeOf(c)).toBe("2026-12-02T10:00:01Z");
    c = reopenLogCursor(c);
    expect(feed(c, ["01.2"])).toEqual([]);
  });

  it("a fresh cursor asks from the start and takes lines without a timestamp", () => {
    const c = newLogCursor();
    expect(sinceTimeOf(c)).toBeNull();
    expect(acceptLogLine(c, null)).toBe(true);
    expect(acceptLogLine(c, null)).toBe(true);
    expect(c.last).toBeNull();
  });
});

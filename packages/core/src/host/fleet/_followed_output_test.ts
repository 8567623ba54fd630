import { describe, expect, it } from "vitest";
import type { RunBackend } from "../../runs/backend.ts";
import { followOutput } from "./_followed_output.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A backend whose followOutput writes `chunks` ([seq, text]) one per tick, then ends (or fails). */
function backend(chunks: [number, string][], fail?: Error): RunBackend {
  return {
    async followOutput(_runId, _stream, _from, write) {
      for (const [seq, text] of chunks) {
        await new Promise((r) => setTimeout(r, 1));
        write(seq, enc(text));
      }
      if (fail) throw fail;
      return true;
    },
  } as Partial<RunBackend> as RunBackend;
}

async function drain(b: RunBackend, from: number): Promise<[number, string][]> {
  const out = followOutput(b, "r1", from, new AbortController().signal);
  const got: [number, string][] = [];
  while (!out.done) {
    await out.wait(1_000);
    for (const l of out.lines(false).lines) got.push([l.seq, l.data]);
  }
  for (const l of out.lines(true).lines) got.push([l.seq, l.data]);
  return got;
}

describe("followOutput", () => {
  it.each([
    {
      name: "whole lines",
      from: 0,
      chunks: [
        [0, "a\n"],
        [2, "bc\n"],
      ],
      lines: [
        [0, "a\n"],
        [2, "bc\n"],
      ],
    },
    {
      name: "a line torn across writes",
      from: 5,
      chunks: [
        [5, "ab"],
        [7, "c\nd"],
      ],
      lines: [
        [5, "abc\n"],
        [9, "d"],
      ],
    },
    {
      name: "a retry's pod starts at 0 again",
      from: 0,
      chunks: [
        [0, "a\nto"],
        [0, "b\n"],
      ],
      lines: [
        [0, "a\n"],
        [0, "b\n"],
      ],
    },
  ] as { name: string; from: number; chunks: [number, string][]; lines: [number, string][] }[])(
    "$name",
    async ({ from, chunks, lines }) => {
      expect(await drain(backend(chunks), from)).toEqual(lines);
    },
  );

  it("a follow that fails throws its error from lines()", async () => {
    await expect(drain(backend([[0, "a\n"]], new Error("API gone")), 0)).rejects.toThrow("API gone");
  });
});

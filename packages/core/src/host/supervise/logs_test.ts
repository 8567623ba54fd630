/**
 * `logs` and `attach`'s reader over a backend held in memory (the local backend's reads are
 * tested on real files in host/runs): every byte once from `--from`, the last N lines, a torn
 * line held back until it is whole or the run ended, bytes the cap dropped said and skipped,
 * following a live run until it is final, and a backend that streams its output.
 */
import { describe, expect, it } from "vitest";
import type { OutputStream, RunBackend } from "../../runs/backend.ts";
import type { Output } from "../output.ts";
import { type LogsOptions, streamLogs } from "./logs.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A run whose streams grow by `feed`, whose state is `state`, and whose oldest bytes may be dropped. */
function memoryRun() {
  const data: Record<OutputStream, Uint8Array> = { stdout: enc(""), stderr: enc("") };
  const dropped: Record<OutputStream, number> = { stdout: 0, stderr: 0 };
  const run = {
    state: "running",
    reads: 0,
    feed(stream: OutputStream, text: string) {
      run.feedBytes(stream, enc(text));
    },
    feedBytes(stream: OutputStream, more: Uint8Array) {
      const next = new Uint8Array(data[stream].length + more.length);
      next.set(data[stream]);
      next.set(more, data[stream].length);
      data[stream] = next;
    },
    drop(stream: OutputStream, upTo: number) {
      dropped[stream] = upTo;
    },
    backend: {
      get: async () => ({ state: run.state }),
      readOutput: async (_id: string, s: OutputStream, from: number, max: number) => {
        run.reads++;
        const start = Math.max(from, dropped[s]);
        return { start, bytes: data[s].slice(start, start + max), size: data[s].length };
      },
    } as unknown as RunBackend,
  };
  return run;
}

/** Options printing into strings (and records into a list). */
function sinks(over: Partial<LogsOptions> = {}) {
  const text: Record<OutputStream, string> = { stdout: "", stderr: "" };
  const records: Record<string, unknown>[] = [];
  const options: LogsOptions = {
    streams: ["stdout", "stderr"],
    from: null,
    tail: null,
    follow: false,
    json: false,
    sinks: {
      stdout: { write: (t: string) => (text.stdout += t) },
      stderr: { write: (t: string) => (text.stderr += t) },
    },
    out: { record: (r: Record<string, unknown>) => records.push(r) } as unknown as Output,
    ...over,
  };
  return { text, records, options };
}

describe("streamLogs", () => {
  it("each stream to its own sink, every byte once; the next sequence of each is returned", async () => {
    const run = memoryRun();
    run.feed("stdout", "one\ntwo\n");
    run.feed("stderr", "err\n");
    const { text, options } = sinks();
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 8, stderr: 4 });
    expect(text).toEqual({ stdout: "one\ntwo\n", stderr: "err\n" });
  });

  it("--from N starts at that byte of each stream; only the streams asked for", async () => {
    const run = memoryRun();
    run.feed("stdout", "one\ntwo\n");
    run.feed("stderr", "err\n");
    const { text, options } = sinks({ from: 4, streams: ["stdout"] });
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 8 });
    expect(text).toEqual({ stdout: "two\n", stderr: "" });
  });

  it("--tail N: the last N lines (a last line without its newline is one)", async () => {
    const run = memoryRun();
    run.feed("stdout", "a\nb\nc\nd");
    const { text, options } = sinks({ tail: 2, streams: ["stdout"] });
    await streamLogs(run.backend, "r1", options);
    expect(text.stdout).toBe("c\nd");
    const zero = sinks({ tail: 0, streams: ["stdout"] });
    await streamLogs(run.backend, "r1", zero.options);
    expect(zero.text.stdout).toBe("");
  });

  it("--json: a record per whole line with its sequence; a torn last line waits while the run lives", async () => {
    const run = memoryRun();
    run.feed("stdout", "one\ntw");
    const { records, options } = sinks({ json: true, streams: ["stdout"] });
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 4 });
    expect(records).toEqual([{ v: 1, type: "output", runId: "r1", seq: 0, stream: "stdout", data: "one\n" }]);
    run.state = "exited";
    const after = sinks({ json: true, streams: ["stdout"], from: 4 });
    expect(await streamLogs(run.backend, "r1", after.options)).toEqual({ stdout: 6 });
    expect(after.records).toEqual([
      { v: 1, type: "output", runId: "r1", seq: 4, stream: "stdout", data: "tw" },
    ]);
  });

  it("bytes the output cap dropped: said once with the range, then read on from the oldest kept", async () => {
    const run = memoryRun();
    run.feed("stdout", "old\nkept\n");
    run.drop("stdout", 4);
    const said: [OutputStream, number, number][] = [];
    const { text, options } = sinks({
      streams: ["stdout"],
      onDropped: (s, f, t) => void said.push([s, f, t]),
    });
    expect(await streamLogs(run.backend, "r1", options)).toEqual({ stdout: 9 });
    expect(said).toEqual([["stdout", 0, 4]]);
    expect(text.stdout).toBe("kept\n");
  });

  it("-f: follows a live run, says once when it caught up, and ends when the run is final", async () => {
    const run = memoryRun();
    run.feed("stdout", "first\n");
    let live = 0;
    const { text, options } = sinks({ follow: true, streams: ["stdout"], onLive: () => live++ });
    const done = streamLogs(run.backend, "r1", options);
    for (let i = 0; i < 500 && live === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(text.stdout).toBe("first\n");
    expect(live).toBe(1);
    run.feed("stdout", "second\n");
    run.state = "exited";
    expect(await done).toEqual({ stdout: 13 });
    expect(text.stdout).toBe("first\nsecond\n");
    expect(live).toBe(1);
  });

  it("-f stops when its signal is aborted", async () => {
    const run = memoryRun();
    const ac = new AbortController();
    const { options } = sinks({ follow: true, streams: ["stdout"], signal: ac.signal });
    const done = streamLogs(run.backend, "r1", options);
    await new Promise((r) => setTimeout(r, 150));
    ac.abort();
    expect(await done).toEqual({ stdout: 0 });
  });

  it("a multi-byte character split between reads is printed whole", async () => {
    const run = memoryRun();
    const e = enc("é\n");
    run.feedBytes("stdout", e.slice(0, 1));
    const { text, options } = sinks({ follow: true, streams: ["stdout"] });
    const done = streamLogs(run.backend, "r1", options);
    await new Promise((r) => setTimeout(r, 150));
    run.feedBytes("stdout", e.slice(1));
    run.state = "exited";
    await done;
    expect(text.stdout).toBe("é\n");
  });

  it("a backend that streams its output (k8s) is followed through it, not polled", async () => {
    const run = memoryRun();
    const pieces: [number, string][] = [
      [0, "a\n"],
      [2, "b\nc"],
    ];
    const backend = {
      ...run.backend,
      followOutput: async (
        _id: string,
        _s: OutputStream,
        from: number,
        write: (seq: number, b: Uint8Array) => void,
      ) => {
        expect(from).toBe(0);
        for (const [seq, t] of pieces) write(seq, enc(t));
        return true;
      },
    } as RunBackend;
    const human = sinks({ follow: true, streams: ["stdout"] });
    expect(await streamLogs(backend, "r1", human.options)).toEqual({ stdout: 5 });
    expect(human.text.stdout).toBe("a\nb\nc");
    const json = sinks({ follow: true, json: true, streams: ["stdout"] });
    await streamLogs(backend, "r1", json.options);
    expect(json.records.map((r) => [r.seq, r.data])).toEqual([
      [0, "a\n"],
      [2, "b\n"],
      [4, "c"],
    ]);
    expect(run.reads).toBe(0);
  });
});

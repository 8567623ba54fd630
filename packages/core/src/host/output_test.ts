import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { ArielError } from "../errors.ts";
import { defineCommand, runCli } from "./cli/mod.ts";
import { Output, StdoutClosed, type TextSink } from "./output.ts";

/** A sink that accepts `okWrites` writes, then throws an error with `code`. */
function failingSink(okWrites: number, code: string): TextSink & { text: string } {
  let n = 0;
  return {
    text: "",
    write(t: string) {
      if (++n > okWrites) throw Object.assign(new Error(`write ${code}`), { code });
      this.text += t;
    },
  };
}

/** A stream-like sink whose errors arrive asynchronously, as on a real pipe. */
class FakeStream extends EventEmitter implements TextSink {
  text = "";
  write(t: string): void {
    this.text += t;
  }
}

describe("Output", () => {
  it("writes records as NDJSON lines", () => {
    const sink = failingSink(10, "EPIPE");
    const out = new Output(sink);
    out.record({ v: 1, type: "x" });
    out.write("plain\n");
    expect(sink.text).toBe('{"v":1,"type":"x"}\nplain\n');
  });

  it.each(["EPIPE", "ERR_STREAM_DESTROYED"])(
    "a synchronous %s closes it once and calls onClose once",
    (code) => {
      let closes = 0;
      const out = new Output(failingSink(1, code), () => closes++);
      out.write("a\n");
      expect(() => out.write("b\n")).toThrow(StdoutClosed);
      expect(() => out.write("c\n")).toThrow(StdoutClosed);
      expect([out.closed, out.failure, closes]).toEqual([true, undefined, 1]);
    },
  );

  it("an asynchronous EPIPE closes it", () => {
    const stream = new FakeStream();
    let closes = 0;
    const out = new Output(stream as unknown as NodeJS.WriteStream, () => closes++);
    out.write("a\n");
    stream.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    expect(out.closed).toBe(true);
    expect(() => out.write("b\n")).toThrow(StdoutClosed);
    expect([stream.text, closes]).toEqual(["a\n", 1]);
  });

  it("an asynchronous ENOSPC does not crash: the next write throws ERR_OUTPUT", () => {
    const stream = new FakeStream();
    const out = new Output(stream as unknown as NodeJS.WriteStream);
    expect(() => stream.emit("error", Object.assign(new Error("ENOSPC"), { code: "ENOSPC" }))).not.toThrow();
    let err: unknown;
    try {
      out.write("x\n");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ArielError);
    expect([(err as ArielError).code, (err as ArielError).message, (err as ArielError).exit]).toEqual([
      "ERR_OUTPUT",
      "cannot write to stdout (ENOSPC)",
      1,
    ]);
  });

  it("a synchronous ENOSPC is ERR_OUTPUT, not an internal error", () => {
    const out = new Output(failingSink(0, "ENOSPC"));
    expect(() => out.write("x\n")).toThrow(/cannot write to stdout \(ENOSPC\)/);
    expect(out.failure?.code).toBe("ERR_OUTPUT");
  });
});

describe("runCli with a failing stdout", () => {
  const spec = defineCommand({
    meta: { name: "ariel-x", description: "d" },
    args: { json: { type: "boolean", description: "j" } },
    run(ctx) {
      for (let i = 0; i < 10; i++) ctx.out.record({ i });
      return 0;
    },
  });

  it.each<[string, string, number, string]>([
    ["EPIPE ends quietly with 0", "EPIPE", 0, ""],
    [
      "ENOSPC is ERR_OUTPUT (exit 1) with a hint",
      "ENOSPC",
      1,
      "ariel-x: error: cannot write to stdout (ENOSPC) [ERR_OUTPUT]\nariel-x: hint: stdout could not be written; check free space and the reader\n",
    ],
  ])("%s", async (_name, code, status, stderrText) => {
    let stderr = "";
    const r = await runCli(spec, {
      version: "1",
      argv: [],
      stdout: failingSink(3, code),
      stderr: {
        write: (t) => {
          stderr += t;
        },
      },
    });
    expect([r, stderr]).toEqual([status, stderrText]);
  });

  it("an asynchronous stdout error after the last write still fails the run", async () => {
    const stream = new FakeStream();
    const late = defineCommand({
      ...spec,
      run(ctx) {
        ctx.out.write("a\n");
        stream.emit("error", Object.assign(new Error("EIO"), { code: "EIO" }));
        return 0;
      },
    });
    let stderr = "";
    const r = await runCli(late, {
      version: "1",
      argv: ["--json"],
      stdout: stream as unknown as NodeJS.WriteStream,
      stderr: {
        write: (t) => {
          stderr += t;
        },
      },
    });
    expect(r).toBe(1);
    expect(JSON.parse(stderr)).toMatchObject({
      code: "ERR_OUTPUT",
      message: "cannot write to stdout (EIO)",
      errno: "EIO",
    });
  });
});

describe("runCli with a closed stderr", () => {
  it("keeps its exit status when stderr errors asynchronously", async () => {
    const stderr = new FakeStream();
    const spec = defineCommand({
      meta: { name: "ariel-x", description: "d" },
      run() {
        stderr.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
        throw new ArielError("ERR_DIRTY", "dirty");
      },
    });
    const code = await runCli(spec, {
      version: "1",
      argv: [],
      stdout: new FakeStream() as unknown as NodeJS.WriteStream,
      stderr,
    });
    expect(code).toBe(3);
  });
});

import { describe, expect, it } from "vitest";
import { asyncFake, fakeSyncFs } from "./_fake_fs.ts";
import { all, each, readShared, readText, runAsync, runSync, stat, type Task } from "./io.ts";
import { createLimiter } from "./limit.ts";

/** Reads `/a` shared twice and `/b` (missing) shared twice, catching its error each time. */
function* twice(out: string[]): Task<void> {
  for (let i = 0; i < 2; i++) {
    out.push(yield* readShared("/a"));
    try {
      yield* readShared("/b");
    } catch (e) {
      out.push((e as { code: string }).code);
    }
  }
}

function* kinds(): Task<string> {
  const a = yield* stat("/a");
  const missing = yield* stat("/nope");
  return `${a?.kind} ${missing}`;
}

describe("runSync / runAsync", () => {
  it("answer reads and return the task's value", async () => {
    const fs = fakeSyncFs({ "/a": "A" });
    expect(runSync(kinds(), fs)).toBe("file null");
    expect(await runAsync(kinds(), asyncFake(fs), createLimiter(2))).toBe("file null");
  });

  it("throw a failed read into the task", async () => {
    const fs = fakeSyncFs({});
    expect(() => runSync(readText("/x"), fs)).toThrow("ENOENT: /x");
    await expect(runAsync(readText("/x"), asyncFake(fs), createLimiter(1))).rejects.toThrow("ENOENT: /x");
  });

  it.each(["sync", "async"])("%s: a shared read (value or error) happens once per run", async (mode) => {
    const fs = fakeSyncFs({ "/a": "A" });
    const out: string[] = [];
    const tasks = all([twice(out), twice(out)]);
    if (mode === "sync") runSync(tasks, fs);
    else await runAsync(tasks, asyncFake(fs), createLimiter(4));
    expect(out).toHaveLength(8);
    expect(out.filter((x) => x === "A")).toHaveLength(4);
    expect(out.filter((x) => x === "ENOENT")).toHaveLength(4);
    expect(fs.calls).toEqual(["readText /a", "readText /b"]);
  });

  it.each(["sync", "async"])("%s: each runs task(item, index) for every item", async (mode) => {
    const fs = fakeSyncFs({ "/a": "A", "/b": "B", "/c": "C" });
    const got: string[] = [];
    const task = each(["/a", "/b", "/c"], function* (path, i): Task<void> {
      got.push(`${i}:${yield* readText(path)}`);
    });
    if (mode === "sync") runSync(task, fs);
    else await runAsync(task, asyncFake(fs), createLimiter(2));
    expect(got.sort()).toEqual(["0:A", "1:B", "2:C"]);
  });

  it("sync: each makes a task only when the previous one has finished", () => {
    const fs = fakeSyncFs({ "/a": "A", "/b": "B" });
    const log: string[] = [];
    runSync(
      each(["/a", "/b"], (path) => {
        log.push(`make ${path}`);
        return (function* (): Task<void> {
          log.push(`read ${yield* readText(path)}`);
        })();
      }),
      fs,
    );
    expect(log).toEqual(["make /a", "read A", "make /b", "read B"]);
  });

  it("each over no items yields nothing", () => {
    expect(each([], () => readText("/x") as unknown as Task<void>).next()).toEqual({
      done: true,
      value: undefined,
    });
  });
});

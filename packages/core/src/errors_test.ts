import { describe, expect, it } from "vitest";
import { ArielError, isArielError, toArielError } from "./errors.ts";

describe("ArielError", () => {
  it("takes its hint and exit from the code unless given", () => {
    const e = new ArielError("ERR_DIRTY", "dirty");
    expect([e.name, e.code, e.message, e.hint, e.exit, e.context, "cause" in e]).toEqual([
      "ArielError",
      "ERR_DIRTY",
      "dirty",
      "commit or stash the changes, pass --snapshot, or --allow dirty",
      3,
      {},
      false,
    ]);
    const f = new ArielError("ERR_DIRTY", "x", { hint: "h", exit: 130, context: { a: 1 }, cause: null });
    expect([f.hint, f.exit, f.context, f.cause]).toEqual(["h", 130, { a: 1 }, null]);
  });

  it("toRecord puts the fixed fields after the context, so context cannot override them", () => {
    const e = new ArielError("ERR_USAGE", "bad flag", { context: { flag: "--x", code: "mine", v: 9 } });
    expect(e.toRecord()).toEqual({
      flag: "--x",
      v: 1,
      type: "error",
      code: "ERR_USAGE",
      message: "bad flag",
      hint: "run with --help to see the flags",
      exit: 64,
    });
  });
});

describe("isArielError / toArielError", () => {
  const lookalike = Object.assign(new Error("m"), { name: "ArielError", code: "ERR_GIT" });
  it.each<[string, unknown, boolean]>([
    ["an ArielError", new ArielError("ERR_GIT", "m"), true],
    ["one from another bundle copy (same shape)", lookalike, true],
    [
      "an Error named ArielError without a code",
      Object.assign(new Error("m"), { name: "ArielError" }),
      false,
    ],
    ["an Error with a code but another name", Object.assign(new Error("m"), { code: "ERR_GIT" }), false],
    ["a plain object shaped like one", { name: "ArielError", code: "ERR_GIT", message: "m" }, false],
    ["a string", "ArielError", false],
    ["null", null, false],
  ])("isArielError(%s) = %s", (_n, e, expected) => {
    expect(isArielError(e)).toBe(expected);
  });

  it("returns an ArielError as it is", () => {
    const e = new ArielError("ERR_GIT", "m");
    expect(toArielError(e)).toBe(e);
    expect(toArielError(lookalike)).toBe(lookalike);
  });

  it.each<[string, unknown, string]>([
    ["an Error: its first line", new Error("boom\nstack-ish detail"), "internal error: boom"],
    ["a string", "oops", "internal error: oops"],
    ["undefined", undefined, "internal error: undefined"],
  ])("turns %s into ERR_INTERNAL (exit 70)", (_n, thrown, message) => {
    const e = toArielError(thrown);
    expect([e.code, e.exit, e.message, e.cause]).toEqual(["ERR_INTERNAL", 70, message, thrown]);
  });
});

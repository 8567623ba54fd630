import { expect, it } from "vitest";
import { errCode } from "./_errors.ts";

it.each<[string, unknown, string]>([
  ["an error with a code", Object.assign(new Error("x"), { code: "ENOENT" }), "ENOENT"],
  ["a numeric code", { code: 2 }, ""],
  ["no code", new Error("x"), ""],
  ["null", null, ""],
  ["undefined", undefined, ""],
])("errCode of %s", (_n, e, expected) => {
  expect(errCode(e)).toBe(expected);
});

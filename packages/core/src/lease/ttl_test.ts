import { expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { clampTtl } from "./ttl.ts";

eachMaps(
  clampTtl,
  [
    [undefined, 30_000],
    [0, 100],
    [-5, 100],
    [99.6, 100],
    [1234.4, 1234],
    [300_000, 300_000],
    [300_001, 300_000],
    [Number.MAX_SAFE_INTEGER, 300_000],
  ],
  "clampTtl(%s) = %s",
);

it.each([[Number.NaN], [Number.POSITIVE_INFINITY]])("clampTtl(%s) is a RangeError", (input) => {
  expect(() => clampTtl(input)).toThrow(RangeError);
});

it("names the value that is not a finite number", () => {
  expect(() => clampTtl(Number.NaN)).toThrow(new RangeError("lease TTL must be a finite number, got NaN"));
});

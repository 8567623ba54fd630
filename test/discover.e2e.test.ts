import { afterAll, beforeAll, describe, it } from "vitest";
import { CASES, type Fixture, makeFixture, runCase } from "./e2e/discover_cases.ts";

describe("ariel-discover end to end (Node, the built bin)", () => {
  let fx: Fixture;
  beforeAll(() => {
    fx = makeFixture();
  });
  afterAll(() => fx?.cleanup());

  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    await runCase(c, fx, "node");
  });
});

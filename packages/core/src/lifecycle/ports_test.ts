import { describe, expect, it } from "vitest";
import { missingPorts, portCandidates, portEnv, portEnvName } from "./ports.ts";

describe("port env", () => {
  it.each<[string, string[], Record<string, number> | undefined, Record<string, string>]>([
    ["none", ["web"], undefined, {}],
    [
      "each name, PORT the first in the config's order",
      ["web", "api"],
      { api: 20001, web: 20000 },
      { ARIEL_PORT_WEB: "20000", ARIEL_PORT_API: "20001", PORT: "20000" },
    ],
    [
      "a name the order lacks comes after",
      ["api"],
      { web: 20000, api: 20001 },
      { ARIEL_PORT_API: "20001", ARIEL_PORT_WEB: "20000", PORT: "20001" },
    ],
    ["mixed case upper-cased", [], { dev_Server: 3 }, { ARIEL_PORT_DEV_SERVER: "3", PORT: "3" }],
  ])("%s", (_name, order, ports, want) => {
    expect(portEnv(order, ports)).toEqual(want);
  });

  it("names the variable of a port", () => {
    expect(portEnvName("web")).toBe("ARIEL_PORT_WEB");
  });
});

describe("port candidates", () => {
  it("are the range's ports not taken, lowest first, and the generator goes on where it stopped", () => {
    const g = portCandidates([10, 15], new Set([10, 12]));
    expect(g.next().value).toBe(11);
    expect([...g]).toEqual([13, 14, 15]);
  });
  it("are none when all are taken", () => {
    expect([...portCandidates([5, 6], new Set([5, 6]))]).toEqual([]);
  });
});

describe("missing ports", () => {
  it.each<[string[], Record<string, number> | undefined, string[]]>([
    [["web", "api"], undefined, ["web", "api"]],
    [["web", "api"], { web: 1 }, ["api"]],
    [["web", "WEB", "api"], {}, ["web", "api"]],
    [["Web"], { web: 1 }, []],
  ])("%j with %j lacks %j", (wanted, have, want) => {
    expect(missingPorts(wanted, have)).toEqual(want);
  });
});

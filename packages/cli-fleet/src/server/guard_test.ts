import { describe, expect, it } from "vitest";
import { eachMaps } from "../../../core/src/testing/cases.ts";
import { parseAddr } from "../commands/serve.ts";
import { allowedHosts, isLoopback, sameSecret } from "./guard.ts";

describe("guard", () => {
  eachMaps(
    isLoopback,
    [
      ["127.0.0.1", true],
      ["127.1.2.3", true],
      ["::1", true],
      ["localhost", true],
      ["0.0.0.0", false],
      ["192.168.1.5", false],
    ],
    "isLoopback(%s) = %s",
  );

  it.each([
    ["127.0.0.1", [], ["127.0.0.1:80", "localhost:80", "[::1]:80"]],
    ["192.168.1.5", ["ignored"], ["192.168.1.5:80"]],
    [
      "0.0.0.0",
      ["Box", "10.0.0.2", "fe80::1"],
      ["box:80", "10.0.0.2:80", "[fe80::1]:80", "127.0.0.1:80", "localhost:80", "[::1]:80"],
    ],
  ])("allowedHosts(%s)", (host, names, expected) => {
    expect([...allowedHosts(host, 80, names)].sort()).toEqual([...expected].sort());
  });

  it("compares secrets whatever their lengths", () => {
    expect([
      sameSecret("a-token", "a-token"),
      sameSecret("a-token", "a-tokeN"),
      sameSecret("a", "a-token"),
    ]).toEqual([true, false, false]);
  });

  eachMaps(
    parseAddr,
    [
      ["127.0.0.1:7878", { host: "127.0.0.1", port: 7878 }],
      ["localhost:0", { host: "localhost", port: 0 }],
      ["[::1]:8080", { host: "::1", port: 8080 }],
      [":9000", { host: "127.0.0.1", port: 9000 }],
      ["9000", { host: "127.0.0.1", port: 9000 }],
      ["0.0.0.0:1", { host: "0.0.0.0", port: 1 }],
    ],
    "parseAddr(%s)",
  );

  it.each(["127.0.0.1:99999", "a:b", "[::1", "1:2:3", ""])("parseAddr(%j) is a usage error", (text) => {
    expect(() => parseAddr(text)).toThrow(expect.objectContaining({ code: "ERR_USAGE" }));
  });
});

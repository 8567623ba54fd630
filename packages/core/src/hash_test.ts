import { describe, expect, it } from "vitest";
import { sha256Hex, toHex, workspaceHash } from "./hash.ts";

describe("sha256Hex", () => {
  it.each([
    ["empty string", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    ["utf-8 text", "héllo", "3c48591d8d098a4538f5e013dfcf406e948eac4d3277b10bf614e295d6068179"],
  ])("%s", async (_name, input, expected) => {
    expect(await sha256Hex(input)).toBe(expected);
  });

  it("hashes bytes", async () => {
    expect(await sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

describe("workspaceHash", () => {
  it.each([
    ["/some/repo/root", "ae89cb2b620ea8fc"],
    ["/", "8a5edab282632443"],
  ])("%s → %s", async (root, expected) => {
    expect(await workspaceHash(root)).toBe(expected);
  });
});

describe("toHex", () => {
  it("pads single digits", () => {
    expect(toHex(new Uint8Array([0, 1, 15, 16, 255]))).toBe("00010f10ff");
  });
});

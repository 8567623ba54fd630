import { describe, expect, it } from "vitest";
import { sha256Hex, sha256Sync, toHex, workspaceHash } from "./hash.ts";

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

describe("sha256Sync", () => {
  it.each([0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 200, 1000])(
    "agrees with Web Crypto on %i bytes",
    async (n) => {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 131 + 7) & 0xff);
      expect(toHex(sha256Sync(bytes))).toBe(await sha256Hex(bytes));
    },
  );

  it("hashes abc", () => {
    expect(toHex(sha256Sync(new TextEncoder().encode("abc")))).toBe(
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

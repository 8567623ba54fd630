import * as childProcess from "node:child_process";
import * as crypto from "node:crypto";
import * as http from "node:http";
import * as https from "node:https";
import * as net from "node:net";
import * as zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  nodeChildProcess,
  nodeCrypto,
  nodeHttp,
  nodeHttps,
  nodeNet,
  nodeZlib,
  randomBytes,
  randomHex,
} from "./builtins.ts";

describe("the builtins loaded on first use", () => {
  it("are node's own modules, the same object every call", () => {
    expect(nodeCrypto().createHash).toBe(crypto.createHash);
    expect(nodeChildProcess().spawn).toBe(childProcess.spawn);
    expect(nodeHttp().request).toBe(http.request);
    expect(nodeHttps().request).toBe(https.request);
    expect(nodeNet().createServer).toBe(net.createServer);
    expect(nodeZlib().inflateSync).toBe(zlib.inflateSync);
    expect(nodeCrypto()).toBe(nodeCrypto());
    expect(nodeZlib()).toBe(nodeZlib());
  });
});

describe("randomBytes", () => {
  it("gives exactly n bytes, and no bytes for 0", () => {
    expect(randomBytes(0)).toEqual(new Uint8Array(0));
    for (const n of [1, 16, 4096]) expect(randomBytes(n).length).toBe(n);
  });

  it("fills them: 64 bytes are never all zero, and two draws differ", () => {
    const a = randomBytes(64);
    const b = randomBytes(64);
    expect(a.some((x) => x !== 0)).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });
});

describe("randomHex", () => {
  it("is 2n lowercase hex digits, each byte padded to two", () => {
    for (const n of [1, 4, 16]) expect(randomHex(n)).toMatch(new RegExp(`^[0-9a-f]{${2 * n}}$`));
    // over many one-byte draws, a byte under 0x10 comes up and keeps its leading zero
    const draws = Array.from({ length: 2000 }, () => randomHex(1));
    expect(draws.every((d) => d.length === 2)).toBe(true);
    expect(draws.some((d) => d.startsWith("0"))).toBe(true);
  });

  it("is empty for 0", () => {
    expect(randomHex(0)).toBe("");
  });
});

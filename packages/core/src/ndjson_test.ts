import { describe, expect, it } from "vitest";
import { errorOf, mulberry32 } from "./_fixture.ts";
import { ArielError } from "./errors.ts";
import {
  MAX_LINE_BYTES,
  type NdjsonEntry,
  parseNdjson,
  parseNdjsonLines,
  readLines,
  serializeRecord,
} from "./ndjson.ts";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const enc = new TextEncoder();

describe("serializeRecord", () => {
  it("writes one line", () => {
    expect(serializeRecord({ v: 1, type: "source", name: "a\nb" })).toBe(
      '{"v":1,"type":"source","name":"a\\nb"}',
    );
  });
});

describe("parseNdjson", () => {
  it.each<[string, string, NdjsonEntry[]]>([
    ["empty", "", []],
    ["one record", '{"v":1}\n', [{ line: 1, record: { v: 1 } }]],
    ["no final newline", '{"v":1}', [{ line: 1, record: { v: 1 } }]],
    [
      "CRLF",
      '{"a":1}\r\n{"b":2}\r\n',
      [
        { line: 1, record: { a: 1 } },
        { line: 2, record: { b: 2 } },
      ],
    ],
    [
      "blank lines keep numbering",
      '\n{"a":1}\n   \n\t\n{"b":2}\n',
      [
        { line: 2, record: { a: 1 } },
        { line: 5, record: { b: 2 } },
      ],
    ],
    [
      "safe integers at the edge",
      '{"n":9007199254740991,"m":-9007199254740991}',
      [{ line: 1, record: { n: 9007199254740991, m: -9007199254740991 } }],
    ],
    [
      "floats and exponents",
      '{"x":1.5e3,"y":-0.25,"z":1e-7}',
      [{ line: 1, record: { x: 1500, y: -0.25, z: 1e-7 } }],
    ],
    [
      "big digits inside a string",
      '{"id":"123456789012345678901234567890"}',
      [{ line: 1, record: { id: "123456789012345678901234567890" } }],
    ],
    [
      "constructor as a plain value",
      '{"constructor":"x","prototype":1}',
      [{ line: 1, record: { constructor: "x", prototype: 1 } }],
    ],
    ["nested objects", '{"a":{"b":[{"c":null}]}}', [{ line: 1, record: { a: { b: [{ c: null }] } } }]],
  ])("%s", (_name, text, expected) => {
    expect(parseNdjson(text)).toEqual(expected);
  });

  it.each([
    ["bad JSON", '{"a":1}\n{"a":\n', 2, /^line 2: invalid JSON: /],
    ["trailing garbage", '{"a":1} x', 1, /^line 1: invalid JSON: /],
    ["an array", "[1,2]", 1, /^line 1: expected a JSON object, got an array$/],
    ["a number", "\n\n42", 3, /^line 3: expected a JSON object, got a number$/],
    ["a string", '"x"', 1, /^line 1: expected a JSON object, got a string$/],
    ["null", "null", 1, /^line 1: expected a JSON object, got null$/],
    ["true", "true", 1, /^line 1: expected a JSON object, got a boolean$/],
    ["a BOM", '\ufeff{"a":1}', 1, /^line 1: starts with a UTF-8 byte order mark \(BOM\)$/],
    ["__proto__ at the top", '{"__proto__":{"polluted":1}}', 1, /^line 1: forbidden key "__proto__"$/],
    ["__proto__ deep", '{"a":[{"b":{"__proto__":{}}}]}', 1, /^line 1: forbidden key "a\[0\]\.b\.__proto__"$/],
    ["__proto__ escaped", '{"\\u005f_proto__":{}}', 1, /^line 1: forbidden key "__proto__"$/],
    [
      "constructor.prototype",
      '{"constructor":{"prototype":{"x":1}}}',
      1,
      /^line 1: forbidden key "constructor\.prototype"$/,
    ],
    [
      "unsafe integer",
      '{"n":9007199254740993}',
      1,
      /^line 1: number 9007199254740993 cannot be represented exactly$/,
    ],
    ["negative unsafe integer", '{"n":-9007199254740993}', 1, /^line 1: number -9007199254740993 cannot/],
    ["2^53", '{"n":9007199254740992}', 1, /^line 1: number 9007199254740992 cannot/],
    ["integer in exponent form", '{"n":1e20}', 1, /^line 1: number 1e20 cannot/],
    ["overflow to infinity", '{"n":1e400}', 1, /^line 1: number 1e400 cannot/],
    [
      "unsafe integer in an array",
      '{"a":[1,2,123456789012345678]}',
      1,
      /^line 1: number 123456789012345678 cannot/,
    ],
    ["over-long line", `{"a":"${"x".repeat(MAX_LINE_BYTES)}"}`, 1, /^line 1: longer than 1048576 bytes$/],
    ["a duplicate key", '{"name":"api","name":"web"}', 1, /^line 1: duplicate key "name"$/],
    [
      "a duplicate key on line 3",
      '{"a":1}\n\n{"v":1,"type":"source","v":2}',
      3,
      /^line 3: duplicate key "v"$/,
    ],
    ["a duplicate key spelled with an escape", '{"a":1,"\\u0061":2}', 1, /^line 1: duplicate key "a"$/],
    [
      "a duplicate key in a nested object",
      '{"a":{"b":1,"c":{"d":1,"d":2}}}',
      1,
      /^line 1: duplicate key "a\.c\.d"$/,
    ],
    [
      "a duplicate key in an array's object",
      '{"l":[{"k":1},{"k":1,"k":2}]}',
      1,
      /^line 1: duplicate key "l\[1\]\.k"$/,
    ],
  ])("rejects %s", (_name, text, line, message) => {
    const err = errorOf(() => parseNdjson(text));
    expect(err.code).toBe("ERR_INVALID_INPUT");
    expect(err.exit).toBe(65);
    expect(err.context.line).toBe(line);
    expect(err.message).toMatch(message);
  });

  it.each([
    ["the same key in sibling objects", '{"a":{"k":1},"b":{"k":2}}'],
    ["the same key in two array elements", '{"l":[{"k":1},{"k":2}]}'],
    ["a key that only looks repeated inside a string", '{"a":"\\"a\\":1","b":"{\\"a\\":2}"}'],
    ["a key that is a prefix of another", '{"a":1,"ab":2}'],
    ["keys differing in case", '{"a":1,"A":2}'],
  ])("accepts %s", (_name, text) => {
    expect(parseNdjson(text)).toHaveLength(1);
  });

  it("names the duplicate key in the error's context", () => {
    const err = errorOf(() => parseNdjson('{"path":"/a","path":"/b"}'));
    expect([err.code, err.exit, err.context]).toEqual(["ERR_INVALID_INPUT", 65, { line: 1, key: "path" }]);
  });

  it("counts the limit in UTF-8 bytes", () => {
    const justFits = `{"a":"${"é".repeat((MAX_LINE_BYTES - 8) / 2)}"}`; // 2 bytes each
    expect(enc.encode(justFits).length).toBe(MAX_LINE_BYTES);
    expect(parseNdjson(justFits)).toHaveLength(1);
    expect(() => parseNdjson(`{"a":"${"é".repeat(MAX_LINE_BYTES / 2)}"}`)).toThrow(/longer than/);
  });

  it("keeps control characters of bad input out of the message", () => {
    const err = errorOf(() => parseNdjson("\u001b[31mred\u0007"));
    expect(err.message).not.toMatch(/[\x00-\x1f\x7f]/);
  });
});

describe("parseNdjson: exact answers at the edges", () => {
  const DEFAULT_HINT = "check the input record against docs/schema";
  it.each<[string, string, string, string]>([
    [
      "an over-long line",
      `{"a":"${"x".repeat(MAX_LINE_BYTES)}"}`,
      "line 1: longer than 1048576 bytes",
      "split the input into one record per line",
    ],
    [
      "an unsafe integer",
      '{"n":9007199254740993}',
      "line 1: number 9007199254740993 cannot be represented exactly",
      "integers must lie within +-9007199254740991; quote larger ones as strings",
    ],
    // The number is named as written, fraction and signed exponent included, cut at 40 characters.
    [
      "a fraction with an exponent",
      '{"n":1.25e20}',
      "line 1: number 1.25e20 cannot be represented exactly",
      "integers must lie within +-9007199254740991; quote larger ones as strings",
    ],
    [
      "a signed exponent",
      '{"n":1e+20}',
      "line 1: number 1e+20 cannot be represented exactly",
      "integers must lie within +-9007199254740991; quote larger ones as strings",
    ],
    [
      "a 50-digit number",
      `{"n":${"1".repeat(50)}}`,
      `line 1: number ${"1".repeat(40)} cannot be represented exactly`,
      "integers must lie within +-9007199254740991; quote larger ones as strings",
    ],
    ["a BOM", '\ufeff{"a":1}', "line 1: starts with a UTF-8 byte order mark (BOM)", DEFAULT_HINT],
    [
      "constructor.prototype nested",
      '{"a":{"constructor":{"prototype":null}}}',
      'line 1: forbidden key "a.constructor.prototype"',
      DEFAULT_HINT,
    ],
    [
      "a forbidden key under a long path, cut at 100 characters",
      `{"${"k".repeat(120)}":{"__proto__":1}}`,
      `line 1: forbidden key "${"k".repeat(100)}"`,
      DEFAULT_HINT,
    ],
  ])("%s", (_name, text, message, hint) => {
    expect(errorOf(() => parseNdjson(text))).toMatchObject({
      code: "ERR_INVALID_INPUT",
      message,
      hint,
      context: { line: 1 },
    });
  });

  it("accepts a line of exactly the limit", () => {
    const exact = `{"a":"${"x".repeat(MAX_LINE_BYTES - 8)}"}`;
    expect(exact.length).toBe(MAX_LINE_BYTES);
    expect(parseNdjson(exact)).toHaveLength(1);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ["constructor holding an object without prototype", '{"constructor":{"x":1}}', { constructor: { x: 1 } }],
    ["constructor null", '{"constructor":null,"prototype":2}', { constructor: null, prototype: 2 }],
    ["prototype under another key", '{"a":{"prototype":{"b":1}}}', { a: { prototype: { b: 1 } } }],
    ["prototype as an array", '{"prototype":[null,1,"x"]}', { prototype: [null, 1, "x"] }],
    ["a key that merely contains __proto__", '{"x__proto__":1}', { x__proto__: 1 }],
    ["a carriage return before the record", '\r{"a":1}', { a: 1 }],
    ["a safe fraction with a big mantissa", '{"n":1234567890123456.5}', { n: 1234567890123456.5 }],
  ])("accepts %s", (_name, text, record) => {
    expect(parseNdjson(text)).toEqual([{ line: 1, record }]);
  });

  it("escapes what JSON.parse quotes from bad input", () => {
    const err = errorOf(() => parseNdjson("\u001b[31mred\u0007"));
    expect(err.message).toMatch(/^line 1: invalid JSON: [\x20-\x7e]+$/);
    expect(err.message).toContain("\\u001b");
  });
});

describe("readLines", () => {
  it.each<[string, string, { line: number; text: string }[]]>([
    [
      "CRLF and LF",
      "a\r\nb\n\r\nc",
      [
        { line: 1, text: "a" },
        { line: 2, text: "b" },
        { line: 3, text: "" },
        { line: 4, text: "c" },
      ],
    ],
    ["a final newline adds no line", "a\n", [{ line: 1, text: "a" }]],
    ["a final CR is stripped", "a\r", [{ line: 1, text: "a" }]],
    ["only a CR in the middle stays", "a\rb\n", [{ line: 1, text: "a\rb" }]],
    ["nothing", "", []],
  ])("%s", async (_name, input, expected) => {
    expect(await collect(readLines(input))).toEqual(expected);
  });
});

describe("parseNdjsonLines (streaming)", () => {
  it("joins lines split across byte chunks, even inside a UTF-8 sequence", async () => {
    const bytes = enc.encode('{"name":"café"}\r\n\n{"n":2}');
    const chunks = Array.from(bytes, (b) => Uint8Array.of(b)); // one byte at a time
    expect(await collect(parseNdjsonLines(chunks))).toEqual([
      { line: 1, record: { name: "café" } },
      { line: 3, record: { n: 2 } },
    ]);
  });

  it("accepts string chunks and an async source", async () => {
    async function* source() {
      yield '{"a"';
      yield ":1}\n{";
      yield '"b":2}\n';
    }
    expect(await collect(parseNdjsonLines(source()))).toEqual([
      { line: 1, record: { a: 1 } },
      { line: 2, record: { b: 2 } },
    ]);
  });

  it.each([
    [
      "invalid UTF-8",
      [enc.encode('{"a":1}\n'), Uint8Array.of(0x7b, 0xff, 0x7d, 0x0a)],
      "line 2: invalid UTF-8",
    ],
    [
      "truncated UTF-8 at the end",
      [enc.encode('{"a":1}\n{"b":"'), Uint8Array.of(0xc3)],
      "line 2: invalid UTF-8 (truncated at the end)",
    ],
    [
      "invalid UTF-8 on line 3 of a single chunk",
      [Uint8Array.of(...enc.encode('{"a":1}\n{"b":2}\n{"c":"'), 0xff, ...enc.encode('"}\n{"d":4}\n'))],
      "line 3: invalid UTF-8",
    ],
    [
      "invalid UTF-8 on line 2 after a chunk that ended mid-line",
      [enc.encode('{"a":1}\n{"b":"x'), Uint8Array.of(0xc3, 0x28), enc.encode('"}\n')],
      "line 2: invalid UTF-8",
    ],
    [
      "an overlong encoding on line 4",
      [enc.encode("{}\n{}\n{}\n"), Uint8Array.of(0x7b, 0xc0, 0xaf, 0x7d)],
      "line 4: invalid UTF-8",
    ],
    [
      "a BOM in bytes",
      [Uint8Array.of(0xef, 0xbb, 0xbf), enc.encode('{"a":1}\n')],
      "line 1: starts with a UTF-8 byte order mark (BOM)",
    ],
  ])("rejects %s", async (_name, chunks, message) => {
    const err = await collect(parseNdjsonLines(chunks)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArielError);
    expect((err as ArielError).message).toBe(message);
  });

  it("stops an endless line without buffering all of it", async () => {
    let sent = 0;
    function* endless() {
      const chunk = "x".repeat(64 * 1024);
      while (sent < 64 * MAX_LINE_BYTES) {
        sent += chunk.length;
        yield chunk;
      }
    }
    const err = await collect(readLines(endless())).catch((e: unknown) => e);
    expect((err as ArielError).message).toBe("line 1: longer than 1048576 bytes");
    expect(sent).toBeLessThanOrEqual(MAX_LINE_BYTES + 64 * 1024);
  });
});

describe("fuzz", () => {
  it("never throws anything but ERR_INVALID_INPUT (seed 20261202)", async () => {
    const rand = mulberry32(20261202);
    const alphabet = [
      '{"a":',
      "}",
      "[",
      "]",
      '"',
      "\\",
      "\n",
      "\r",
      "1",
      "9007199254740993",
      "e",
      "-",
      ".",
      ",",
      ":",
      "__proto__",
      "constructor",
      "prototype",
      "\ufeff",
      "\u0000",
      "null",
      "true",
      " ",
      "é",
      "{",
      '{"__proto__":',
      '"x"',
    ];
    let accepted = 0;
    let rejected = 0;
    for (let i = 0; i < 2000; i++) {
      let text = "";
      const n = Math.floor(rand() * 30);
      for (let j = 0; j < n; j++) text += alphabet[Math.floor(rand() * alphabet.length)];
      const bytes = enc.encode(text);
      const cut = Math.floor(rand() * (bytes.length + 1));
      const chunks = [bytes.slice(0, cut), bytes.slice(cut)];
      for (const run of [() => parseNdjson(text), () => collect(parseNdjsonLines(chunks))]) {
        try {
          await run();
          accepted++;
        } catch (e) {
          expect(e).toBeInstanceOf(ArielError);
          expect((e as ArielError).code).toBe("ERR_INVALID_INPUT");
          rejected++;
        }
      }
    }
    // Both outcomes happen, so the generator really exercises the parser.
    expect(accepted).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(50);
  });
});

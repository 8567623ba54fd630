import { describe, expect, it } from "vitest";
import { ArielError } from "../errors.ts";
import { eachMaps } from "../testing/cases.ts";
import { isPathLike, parseTargetArg, parseTargetLines } from "./targets.ts";

const rec = (fields: Record<string, unknown>) =>
  JSON.stringify({
    v: 1,
    type: "source",
    kind: "checkout",
    gitDir: "/w/x/.git",
    head: null,
    branch: "main",
    ...fields,
  });

describe("parseTargetLines", () => {
  it.each([
    [
      "plain names",
      "api\nweb\n",
      [
        { kind: "name", name: "api", origin: "stdin line 1" },
        { kind: "name", name: "web", origin: "stdin line 2" },
      ],
    ],
    ["blank lines and CRLF", "\r\napi\r\n\n", [{ kind: "name", name: "api", origin: "stdin line 2" }]],
    ["root name", ".\n", [{ kind: "name", name: ".", origin: "stdin line 1" }]],
    ["nested name", "libs/api\n", [{ kind: "name", name: "libs/api", origin: "stdin line 1" }]],
    ["absolute path", "/w/api\n", [{ kind: "path", path: "/w/api", origin: "stdin line 1" }]],
    [
      "relative path",
      "./api\n../x\n",
      [
        { kind: "path", path: "./api", origin: "stdin line 1" },
        { kind: "path", path: "../x", origin: "stdin line 2" },
      ],
    ],
    [
      "discover record",
      `${rec({ name: "api", path: "/w/api", kind: "checkout", head: null, branch: "main" })}\n`,
      [{ kind: "record", name: "api", path: "/w/api", origin: "stdin line 1" }],
    ],
    ["empty input", "", []],
    [
      "names that only start like JSON",
      "nullable\ntrue-story\n42x\n",
      [
        { kind: "name", name: "nullable", origin: "stdin line 1" },
        { kind: "name", name: "true-story", origin: "stdin line 2" },
        { kind: "name", name: "42x", origin: "stdin line 3" },
      ],
    ],
  ])("%s", async (_name, input, expected) => {
    expect(await parseTargetLines(input)).toEqual(expected);
  });

  it.each([
    ["broken JSON", "api\n{nope\n", 2, /^stdin line 2: invalid JSON: /],
    [
      "array",
      "[1]\n",
      1,
      /^stdin line 1: expected a source record \(a JSON object\), a source name or a path, got an array$/,
    ],
    [
      "JSON string",
      '"api"\n',
      1,
      /^stdin line 1: expected a source record \(a JSON object\), a source name or a path, got a string$/,
    ],
    [
      "JSON null",
      "api\nnull\n",
      2,
      /^stdin line 2: expected a source record \(a JSON object\), a source name or a path, got null$/,
    ],
    [
      "JSON true",
      "true\n",
      1,
      /^stdin line 1: expected a source record \(a JSON object\), a source name or a path, got a boolean$/,
    ],
    [
      "JSON false",
      "false\n",
      1,
      /^stdin line 1: expected a source record \(a JSON object\), a source name or a path, got a boolean$/,
    ],
    [
      "JSON number",
      "42\n",
      1,
      /^stdin line 1: expected a source record \(a JSON object\), a source name or a path, got a number$/,
    ],
    [
      "JSON number in exponent form",
      "1e5\n",
      1,
      /^stdin line 1: expected a source record \(a JSON object\), a source name or a path, got a number$/,
    ],
    [
      "wrong type",
      `${JSON.stringify({ v: 1, type: "task", name: "x", path: "/x" })}\n`,
      1,
      /^stdin line 1: expected a "source" record, got type "task"$/,
    ],
    ["wrong version", `${rec({ v: 2, name: "x", path: "/x" })}\n`, 1, /^stdin line 1: v: must be 1$/],
    ["no name", `${rec({ name: undefined, path: "/x" })}\n`, 1, /^stdin line 1: name: expected string$/],
    ["relative path in record", `${rec({ name: "x", path: "x" })}\n`, 1, /^stdin line 1: path: must match /],
    ["bad head", `${rec({ name: "x", path: "/x", head: "zz" })}\n`, 1, /^stdin line 1: head: must match /],
    [
      "bad record name",
      `${rec({ name: "../x", path: "/x" })}\n`,
      1,
      /^stdin line 1: invalid source name "\.\.\/x"/,
    ],
    [
      "duplicate key",
      '{"v":1,"type":"source","name":"api","name":"web","path":"/w/api"}\n',
      1,
      /^stdin line 1: duplicate key "name"$/,
    ],
    [
      "__proto__",
      '{"v":1,"type":"source","name":"x","path":"/x","__proto__":{}}\n',
      1,
      /^stdin line 1: forbidden key "__proto__"$/,
    ],
    ["bad plain name", "a\nb c\n", 2, /^stdin line 2: invalid source name "b c"/],
    ["control character", "a\u0007b\n", 1, /^stdin line 1: control character in a source name or path$/],
    ["BOM", "\uFEFFapi\n", 1, /^stdin line 1: starts with a UTF-8 byte order mark \(BOM\)$/],
    ["BOM before a record", `\uFEFF${rec({ name: "x", path: "/x" })}\n`, 1, /byte order mark/],
    [
      "unsafe integer",
      `${rec({ name: "x", path: "/x" }).replace("}", ',"ahead":9007199254740993}')}\n`,
      1,
      /^stdin line 1: number 9007199254740993 cannot be represented exactly$/,
    ],
    ["over-long line", `${"a".repeat(1024 * 1024 + 1)}\n`, 1, /^stdin line 1: longer than 1048576 bytes$/],
  ])("rejects %s", async (_name, input, line, message) => {
    let err: unknown;
    try {
      await parseTargetLines(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ArielError);
    const e = err as ArielError;
    expect(e.code).toBe("ERR_INVALID_INPUT");
    expect(e.exit).toBe(65);
    expect(e.message).toMatch(new RegExp(`^stdin line ${line}: `));
    expect(e.message).toMatch(message);
    expect(e.context.line).toBe(line);
  });

  it.each([
    ["null", "./null"],
    ["42", "./42"],
  ])("hints that a source named %j is given as %j", async (line, path) => {
    await expect(parseTargetLines(`${line}\n`)).rejects.toMatchObject({
      code: "ERR_INVALID_INPUT",
      hint: `a source whose name is a JSON literal is given as a path: ${path}`,
    });
    expect(await parseTargetLines(`${path}\n`)).toEqual([{ kind: "path", path, origin: "stdin line 1" }]);
  });
});

describe("parseTargetArg", () => {
  eachMaps(
    parseTargetArg,
    [
      ["api", { kind: "name", name: "api", origin: "--source api" }],
      ["./api", { kind: "path", path: "./api", origin: "--source ./api" }],
      ["/abs", { kind: "path", path: "/abs", origin: "--source /abs" }],
    ],
    "%s",
  );

  it("rejects an invalid name with exit 65", () => {
    expect(() => parseTargetArg("a b")).toThrow(
      expect.objectContaining({ code: "ERR_INVALID_NAME", exit: 65 }),
    );
  });
});

describe("parseTargetLines on a stream", () => {
  it("reads byte chunks split inside a line and a UTF-8 character", async () => {
    const bytes = new TextEncoder().encode("api\nw\u00e9b\n");
    async function* chunks() {
      yield bytes.slice(0, 2);
      yield bytes.slice(2, 6);
      yield bytes.slice(6);
    }
    await expect(parseTargetLines(chunks())).rejects.toThrow(/^stdin line 2: invalid source name/);
    const ok = new TextEncoder().encode("api\nweb");
    async function* two() {
      yield ok.slice(0, 5);
      yield ok.slice(5);
    }
    expect((await parseTargetLines(two())).map((s) => s.kind === "name" && s.name)).toEqual(["api", "web"]);
  });
});

describe("targets: exact answers", () => {
  eachMaps(
    isPathLike,
    [
      ["/abs", true],
      ["./rel", true],
      ["../up", true],
      ["..", true],
      [".", false],
      ["..x", false],
      ["a/b", false],
    ],
    "isPathLike(%j) = %s",
  );

  it("an empty --source is a usage error", () => {
    expect(() => parseTargetArg("")).toThrow(
      expect.objectContaining({ code: "ERR_USAGE", message: "--source needs a source name or path" }),
    );
  });

  it.each<[string, string, Record<string, unknown>]>([
    [
      "a BOM",
      "\ufeffapi\n",
      {
        message: "stdin line 1: starts with a UTF-8 byte order mark (BOM)",
        hint: "write plain UTF-8 without a BOM",
        context: { line: 1 },
      },
    ],
    [
      "a record without a type",
      'api\n{"v":1,"name":"x","path":"/w/x"}\n',
      {
        message: 'stdin line 2: expected a "source" record, got type null',
        hint: "pipe in `ariel-discover --json` output, or one source name or path a line",
        context: { line: 2 },
      },
    ],
    [
      "a source record the schema refuses",
      `\n\n${rec({ name: "x", path: "rel" })}\n`,
      { message: "stdin line 3: path: must match /^\\//", context: expect.objectContaining({ line: 3 }) },
    ],
    [
      "a JSON string",
      '"api"\n',
      {
        message:
          "stdin line 1: expected a source record (a JSON object), a source name or a path, got a string",
      },
    ],
    ["a DEL character", "a\x7fb\n", { message: "stdin line 1: control character in a source name or path" }],
  ])("%s", async (_n, input, expected) => {
    await expect(parseTargetLines(input)).rejects.toMatchObject({ code: "ERR_INVALID_INPUT", ...expected });
  });

  it("trims each line and keeps its number as the origin", async () => {
    expect(await parseTargetLines("  api  \n\t./web\t\n")).toEqual([
      { kind: "name", name: "api", origin: "stdin line 1" },
      { kind: "path", path: "./web", origin: "stdin line 2" },
    ]);
  });
});

/**
 * `ariel-spawn --source -` names bad input exactly: invalid UTF-8 on its real line, a duplicate
 * key by name, a line that is a JSON value other than an object (`null`, `true`, `42`, `"x"`)
 * rejected instead of being looked up as a source. Each exits 65 before anything runs and
 * before a run history is written. A source whose name is a JSON literal is given as `./42`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { records, runAriel } from "./helpers/cli.ts";
import { removeDir } from "./helpers/git.ts";
import { NODE, workspace } from "./spawn_helpers.ts";

let root = "";
beforeAll(() => {
  root = workspace(["api", "42", "null"]);
});
afterAll(() => removeDir(root));

const enc = new TextEncoder();
const spawnWith = (input: string | Uint8Array) =>
  runAriel("spawn", ["--source", "-", "--json", "--", NODE, "-e", "console.log(process.env.ARIEL_SOURCE)"], {
    cwd: root,
    input,
  });

describe("ariel-spawn --source - rejects bad stdin with 65, naming the line", () => {
  it.each<[string, string | Uint8Array, number, string, Record<string, unknown>]>([
    [
      "invalid UTF-8 on line 3",
      Uint8Array.of(...enc.encode("api\n42x\n"), 0x61, 0xff, 0x0a, ...enc.encode("api\n")),
      3,
      "stdin line 3: invalid UTF-8",
      {},
    ],
    [
      "a duplicate key",
      'api\n{"v":1,"type":"source","name":"api","path":"/x","name":"web"}\n',
      2,
      'stdin line 2: duplicate key "name"',
      { key: "name" },
    ],
    [
      "null",
      "api\nnull\n",
      2,
      "stdin line 2: expected a source record (a JSON object), a source name or a path, got null",
      { hint: "a source whose name is a JSON literal is given as a path: ./null" },
    ],
    [
      "true",
      "true\n",
      1,
      "stdin line 1: expected a source record (a JSON object), a source name or a path, got a boolean",
      {},
    ],
    [
      "42",
      "42\n",
      1,
      "stdin line 1: expected a source record (a JSON object), a source name or a path, got a number",
      { hint: "a source whose name is a JSON literal is given as a path: ./42" },
    ],
    [
      '"x"',
      '"x"\n',
      1,
      "stdin line 1: expected a source record (a JSON object), a source name or a path, got a string",
      {},
    ],
  ])("%s", async (_name, input, line, message, extra) => {
    const r = await spawnWith(input);
    const errs = records(r.stderr).filter((e) => e.type === "error");
    expect({ exit: r.code, stdout: r.stdout, n: errs.length }).toEqual({ exit: 65, stdout: "", n: 1 });
    expect(errs[0]).toMatchObject({ code: "ERR_INVALID_INPUT", message, line, exit: 65, ...extra });
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });
});

describe("sources named like JSON literals", () => {
  it("are given as ./42 and ./null, and run", async () => {
    const r = await spawnWith("./42\n./null\napi\n");
    expect(r.code).toBe(0);
    const lines = records(r.stdout)
      .filter((e) => e.event === "output")
      .map((e) => e.line);
    expect(lines).toEqual(["42", "null", "api"]);
  });
});

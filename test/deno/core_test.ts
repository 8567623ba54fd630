/**
 * The pure core runs unchanged on Deno: the same pinned values as the vitest unit tests.
 * Run: node_modules/.bin/deno test -A --no-check test/deno/core_test.ts
 */
import assert from "node:assert/strict";
import {
  ArielError,
  checkRecord,
  isWithin,
  parseConfig,
  parseNdjson,
  RECORD_SCHEMAS,
  resolveContained,
  resolveWorkspaceRoot,
  validateBranchName,
  workspaceHash,
} from "@ariel/core";
import { defineCommand, runCli } from "@ariel/core/host";
import { FakeFs } from "@ariel/core/testing";

// Deno's global, declared for tsc (which checks this file with Node's types); Deno itself runs it.
declare const Deno: { test(name: string, fn: () => void | Promise<void>): void };

Deno.test("workspaceHash matches the caliban/prospero vector", async () => {
  assert.equal(await workspaceHash("/some/repo/root"), "ae89cb2b620ea8fc");
});

Deno.test("names and paths", () => {
  assert.equal(validateBranchName("ariel/fix-1"), "ariel/fix-1");
  assert.throws(() => validateBranchName("a..b"), ArielError);
  assert.equal(isWithin("/a/b", "/a/bc"), false);
});

Deno.test("workspace resolution and containment over a fake fs", async () => {
  const fs = new FakeFs({
    "/ws/.ariel": { dir: true },
    "/ws/api/.git/HEAD": "x",
    "/ws/out": { link: "/etc" },
  });
  const ws = await resolveWorkspaceRoot({ fs, env: {}, cwd: "/ws/api" });
  assert.deepEqual([ws.root, ws.via], ["/ws", "marker"]);
  await assert.rejects(resolveContained(fs, "/ws", "out/passwd"), /outside/);
});

Deno.test("ndjson, schemas and config", () => {
  const [entry] = parseNdjson('{"v":1,"type":"warning","code":"W","message":"m"}\r\n');
  assert.deepEqual(checkRecord(RECORD_SCHEMAS.warning!, entry!.record, "line 1"), entry!.record);
  assert.throws(() => parseNdjson('{"n":9007199254740993}'), /cannot be represented exactly/);
  assert.equal(parseConfig('{"leaseTtlMs": 5000}', "/ws").leaseTtlMs, 5000);
  assert.throws(() => parseConfig('{"nope": 1}', "/ws"), /unknown key "nope"/);
});

Deno.test("runCli parses flags the same way under Deno", async () => {
  const spec = defineCommand({
    meta: { name: "ariel-x", description: "d" },
    args: {
      branch: { type: "string", description: "b" },
      exclude: { type: "string", multiple: true, alias: "skip", description: "e" },
    },
    rest: { valueHint: "CMD" },
    run(ctx) {
      ctx.out.record({ flags: ctx.args, rest: ctx.rest });
      return 0;
    },
  });
  const run = async (argv: string[]) => {
    let out = "";
    let err = "";
    const code = await runCli(spec, {
      version: "1",
      argv,
      stdout: {
        write: (t: string) => {
          out += t;
        },
      },
      stderr: {
        write: (t: string) => {
          err += t;
        },
      },
    });
    return { code, out, err };
  };
  const ok = await run(["--exclude", "a", "--skip", "b", "--", "x"]);
  assert.deepEqual(JSON.parse(ok.out), { flags: { exclude: ["a", "b"] }, rest: ["x"] });
  const twice = await run(["--branch", "a", "--branch", "b"]);
  assert.equal(twice.code, 64);
  assert.match(twice.err, /flag "--branch" given twice \[ERR_USAGE\]/);
});

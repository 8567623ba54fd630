import { describe, expect, it } from "vitest";
import { errorOf } from "../../_fixture.ts";
import type { ArgsDef } from "./define.ts";
import { parseCommandLine } from "./parse.ts";

// parseCommandLine on its own (run_test.ts checks it through runCli's stderr): exact values, and
// the exact message and hint of each usage error.

const flags = {
  json: { type: "boolean", description: "NDJSON" },
  branch: { type: "string", description: "branch" },
  "workspace-root": { type: "string", alias: "C", description: "root" },
} as const satisfies ArgsDef;

/** A command that takes a RUN word and flags, and a command after `--`. */
const withPositional = {
  ...flags,
  run: { type: "positional", description: "run" },
} as const satisfies ArgsDef;

function parse(args: ArgsDef, argv: string[], rest = false) {
  return parseCommandLine(args, argv, {
    commandPath: "ariel-x",
    rest: rest ? { valueHint: "CMD" } : undefined,
  });
}

/** The usage error's message and hint (undefined hint: the code's default). */
function usageError(args: ArgsDef, argv: string[], rest = false) {
  const e = errorOf(() => parse(args, argv, rest));
  return { code: e.code, message: e.message, hint: e.hint };
}

const DEFAULT_HINT = "run with --help to see the flags";

describe("parseCommandLine values", () => {
  it("a command with a positional and a command after --: a word is the positional, not the command", () => {
    expect(parse(withPositional, ["--json", "r1", "--", "ls"], true)).toStrictEqual({
      values: { json: true, run: "r1" },
      rest: ["ls"],
      help: false,
      version: false,
    });
  });

  it("a value starting with '-' joined by '=' is the value", () => {
    expect(parse(flags, ["--branch=-x", "-C-y"]).values).toStrictEqual({
      branch: "-x",
      "workspace-root": "-y",
    });
  });

  it("a flag given keeps its value over the default; an absent one without default stays absent", () => {
    const args = {
      mode: { type: "string", default: "fast", description: "m" },
      other: { type: "string", description: "o" },
      quiet: { type: "boolean", description: "q" },
    } as const satisfies ArgsDef;
    expect(parse(args, ["--mode", "slow"]).values).toStrictEqual({ mode: "slow" });
    expect(parse(args, []).values).toStrictEqual({ mode: "fast" });
  });

  it("--help and --version skip the checks of required flags and positionals", () => {
    const args = {
      task: { type: "string", required: true, description: "t" },
      run: { type: "positional", description: "r" },
    } as const satisfies ArgsDef;
    expect(parse(args, ["--help"])).toStrictEqual({ values: {}, rest: [], help: true, version: false });
    expect(parse(args, ["-V"])).toStrictEqual({ values: {}, rest: [], help: false, version: true });
  });

  it("positionals: optional ones may be missing, a default fills in, a repeatable one takes the rest", () => {
    const args = {
      first: { type: "positional", description: "f" },
      second: { type: "positional", required: false, description: "s" },
      third: { type: "positional", default: "dflt", description: "t" },
    } as const satisfies ArgsDef;
    expect(parse(args, ["a"]).values).toStrictEqual({ first: "a", third: "dflt" });
    expect(parse(args, ["a", "b", "c"]).values).toStrictEqual({ first: "a", second: "b", third: "c" });
    const many = {
      files: { type: "positional", multiple: true, required: false, description: "f" },
    } as const satisfies ArgsDef;
    expect(parse(many, []).values).toStrictEqual({ files: [] });
    expect(parse(many, ["x", "y"]).values).toStrictEqual({ files: ["x", "y"] });
    const required = {
      files: { type: "positional", multiple: true, description: "f" },
    } as const satisfies ArgsDef;
    expect(parse(required, ["x"]).values).toStrictEqual({ files: ["x"] });
  });
});

describe("parseCommandLine usage errors", () => {
  it.each<[string, ArgsDef, string[], string, string]>([
    [
      "a long flag spelt like a short one: the short one is suggested",
      flags,
      ["--C", "/ws"],
      'unknown flag "--C"',
      'did you mean "-C"? run ariel-x --help to see the flags',
    ],
    [
      "a missing value without a value hint",
      flags,
      ["--branch"],
      'flag "--branch" needs a value',
      "write --branch VALUE",
    ],
    [
      "a required flag without a value hint",
      { t: { type: "string", required: true, description: "t" } },
      [],
      "ariel-x needs --t VALUE",
      DEFAULT_HINT,
    ],
    [
      "a missing positional is named in capitals",
      { run: { type: "positional", description: "r" } },
      [],
      "ariel-x needs RUN",
      DEFAULT_HINT,
    ],
    [
      "a missing positional with a value hint",
      { run: { type: "positional", valueHint: "RUN_ID", description: "r" } },
      [],
      "ariel-x needs RUN_ID",
      DEFAULT_HINT,
    ],
    [
      "a required repeatable positional given nothing",
      { files: { type: "positional", multiple: true, description: "f" } },
      [],
      "ariel-x needs FILES",
      DEFAULT_HINT,
    ],
    [
      "a word past the positionals",
      { run: { type: "positional", description: "r" } },
      ["a", "b"],
      'unexpected argument "b"',
      DEFAULT_HINT,
    ],
  ])("%s", (_n, args, argv, message, hint) => {
    expect(usageError(args, argv)).toStrictEqual({ code: "ERR_USAGE", message, hint });
  });

  it("a command right before --: what followed -- moves after it", () => {
    expect(usageError(flags, ["ls", "--", "-la"], true)).toStrictEqual({
      code: "ERR_USAGE",
      message: 'unexpected argument "ls"',
      hint: "put the command after --: ariel-x -- ls -la",
    });
  });
});

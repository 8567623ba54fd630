import { describe, expect, it } from "vitest";
import { ArielError } from "../../errors.ts";
import { StdoutClosed, type TextSink } from "../output.ts";
import type { RunContext } from "./context.ts";
import { type ArgsDef, type CommandDef, defineCommand } from "./define.ts";
import { runCli } from "./run.ts";
import { PIPE_TERMINAL, type Terminal } from "./terminal.ts";

class Sink implements TextSink {
  text = "";
  write(t: string): void {
    this.text += t;
  }
}

const args = {
  json: { type: "boolean", description: "NDJSON" },
  branch: { type: "string", description: "branch", valueHint: "NAME" },
  "workspace-root": { type: "string", alias: ["C", "repo-root"], description: "root" },
  exclude: { type: "string", multiple: true, alias: "skip", description: "glob" },
} as const satisfies ArgsDef;

/** A command that prints what it parsed, or runs `body` when given. */
function command(body?: (ctx: RunContext<typeof args>) => number | Promise<number>) {
  return defineCommand({
    meta: { name: "ariel-x", description: "test command" },
    args,
    rest: { valueHint: "CMD" },
    run:
      body ??
      ((ctx) => {
        ctx.out.record({ args: ctx.args, rest: ctx.rest });
        return 0;
      }),
  });
}

async function run(spec: CommandDef, argv: string[], term: Terminal = PIPE_TERMINAL) {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runCli(spec, { version: "9.9.9", argv, stdout, stderr, env: {}, cwd: "/", term });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe("runCli parsing", () => {
  it.each<[string, string[], Record<string, unknown>]>([
    ["nothing", [], { args: { exclude: [] }, rest: [] }],
    [
      "boolean and string",
      ["--json", "--branch", "b"],
      { args: { json: true, branch: "b", exclude: [] }, rest: [] },
    ],
    ["short alias", ["-C", "/ws"], { args: { "workspace-root": "/ws", exclude: [] }, rest: [] }],
    ["long alias", ["--repo-root=/ws"], { args: { "workspace-root": "/ws", exclude: [] }, rest: [] }],
    [
      "repeatable flag keeps command-line order across aliases",
      ["--exclude", "a", "--skip", "b", "--exclude=c"],
      { args: { exclude: ["a", "b", "c"] }, rest: [] },
    ],
    [
      "everything after -- is rest, even flags",
      ["--json", "--", "npm", "--json", "--", "x"],
      { args: { json: true, exclude: [] }, rest: ["npm", "--json", "--", "x"] },
    ],
    ["empty string value", ["--branch="], { args: { branch: "", exclude: [] }, rest: [] }],
    ["a lone - is a value", ["--branch", "-"], { args: { branch: "-", exclude: [] }, rest: [] }],
  ])("%s", async (_name, argv, expected) => {
    const r = await run(command(), argv);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(JSON.parse(r.stdout)).toEqual(expected);
  });

  it.each([
    ["unknown flag", ["--bogus"], 'unknown flag "--bogus"', "run ariel-x --help to see the flags"],
    [
      "unknown flag close to a known one",
      ["--jsno"],
      'unknown flag "--jsno"',
      'did you mean "--json"? run ariel-x --help to see the flags',
    ],
    [
      "unknown long alias close to a known one",
      ["--repo-rot", "x"],
      'unknown flag "--repo-rot"',
      'did you mean "--repo-root"? run ariel-x --help to see the flags',
    ],
    ["unknown short flag", ["-Z"], 'unknown flag "-Z"', "run ariel-x --help to see the flags"],
    ["missing value", ["--branch"], 'flag "--branch" needs a value', "write --branch NAME"],
    [
      "repeated string flag",
      ["--branch", "a", "--branch", "b"],
      'flag "--branch" given twice',
      "run ariel-x --help to see the flags",
    ],
    [
      "string flag and its alias",
      ["-C", "a", "--repo-root", "b"],
      'flag "--workspace-root" given twice',
      "run ariel-x --help to see the flags",
    ],
    [
      "value for a boolean",
      ["--json=yes"],
      'flag "--json" does not take a value',
      "run ariel-x --help to see the flags",
    ],
    [
      "a command without --",
      ["--branch", "b", "ls", "-la"],
      'unexpected argument "ls"',
      "put the command after --: ariel-x --branch b -- ls -la",
    ],
    [
      "a command without -- keeps what followed -- and quotes for the shell",
      ["echo", "hi there", "--", "x"],
      'unexpected argument "echo"',
      "put the command after --: ariel-x -- echo 'hi there' x",
    ],
    [
      "a command with a control character is escaped in the message and the hint",
      ["\u001b[2J"],
      'unexpected argument "\\u001b[2J"',
      "put the command after --: ariel-x -- $'\\x1b[2J'",
    ],
  ])("%s → 64 with the exact stderr lines", async (_name, argv, message, hint) => {
    const r = await run(command(), argv);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`ariel-x: error: ${message} [ERR_USAGE]\nariel-x: hint: ${hint}\n`);
  });

  it.each([
    [["--branch", "-x"], "--branch", "--branch=-x"],
    [["-C", "-x"], "-C", "-C-x"],
  ])("a value starting with '-' after a separate flag says how to pass it: %j", async (argv, flag, fix) => {
    const r = await run(command(), argv);
    expect([r.code, r.stdout]).toEqual([64, ""]);
    expect(r.stderr).toBe(
      `ariel-x: error: flag "${flag}" needs a value, but the next word "-x" looks like a flag [ERR_USAGE]\n` +
        `ariel-x: hint: to pass a value starting with "-", write ${fix}\n`,
    );
  });

  it("a usage error with --json is an NDJSON error record on stderr, v and type first", async () => {
    const r = await run(command(), ["--json", "--bogus"]);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      '{"v":1,"type":"error","code":"ERR_USAGE","message":"unknown flag \\"--bogus\\"","hint":"run ariel-x --help to see the flags","exit":64}\n',
    );
  });

  it("--json after -- does not switch the error format", async () => {
    const r = await run(command(), ["--bogus", "--", "--json"]);
    expect(r.stderr).toMatch(/^ariel-x: error: /);
  });

  it("control characters in a bad flag do not reach the terminal", async () => {
    const r = await run(command(), ["--\u001b[31mred"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toBe(
      'ariel-x: error: unknown flag "--\\u001b[31mred" [ERR_USAGE]\nariel-x: hint: run ariel-x --help to see the flags\n',
    );
  });

  it("a command without rest refuses words after --, and stray words", async () => {
    const plain = defineCommand({ meta: { name: "ariel-p", description: "p" }, run: () => 0 });
    expect((await run(plain, ["--", "x"])).stderr).toBe(
      'ariel-p: error: unexpected argument "x" after --: ariel-p takes no command [ERR_USAGE]\n' +
        "ariel-p: hint: run ariel-p --help to see the flags\n",
    );
    expect((await run(plain, ["word"])).stderr).toBe(
      'ariel-p: error: unexpected argument "word" [ERR_USAGE]\nariel-p: hint: run ariel-p --help to see the flags\n',
    );
  });

  it("required flags, defaults and positionals are typed and checked", async () => {
    const typed = defineCommand({
      meta: { name: "ariel-t", description: "t" },
      args: {
        task: { type: "string", required: true, valueHint: "ID", description: "t" },
        mode: { type: "string", default: "fast", description: "m" },
        run: { type: "positional", valueHint: "RUN", description: "r" },
        more: { type: "positional", multiple: true, required: false, description: "m" },
      },
      run(ctx) {
        const task: string = ctx.args.task;
        const mode: string = ctx.args.mode;
        const more: string[] = ctx.args.more;
        const runId: string = ctx.args.run;
        // @ts-expect-error a misspelt flag is a compile error, not undefined at run time
        void ctx.args.tsak;
        // @ts-expect-error a flag's value has its declared type
        const wrong: number = ctx.args.mode;
        void wrong;
        ctx.out.record({ task, mode, run: runId, more });
        return 0;
      },
    });
    const ok = await run(typed, ["--task", "t1", "r1", "a", "b"]);
    expect(JSON.parse(ok.stdout)).toEqual({ task: "t1", mode: "fast", run: "r1", more: ["a", "b"] });
    expect((await run(typed, ["r1"])).stderr).toBe(
      "ariel-t: error: ariel-t needs --task ID [ERR_USAGE]\nariel-t: hint: run ariel-t --help to see the flags\n",
    );
    expect((await run(typed, ["--task", "t1"])).stderr).toBe(
      "ariel-t: error: ariel-t needs RUN [ERR_USAGE]\nariel-t: hint: run ariel-t --help to see the flags\n",
    );
  });
});

describe("runCli sub-commands", () => {
  const list = defineCommand({
    meta: { name: "list", description: "list things" },
    args,
    run(ctx) {
      ctx.out.record({ args: ctx.args });
      return 0;
    },
  });
  let loaded = 0;
  const spec = defineCommand({
    meta: { name: "ariel-y", description: "with sub-commands", examples: [["ariel-y list", "list"]] },
    args: { json: args.json, "workspace-root": args["workspace-root"] },
    subCommands: {
      list,
      add: async () => {
        loaded++;
        return defineCommand({ meta: { name: "add", description: "add a thing" }, run: () => 5 });
      },
    },
  });

  it.each<[string, string[], string]>([
    [
      "unknown sub-command, with --json",
      ["lst", "--json"],
      '{"v":1,"type":"error","code":"ERR_USAGE","message":"unknown command \\"lst\\"","hint":"did you mean \\"list\\"? run ariel-y help to see the commands","exit":64}\n',
    ],
    [
      "unknown sub-command",
      ["frob"],
      'ariel-y: error: unknown command "frob" [ERR_USAGE]\nariel-y: hint: run ariel-y help to see the commands\n',
    ],
    [
      "help of an unknown sub-command",
      ["help", "ad"],
      'ariel-y: error: unknown command "ad" [ERR_USAGE]\nariel-y: hint: did you mean "add"? run ariel-y help to see the commands\n',
    ],
    [
      "a flag of the sub-command before its name",
      ["--exclude", "x", "list"],
      'ariel-y: error: unknown flag "--exclude" [ERR_USAGE]\nariel-y: hint: run ariel-y --help to see the flags\n',
    ],
  ])("%s → 64 and the exact stderr", async (_name, argv, stderr) => {
    const r = await run(spec, argv);
    expect([r.code, r.stdout, r.stderr]).toEqual([64, "", stderr]);
  });

  it("no sub-command → help on stderr, 64", async () => {
    const r = await run(spec, []);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Usage: ariel-y <command> [OPTIONS]");
    expect(r.stderr).toContain("  list            list things\n");
  });

  it("no sub-command with --json → an NDJSON usage error, nothing else on stderr", async () => {
    const r = await run(spec, ["--json"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      64,
      "",
      '{"v":1,"type":"error","code":"ERR_USAGE","message":"ariel-y needs a command","hint":"run ariel-y help to see the commands","exit":64}\n',
    ]);
  });

  it.each([[["--help"]], [["help"]], [["-C", "/ws", "--help"]]])(
    "%j → the group's help on stdout, 0",
    async (argv) => {
      const r = await run(spec, argv);
      expect([r.code, r.stderr]).toEqual([0, ""]);
      expect(r.stdout.split("\n").slice(0, 9)).toEqual([
        "ariel-y 9.9.9: with sub-commands",
        "",
        "Usage: ariel-y <command> [OPTIONS]",
        "",
        "Commands:",
        "  list            list things",
        "  add             add a thing",
        "  help [COMMAND]  show the help of a command",
        "",
      ]);
    },
  );

  it.each([[["help", "list"]], [["list", "--help"]], [["--json", "list", "-h"]]])(
    "%j → the sub-command's help on stdout, 0",
    async (argv) => {
      const r = await run(spec, argv);
      expect([r.code, r.stderr]).toEqual([0, ""]);
      expect(r.stdout.split("\n")[0]).toBe("ariel-y list 9.9.9: list things");
    },
  );

  it.each<[string, string[], Record<string, unknown>]>([
    ["flags after the name", ["list", "--branch", "x"], { branch: "x", exclude: [] }],
    [
      "global flags before the name",
      ["-C", "/ws", "--json", "list"],
      { "workspace-root": "/ws", json: true, exclude: [] },
    ],
    [
      "global flags on both sides",
      ["--repo-root=/ws", "list", "--json"],
      { "workspace-root": "/ws", json: true, exclude: [] },
    ],
  ])("%s", async (_name, argv, expected) => {
    const r = await run(spec, argv);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(JSON.parse(r.stdout).args).toEqual(expected);
  });

  it("a lazy sub-command is loaded only when it runs (or for the group's help)", async () => {
    loaded = 0;
    await run(spec, ["list"]);
    expect(loaded).toBe(0);
    expect((await run(spec, ["add"])).code).toBe(5);
    expect(loaded).toBe(1);
  });

  it("-V prints the version", async () => {
    expect((await run(spec, ["-V"])).stdout).toBe("9.9.9\n");
    expect((await run(command(), ["--version"])).stdout).toBe("9.9.9\n");
  });
});

describe("runCli outcomes", () => {
  it("returns the command's status", async () => {
    expect(
      (
        await run(
          command(() => 3),
          [],
        )
      ).code,
    ).toBe(3);
  });

  it("an ArielError gives its exit status, message and hint", async () => {
    const r = await run(
      command(() => {
        throw new ArielError("ERR_DIRTY", "worktree api has changes", { context: { source: "api" } });
      }),
      [],
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      "ariel-x: error: worktree api has changes [ERR_DIRTY]\nariel-x: hint: commit or stash the changes, pass --snapshot, or --allow dirty\n",
    );
  });

  describe("redacts credentials from everything it prints itself", () => {
    const failing = command((ctx) => {
      ctx.log.warn("WARN_X", "retrying https://u:warnpw@h/r", { url: "ssh://d:ctxpw@h/r" });
      ctx.log.info("fetched https://tok@h/r");
      throw new ArielError("ERR_GIT", "git worktree failed in /w/api: hook: ssh://deploy:hunter2@h/r", {
        hint: "see https://u:hintpw@h/help",
        context: { stderr: ["fatal: https://x:ctx2pw@h/r"], cwd: "/w/api" },
      });
    });
    const SECRETS = /warnpw|ctxpw|tok@|hunter2|hintpw|ctx2pw/;

    it("as plain lines", async () => {
      const r = await run(failing, []);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        "ariel-x: warning: retrying https://h/r\n" +
          "ariel-x: fetched https://h/r\n" +
          "ariel-x: error: git worktree failed in /w/api: hook: ssh://h/r [ERR_GIT]\n" +
          "ariel-x: hint: see https://h/help\n",
      );
      expect(r.stderr).not.toMatch(SECRETS);
    });

    it("as NDJSON records, context included", async () => {
      const r = await run(failing, ["--json"]);
      expect(
        r.stderr
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      ).toEqual([
        { v: 1, type: "warning", code: "WARN_X", message: "retrying https://h/r", url: "ssh://h/r" },
        {
          v: 1,
          type: "error",
          code: "ERR_GIT",
          message: "git worktree failed in /w/api: hook: ssh://h/r",
          hint: "see https://h/help",
          exit: 1,
          stderr: ["fatal: https://h/r"],
          cwd: "/w/api",
        },
      ]);
      expect(r.stderr).not.toMatch(SECRETS);
    });
  });

  it("on a colour terminal the level words are coloured", async () => {
    const r = await run(
      command((ctx) => {
        ctx.log.warn("WARN_X", "odd");
        throw new ArielError("ERR_DIRTY", "dirty");
      }),
      [],
      { stdout: true, stderr: true, columns: 80, color: true },
    );
    expect(r.stderr).toBe(
      "ariel-x: \u001b[33mwarning:\u001b[39m odd\n" +
        "ariel-x: \u001b[31merror:\u001b[39m dirty [ERR_DIRTY]\n" +
        "ariel-x: \u001b[2mhint:\u001b[22m commit or stash the changes, pass --snapshot, or --allow dirty\n",
    );
  });

  it("an ArielError with --json: v and type first, then its fields, then its context", async () => {
    const r = await run(
      command(() => {
        throw new ArielError("ERR_DIRTY", "dirty", { context: { source: "api", code: "NOT_THIS" } });
      }),
      ["--json"],
    );
    expect(r.stderr).toBe(
      '{"v":1,"type":"error","code":"ERR_DIRTY","message":"dirty","hint":"commit or stash the changes, pass --snapshot, or --allow dirty","exit":3,"source":"api"}\n',
    );
  });

  it("a warning with --json: v and type first, context keys never overwrite the record's", async () => {
    const r = await run(
      command((ctx) => {
        ctx.log.warn("WARN_X", "odd", { path: "/a", type: "nope", v: 9 });
        return 0;
      }),
      ["--json"],
    );
    expect(r.stderr).toBe('{"v":1,"type":"warning","code":"WARN_X","message":"odd","path":"/a"}\n');
  });

  it("messages keep their order around a stack trace", async () => {
    const r = await run(
      command((ctx) => {
        ctx.log.info("first");
        ctx.log.warn("WARN_X", "second");
        throw new TypeError("third");
      }),
      [],
    );
    const lines = r.stderr.split("\n");
    expect(lines.slice(0, 5)).toEqual([
      "ariel-x: first",
      "ariel-x: warning: second",
      "ariel-x: error: internal error: third [ERR_INTERNAL]",
      "ariel-x: hint: this is a bug in ariel; please report it with the stack trace",
      "TypeError: third",
    ]);
  });

  it("StdoutClosed ends quietly with 0", async () => {
    const r = await run(
      command(() => {
        throw new StdoutClosed();
      }),
      [],
    );
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("a stdout that closes (EPIPE) mid-run ends quietly with 0", async () => {
    const stderr = new Sink();
    let writes = 0;
    const stdout: TextSink = {
      write() {
        if (++writes > 2) throw Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
      },
    };
    const spec = command((ctx) => {
      for (let i = 0; i < 100; i++) ctx.out.record({ i });
      return 1;
    });
    const code = await runCli(spec, { version: "1", argv: [], stdout, stderr, env: {}, cwd: "/" });
    expect([code, stderr.text, writes]).toEqual([0, "", 3]);
  });

  it("an unknown error → 70, ERR_INTERNAL and the stack on stderr", async () => {
    const r = await run(
      command(() => {
        throw new TypeError("x is not a function\nsecond line");
      }),
      [],
    );
    expect(r.code).toBe(70);
    const lines = r.stderr.split("\n");
    expect(lines.slice(0, 2)).toEqual([
      "ariel-x: error: internal error: x is not a function [ERR_INTERNAL]",
      "ariel-x: hint: this is a bug in ariel; please report it with the stack trace",
    ]);
    expect(lines[2]).toBe("TypeError: x is not a function");
    expect(r.stderr).toContain("run_test.ts");
  });

  it("an unknown error with --json keeps stderr NDJSON (the stack is a field)", async () => {
    const r = await run(
      command(() => {
        throw new Error("boom");
      }),
      ["--json"],
    );
    expect(r.code).toBe(70);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    const rec = JSON.parse(lines[0] as string);
    expect([rec.code, rec.message, rec.exit]).toEqual(["ERR_INTERNAL", "internal error: boom", 70]);
    expect(rec.stack).toMatch(/^Error: boom\n/);
  });

  it("a thrown non-Error is still ERR_INTERNAL", async () => {
    const r = await run(
      command(() => {
        throw "just a string";
      }),
      [],
    );
    expect(r.code).toBe(70);
    expect(r.stderr).toBe(
      "ariel-x: error: internal error: just a string [ERR_INTERNAL]\nariel-x: hint: this is a bug in ariel; please report it with the stack trace\n",
    );
  });

  it("an already aborted signal reaches the command", async () => {
    const ac = new AbortController();
    ac.abort(new Error("SIGINT"));
    let seen: boolean | undefined;
    const spec = command((ctx) => {
      seen = ctx.signal.aborted;
      return 0;
    });
    await runCli(spec, { version: "1", argv: [], stdout: new Sink(), stderr: new Sink(), signal: ac.signal });
    expect(seen).toBe(true);
  });

  it("the terminal given reaches the command", async () => {
    const term = { stdout: true, stderr: false, columns: 100, color: false };
    let seen: Terminal | undefined;
    await run(
      command((ctx) => {
        seen = ctx.term;
        return 0;
      }),
      [],
      term,
    );
    expect(seen).toEqual(term);
  });
});

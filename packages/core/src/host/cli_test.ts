import { describe, expect, it } from "vitest";
import { ArielError } from "../errors.ts";
import { type CommandSpec, type RunContext, runCli } from "./cli.ts";
import { StdoutClosed, type TextSink } from "./output.ts";

class Sink implements TextSink {
  text = "";
  write(t: string): void {
    this.text += t;
  }
}

/** A command that prints what it parsed, or runs `body` when given. */
function command(body?: (ctx: RunContext) => number | Promise<number>): CommandSpec {
  return {
    name: "ariel-x",
    description: "test command",
    positionals: true,
    flags: {
      json: { type: "boolean", description: "NDJSON" },
      branch: { type: "string", description: "branch", valueHint: "NAME" },
      "workspace-root": { type: "string", short: "C", aliases: ["repo-root"], description: "root" },
      exclude: { type: "string", multiple: true, aliases: ["skip"], description: "glob" },
    },
    run:
      body ??
      ((ctx) => {
        ctx.out.record({ flags: ctx.flags, positionals: ctx.positionals, rest: ctx.rest });
        return 0;
      }),
  };
}

async function run(spec: CommandSpec, argv: string[]) {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runCli(spec, { version: "9.9.9", argv, stdout, stderr, env: {}, cwd: "/" });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe("runCli parsing", () => {
  it.each<[string, string[], Record<string, unknown>]>([
    ["nothing", [], { flags: {}, positionals: [], rest: [] }],
    [
      "boolean and string",
      ["--json", "--branch", "b"],
      { flags: { json: true, branch: "b" }, positionals: [], rest: [] },
    ],
    ["short alias", ["-C", "/ws"], { flags: { "workspace-root": "/ws" }, positionals: [], rest: [] }],
    ["long alias", ["--repo-root=/ws"], { flags: { "workspace-root": "/ws" }, positionals: [], rest: [] }],
    [
      "repeatable flag keeps command-line order across aliases",
      ["--exclude", "a", "--skip", "b", "--exclude=c"],
      { flags: { exclude: ["a", "b", "c"] }, positionals: [], rest: [] },
    ],
    [
      "everything after -- is rest, even flags",
      ["pos", "--json", "--", "npm", "--json", "--", "x"],
      { flags: { json: true }, positionals: ["pos"], rest: ["npm", "--json", "--", "x"] },
    ],
    ["empty string value", ["--branch="], { flags: { branch: "" }, positionals: [], rest: [] }],
  ])("%s", async (_name, argv, expected) => {
    const r = await run(command(), argv);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(JSON.parse(r.stdout)).toEqual(expected);
  });

  it.each([
    ["unknown flag", ["--bogus"], "ariel-x: error: Unknown option '--bogus' [ERR_USAGE]"],
    ["missing value", ["--branch"], "ariel-x: error: Option '--branch <value>' argument missing [ERR_USAGE]"],
    [
      "repeated string flag",
      ["--branch", "a", "--branch", "b"],
      "ariel-x: error: --branch given twice [ERR_USAGE]",
    ],
    [
      "string flag and its alias",
      ["-C", "a", "--repo-root", "b"],
      "ariel-x: error: --workspace-root given twice [ERR_USAGE]",
    ],
    [
      "value for a boolean",
      ["--json=yes"],
      "ariel-x: error: Option '--json' does not take an argument [ERR_USAGE]",
    ],
  ])("%s → 64 with the exact stderr lines", async (_name, argv, line) => {
    const r = await run(command(), argv);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`${line}\nariel-x: hint: run with --help to see the flags\n`);
  });

  it.each([
    [["--branch", "-x"], "--branch", "--branch=-x"],
    [["-C", "-x"], "-C", "-C-x"],
  ])("a value starting with '-' after a separate flag says how to pass it: %j", async (argv, flag, fix) => {
    const r = await run(command(), argv);
    expect([r.code, r.stdout]).toEqual([64, ""]);
    expect(r.stderr).toBe(
      `ariel-x: error: Option '${flag}' argument is ambiguous [ERR_USAGE]\n` +
        `ariel-x: hint: to pass a value starting with '-', write ${fix}\n`,
    );
  });

  it("a usage error with --json is an NDJSON error record on stderr", async () => {
    const r = await run(command(), ["--json", "--bogus"]);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      '{"v":1,"type":"error","code":"ERR_USAGE","message":"Unknown option \'--bogus\'","hint":"run with --help to see the flags","exit":64}\n',
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
      "ariel-x: error: Unknown option '--\\u001b[31mred' [ERR_USAGE]\nariel-x: hint: run with --help to see the flags\n",
    );
  });
});

describe("runCli sub-commands", () => {
  const spec: CommandSpec = {
    name: "ariel-y",
    description: "with sub-commands",
    flags: {},
    subCommands: {
      list: { ...command(), name: "list", description: "list things" },
      add: { ...command(), name: "add", description: "add a thing" },
    },
  };

  it("unknown sub-command → 64", async () => {
    const r = await run(spec, ["frob", "--json"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toBe(
      '{"v":1,"type":"error","code":"ERR_USAGE","message":"unknown command \\"frob\\"","hint":"run with --help to see the flags","exit":64}\n',
    );
  });

  it("unknown sub-command without --json", async () => {
    const r = await run(spec, ["frob"]);
    expect(r.stderr).toBe(
      'ariel-y: error: unknown command "frob" [ERR_USAGE]\nariel-y: hint: run with --help to see the flags\n',
    );
  });

  it("no sub-command → help on stderr, 64", async () => {
    const r = await run(spec, []);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Usage: ariel-y <command> [OPTIONS]");
    expect(r.stderr).toContain("  list  list things");
  });

  it("--help → help on stdout, 0", async () => {
    const r = await run(spec, ["--help"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout.split("\n")[0]).toBe("ariel-y 9.9.9: with sub-commands");
  });

  it("a sub-command runs with its own flags", async () => {
    const r = await run(spec, ["list", "--branch", "x"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).flags).toEqual({ branch: "x" });
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

  it("an ArielError with --json carries its context", async () => {
    const r = await run(
      command(() => {
        throw new ArielError("ERR_DIRTY", "dirty", { context: { source: "api", code: "NOT_THIS" } });
      }),
      ["--json"],
    );
    expect(JSON.parse(r.stderr)).toEqual({
      v: 1,
      type: "error",
      code: "ERR_DIRTY",
      message: "dirty",
      hint: "commit or stash the changes, pass --snapshot, or --allow dirty",
      exit: 3,
      source: "api",
    });
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
        { url: "ssh://h/r", v: 1, type: "warning", code: "WARN_X", message: "retrying https://h/r" },
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
    expect(r.stderr).toContain("cli_test.ts");
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
    const rec = JSON.parse(lines[0]!);
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
});

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, initRepo, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

// ariel-discover's command run in this process on a real workspace: alpha (clean, on main),
// beta (dirty, detached), deep/gamma (two levels down), vendor/lib (excluded by name), and a
// plain directory. The bundled bin's cases are in test/discover*.test.ts.
let ws: string;
let head: string;
let betaHead: string;
const tty = { stdout: true, stderr: true, columns: 100, color: false };

beforeAll(() => {
  ws = tempDir("ariel-discover-cmd-");
  head = initRepo(join(ws, "alpha"));
  betaHead = initRepo(join(ws, "beta"), { "b.txt": "b\n" });
  git(join(ws, "beta"), "checkout", "-q", "--detach");
  writeFileSync(join(ws, "beta/b.txt"), "changed\n");
  initRepo(join(ws, "deep/gamma"));
  initRepo(join(ws, "vendor/lib"));
  mkdirSync(join(ws, "plain"));
});
afterAll(() => removeDir(ws));

const discover = (argv: string[], term?: typeof tty) =>
  runInProcess(command, ["-C", ws, ...argv], { cwd: ws, ...(term ? { term } : {}) });

describe("ariel-discover (in-process)", () => {
  it.each<[string, string[], (ws: string) => string]>([
    [
      "a pipe: one tab-separated line per direct child that is a checkout",
      [],
      (w) => `alpha\tcheckout\tmain\t${head}\t${w}/alpha\nbeta\tcheckout\t-\t${betaHead}\t${w}/beta\n`,
    ],
    [
      "--max-depth 2 finds deep/gamma and vendor/lib",
      ["--max-depth", "2"],
      (w) =>
        `alpha\tcheckout\tmain\t${head}\t${w}/alpha\nbeta\tcheckout\t-\t${betaHead}\t${w}/beta\n` +
        `deep/gamma\tcheckout\tmain\t${head}\t${w}/deep/gamma\nvendor/lib\tcheckout\tmain\t${head}\t${w}/vendor/lib\n`,
    ],
    [
      "--exclude skips a directory by name (repeatable)",
      ["--max-depth", "2", "--exclude", "vendor", "--exclude", "beta"],
      (w) =>
        `alpha\tcheckout\tmain\t${head}\t${w}/alpha\ndeep/gamma\tcheckout\tmain\t${head}\t${w}/deep/gamma\n`,
    ],
    ["-0: NUL-terminated paths", ["-0"], (w) => `${w}/alpha\0${w}/beta\0`],
    ["--max-depth 0: the root only, which is no checkout", ["--max-depth", "0"], () => ""],
    [
      "--json: one source record per line",
      ["--json", "--exclude", "beta"],
      (w) =>
        `{"v":1,"type":"source","name":"alpha","path":"${w}/alpha","kind":"checkout","gitDir":"${w}/alpha/.git","head":"${head}","branch":"main"}\n`,
    ],
    [
      "--status adds dirty, ahead and behind",
      ["--status"],
      (w) =>
        `alpha\tcheckout\tmain\t${head}\t${w}/alpha\tclean\t-\t-\nbeta\tcheckout\t-\t${betaHead}\t${w}/beta\tdirty\t-\t-\n`,
    ],
  ])("%s", async (_name, argv, expected) => {
    expect(await discover(argv)).toEqual({ code: 0, stdout: expected(ws), stderr: "" });
  });

  it("--status --json adds the status fields to each record", async () => {
    const r = await discover(["--status", "--json", "--exclude", "alpha"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: "beta",
      head: betaHead,
      branch: null,
      dirty: true,
      ahead: null,
      behind: null,
      upstream: null,
    });
    expect(JSON.parse(r.stdout).fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a terminal gets a table, and a note saying where it looked when nothing is found", async () => {
    expect(await discover(["--exclude", "beta"], tty)).toEqual({
      code: 0,
      stdout: `NAME   KIND      BRANCH  HEAD     PATH\nalpha  checkout  main    ${head.slice(0, 7)}  ${ws}/alpha\n`,
      stderr: "",
    });
    expect(await discover(["--max-depth", "0"], tty)).toEqual({
      code: 0,
      stdout: "",
      stderr: `ariel-discover: no sources found under ${JSON.stringify(ws)} (max depth 0)\n`,
    });
  });

  it.each<[string, string[], string]>([
    ["a negative depth", ["--max-depth=-1"], '--max-depth must be an integer >= 0, got "-1"'],
    ["a word", ["--max-depth", "two"], '--max-depth must be an integer >= 0, got "two"'],
    ["too many digits", ["--max-depth", "1234567"], '--max-depth must be an integer >= 0, got "1234567"'],
    ["a fraction", ["--max-depth", "1.5"], '--max-depth must be an integer >= 0, got "1.5"'],
    [
      "--null with -0's long name and --max-depth",
      ["--null", "--max-depth", "x"],
      '--max-depth must be an integer >= 0, got "x"',
    ],
  ])("refuses %s with ERR_USAGE (64)", async (_name, argv, message) => {
    expect(await discover(argv)).toEqual({
      code: 64,
      stdout: "",
      stderr: `ariel-discover: error: ${message} [ERR_USAGE]\nariel-discover: hint: run ariel-discover --help to see the flags\n`,
    });
  });

  it("refuses --json with -0: the error as a record, since --json was asked for", async () => {
    expect(await discover(["--json", "-0"])).toEqual({
      code: 64,
      stdout: "",
      stderr:
        '{"v":1,"type":"error","code":"ERR_USAGE","message":"--json and -0/--null cannot be combined","hint":"run ariel-discover --help to see the flags","exit":64}\n',
    });
  });

  it("refuses a glob it cannot compile, naming --exclude", async () => {
    const r = await discover(["--exclude", "[a-"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/^ariel-discover: error: --exclude: .+ \[ERR_USAGE\]\n/);
  });

  it("a source whose status git cannot read: a warning, the row without status, exit 1", async () => {
    const bad = tempDir("ariel-discover-bad-");
    try {
      const ok = initRepo(join(bad, "ok"));
      initRepo(join(bad, "broken"));
      writeFileSync(join(bad, "broken/.git/index"), "not an index");
      const r = await runInProcess(command, ["-C", bad, "--status"], { cwd: bad });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(
        `broken\tcheckout\tmain\t${ok}\t${bad}/broken\t-\t-\t-\nok\tcheckout\tmain\t${ok}\t${bad}/ok\tclean\t-\t-\n`,
      );
      expect(r.stderr).toMatch(/^ariel-discover: warning: .*index.*\n$/);
    } finally {
      removeDir(bad);
    }
  });
});

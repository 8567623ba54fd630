import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initRepo, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

// ariel-discover's flags that change where it looks (-C from elsewhere, --nested,
// --follow-symlinks), what it says about what it skips (warnings with their paths, as records
// with --json), its usage errors, and its help. command_test.ts holds the plain listings.
let ws: string;
let outside: string;
let head: string;

beforeAll(() => {
  ws = tempDir("ariel-discover-flags-");
  outside = tempDir("ariel-discover-outside-");
  head = initRepo(join(ws, "alpha"));
  initRepo(join(ws, "alpha/inner"));
  initRepo(join(ws, "group/beta"));
  initRepo(join(outside, "far"));
  symlinkSync(join(ws, "group"), join(ws, "linked"));
  symlinkSync(outside, join(ws, "away"));
});
afterAll(() => {
  removeDir(ws);
  removeDir(outside);
});

const discover = (argv: string[], cwd = ws) => runInProcess(command, ["-C", ws, ...argv], { cwd });
const line = (name: string, path = join(ws, name)) => `${name}\tcheckout\tmain\t${head}\t${path}\n`;

describe("ariel-discover (in-process): where it looks", () => {
  it("-C names the workspace from any cwd", async () => {
    const elsewhere = tempDir("ariel-discover-cwd-");
    try {
      expect(await discover([], elsewhere)).toEqual({ code: 0, stdout: line("alpha"), stderr: "" });
    } finally {
      removeDir(elsewhere);
    }
  });

  it("--nested looks inside sources too; without it a source's inside is its own", async () => {
    expect((await discover(["--max-depth", "2"])).stdout).toBe(line("alpha") + line("group/beta"));
    expect(await discover(["--max-depth", "2", "--nested"])).toEqual({
      code: 0,
      stdout: line("alpha") + line("alpha/inner") + line("group/beta"),
      stderr: "",
    });
  });

  it("--follow-symlinks follows a link inside the root once (by realpath), and says why it skips one that leaves it", async () => {
    const plain = await discover(["--max-depth", "2"]);
    expect(plain).toEqual({ code: 0, stdout: line("alpha") + line("group/beta"), stderr: "" });
    const followed = await discover(["--max-depth", "2", "--follow-symlinks", "--exclude", "group"]);
    expect(followed).toEqual({
      code: 0,
      stdout: line("alpha") + line("linked/beta", join(ws, "group/beta")),
      stderr: `ariel-discover: warning: not following ${ws}/away: it points outside the workspace root\n`,
    });
  });

  it("--json: a warning is a record on stderr with its code and path", async () => {
    const r = await discover(["--json", "--follow-symlinks"]);
    expect(r.code).toBe(0);
    expect(
      r.stderr
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        v: 1,
        type: "warning",
        code: "WARN_SYMLINK_OUTSIDE_ROOT",
        message: `not following ${ws}/away: it points outside the workspace root`,
        path: `${ws}/away`,
      },
    ]);
  });

  it("--status --json: a source git cannot read is a WARN_STATUS_FAILED record naming its path, and exit 1", async () => {
    const bad = tempDir("ariel-discover-bad-");
    try {
      initRepo(join(bad, "broken"));
      writeFileSync(join(bad, "broken/.git/index"), "not an index");
      const r = await runInProcess(command, ["-C", bad, "--status", "--json"], { cwd: bad });
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).not.toHaveProperty("dirty");
      const [warning] = r.stderr
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(warning).toMatchObject({
        type: "warning",
        code: "WARN_STATUS_FAILED",
        path: join(bad, "broken"),
      });
      // without --status git is not asked, so nothing is said
      const plain = await runInProcess(command, ["-C", bad, "--json"], { cwd: bad });
      expect([plain.code, plain.stderr]).toEqual([0, ""]);
    } finally {
      removeDir(bad);
    }
  });
});

describe("ariel-discover (in-process): usage", () => {
  it.each([
    ["-1", 'got "-1"'],
    ["1234567", 'got "1234567"'],
    ["2x", 'got "2x"'],
  ])("--max-depth %s is refused with 64", async (value, why) => {
    const r = await discover([`--max-depth=${value}`]);
    expect(r).toEqual({
      code: 64,
      stdout: "",
      stderr: expect.stringMatching(
        new RegExp(`^ariel-discover: error: --max-depth must be an integer >= 0, ${why} \\[ERR_USAGE\\]\n`),
      ),
    });
  });

  it("--max-depth takes up to six digits", async () => {
    expect(await discover(["--max-depth", "000001"])).toEqual({ code: 0, stdout: line("alpha"), stderr: "" });
  });

  it("--help: what it does and its examples, each under its comment", async () => {
    const r = await runInProcess(command, ["--help"], { cwd: ws });
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(
      /^ariel-discover \S+: list the git checkouts \(sources\) of a workspace$/,
    );
    const examples = r.stdout.slice(
      r.stdout.indexOf("Examples:"),
      r.stdout.indexOf("\n\n", r.stdout.indexOf("Examples:")),
    );
    expect(examples).toBe(
      [
        "Examples:",
        "  # the sources under the current workspace, one per line",
        "  ariel-discover",
        "  # the sources with local changes",
        "  ariel-discover --status --json | jq -r 'select(.dirty) | .name'",
        "  # fetch in every source",
        "  ariel-discover -0 | xargs -0 -I{} git -C {} fetch",
        "  # look two levels deep, skipping vendor/",
        "  ariel-discover --max-depth 2 --exclude vendor",
      ].join("\n"),
    );
  });
});

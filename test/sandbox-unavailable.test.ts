// A sandbox that cannot start, and sandbox requests that make no sense, refused before
// anything is made (docs/sandbox.md); config `sandbox` and --no-sandbox; the network switch.
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SANDBOX_UNAVAILABLE_CASES } from "./e2e/sandbox_cases.ts";
import { arielIn } from "./helpers/cli.ts";
import { writeFile } from "./helpers/git.ts";
import {
  cleanWorlds,
  describeSandbox,
  type SandboxWorld,
  sandboxWorld,
  script,
  statuses,
} from "./sandbox_helpers.ts";
import { picture } from "./worktree-fixtures.ts";

afterEach(cleanWorlds);

function spawn(w: SandboxWorld, args: readonly string[], env: Record<string, string> = {}) {
  return arielIn("spawn", w.root, args, { env: { ...w.env, ...env } });
}

/** The last line of stderr as an error record (with --json). */
function errorOf(stderr: string): Record<string, unknown> {
  return JSON.parse(stderr.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
}

describe("a sandbox that cannot start: 69, nothing left behind", () => {
  for (const c of SANDBOX_UNAVAILABLE_CASES) it(c.name, () => c.run("node"));
});

describeSandbox("sandbox requests refused before anything is made", () => {
  it.each([
    [
      "--sandbox-write without a sandbox",
      ["--sandbox-write", "/opt", "--source", "api"],
      64,
      "ERR_USAGE",
      "--sandbox-write needs --sandbox",
    ],
    [
      "--sandbox-net of another value",
      ["--sandbox", "--sandbox-net", "off", "--source", "api"],
      64,
      "ERR_USAGE",
      '--sandbox-net must be on or none, got "off"',
    ],
    [
      "--sandbox and --no-sandbox",
      ["--sandbox", "--no-sandbox", "--source", "api"],
      64,
      "ERR_USAGE",
      "--sandbox and --no-sandbox exclude each other",
    ],
    [
      "--sandbox with --backend k8s",
      ["--detach", "--backend", "k8s", "--sandbox", "--source", "api"],
      64,
      "ERR_USAGE",
      "--sandbox is not available with --backend k8s",
    ],
    [
      "the workspace root, which is no checkout",
      ["--sandbox"],
      66,
      "ERR_NOT_A_CHECKOUT",
      "is not a git checkout: a sandboxed run works in a checkout or a task's worktrees",
    ],
  ])("%s", async (_name, args, exit, code, message) => {
    const w = sandboxWorld();
    const before = picture(w.root);
    const r = await spawn(w, ["--json", ...args, "--", "true"]);
    const e = errorOf(r.stderr);
    expect([r.code, e.code, String(e.message).includes(message)]).toEqual([exit, code, true]);
    expect(picture(w.root)).toEqual(before);
  });

  it.each([
    ["home itself", (w: SandboxWorld) => w.home, 77, "it holds the home directory"],
    [
      "a repository's git dir",
      (w: SandboxWorld) => join(w.api, ".git/hooks"),
      77,
      "which the sandbox protects",
    ],
    ["the workspace root", (w: SandboxWorld) => w.root, 77, "it holds the workspace root"],
    [
      "a path that does not exist",
      (w: SandboxWorld) => join(w.home, "nope"),
      66,
      "no such file or directory",
    ],
  ])("--sandbox-write %s", async (_name, path, exit, why) => {
    const w = sandboxWorld();
    const r = await spawn(w, [
      "--json",
      "--sandbox",
      "--sandbox-write",
      path(w),
      "--source",
      "api",
      "--",
      "true",
    ]);
    const e = errorOf(r.stderr);
    expect([r.code, String(e.message).includes(why)]).toEqual([exit, true]);
  });

  it('config "sandbox": every run sandboxed, --no-sandbox opts one out; a k8s run needs --no-sandbox', async () => {
    const w = sandboxWorld();
    writeFile(join(w.root, "ariel.config.json"), '{"sandbox": true}\n');
    const probe = ["--source", "api", "--", "sh", "-c", "echo sandbox=$" + "{ARIEL_SANDBOX:-no}"];
    expect((await spawn(w, probe)).stdout).toBe("sandbox=1\n");
    expect((await spawn(w, ["--no-sandbox", ...probe])).stdout).toBe("sandbox=no\n");
    const k8s = await spawn(w, ["--json", "-d", "--backend", "k8s", "--source", "api", "--", "true"]);
    expect([k8s.code, errorOf(k8s.stderr).message]).toEqual([
      64,
      'config "sandbox" is on, and a k8s run cannot be sandboxed',
    ]);
  });

  it("--sandbox-net none: the host's network is out of reach; on (the default): it is not", async () => {
    const w = sandboxWorld();
    const server = createServer((s) => s.end("hi"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      const js = script(
        w,
        "reach.js",
        `require("net").connect(${port}, "127.0.0.1").on("data", () => { console.log("reach rc=0"); process.exit(0); }).on("error", () => { console.log("reach rc=1"); process.exit(0); });`,
      );
      const on = await spawn(w, ["--sandbox", "--source", "api", "--", process.execPath, js]);
      const none = await spawn(w, [
        "--sandbox",
        "--sandbox-net",
        "none",
        "--source",
        "api",
        "--",
        process.execPath,
        js,
      ]);
      expect([statuses(on.stdout).reach, statuses(none.stdout).reach]).toEqual([0, 1]);
    } finally {
      server.close();
    }
  });
});

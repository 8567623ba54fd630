import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { initRepo, tempDir } from "../../../core/src/host/_fixture.ts";
import { records, runInProcess } from "../../../core/src/host/cli/_fixture.ts";
import type { Terminal } from "../../../core/src/host/cli/terminal.ts";
import { command } from "../command.ts";

// `ariel-worktree ports` in this process: the machine's port leases (docs/lifecycle.md, "Ports"),
// read from the registry in the user state dir. Each test has a state dir of its own, so the
// machine here is the test's: what other tests lease is not seen.

/** stdout a terminal: the table with its header, the "no ports" note. */
const TTY: Terminal = { stdout: true, stderr: false, columns: 120, color: false };

/** The ports every task of a workspace leases (below the kernel's ephemeral ports). */
const RANGE = [27311, 27319] as const;

/**
 * A user state dir and a way to make workspaces that lease from it: each a repository, api,
 * with a workspace config naming ports web and api; `w` runs a command in it.
 */
function machine() {
  const home = tempDir("ariel-wt-ports-home-");
  const workspace = () => {
    const ws = tempDir("ariel-wt-ports-");
    initRepo(join(ws, "api"));
    writeFileSync(join(ws, "ariel.config.json"), JSON.stringify({ ports: ["web", "api"], portRange: RANGE }));
    const w = async (term: Terminal | undefined, ...argv: string[]) => {
      const env = { ARIEL_STATE_HOME: home };
      const r = await runInProcess(command, ["-C", ws, ...argv], { cwd: ws, env, ...(term ? { term } : {}) });
      return { ...r, stdout: r.stdout.replaceAll(ws, "<ws>") };
    };
    return { ws, w };
  };
  return { home, workspace };
}

describe("ports", () => {
  it("no lease: a note on a terminal only; --json prints nothing", async () => {
    const { w } = machine().workspace();
    expect(await w(TTY, "ports")).toEqual({
      code: 0,
      stdout: "",
      stderr: "ariel-worktree: no ports are leased on this machine\n",
    });
    expect(await w(TTY, "ports", "--json")).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await w(undefined, "ports")).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("add leases one port per configured name, lowest first; ports lists them by port (pipe and terminal)", async () => {
    const { w } = machine().workspace();
    await w(undefined, "add", "--task", "t1", "--source", "api");
    await w(undefined, "add", "--task", "t2", "--source", "api");
    expect(await w(undefined, "ports")).toEqual({
      code: 0,
      stdout: "27311\tweb\tt1\t<ws>\n27312\tapi\tt1\t<ws>\n27313\tweb\tt2\t<ws>\n27314\tapi\tt2\t<ws>\n",
      stderr: "",
    });
    expect(await w(TTY, "ports")).toEqual({
      code: 0,
      stdout: [
        " PORT  NAME  TASK  WORKSPACE",
        "27311  web   t1    <ws>",
        "27312  api   t1    <ws>",
        "27313  web   t2    <ws>",
        "27314  api   t2    <ws>",
        "",
      ].join("\n"),
      stderr: "",
    });
    // Removing its last leg closes the task: its ports go back.
    expect((await w(undefined, "remove", "--task", "t1")).code).toBe(0);
    expect((await w(undefined, "ports")).stdout).toBe("27313\tweb\tt2\t<ws>\n27314\tapi\tt2\t<ws>\n");
  });

  it("--json: one port record per lease, as the registry holds it", async () => {
    const { home, workspace } = machine();
    const { ws, w } = workspace();
    await w(undefined, "add", "--task", "t1", "--source", "api");
    const { workspace: owner } = JSON.parse(readFileSync(join(ws, ".ariel/tasks/t1.json"), "utf8"));
    const r = await w(undefined, "ports", "--json");
    const leasedAt = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const got = records(r.stdout);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(got).toEqual([
      {
        v: 1,
        type: "port",
        port: 27311,
        name: "web",
        workspace: { ...owner, root: "<ws>" },
        task: "t1",
        leasedAt,
      },
      {
        v: 1,
        type: "port",
        port: 27312,
        name: "api",
        workspace: { ...owner, root: "<ws>" },
        task: "t1",
        leasedAt,
      },
    ]);
    expect(Object.keys(got[0] ?? {})).toEqual(["v", "type", "port", "name", "workspace", "task", "leasedAt"]);
    const stored = JSON.parse(readFileSync(join(home, "ports.json"), "utf8")).leases;
    expect(got.map((g) => g.leasedAt)).toEqual(stored.map((l: { leasedAt: string }) => l.leasedAt));
  });

  it("every workspace's leases, from any of them; a port is never leased twice on the machine", async () => {
    const { workspace } = machine();
    const one = workspace();
    const two = workspace();
    await one.w(undefined, "add", "--task", "t1", "--source", "api");
    await two.w(undefined, "add", "--task", "t1", "--source", "api");
    const seen = (await two.w(undefined, "ports")).stdout.replaceAll(one.ws, "<one>");
    expect(seen).toBe(
      "27311\tweb\tt1\t<one>\n27312\tapi\tt1\t<one>\n27313\tweb\tt1\t<ws>\n27314\tapi\tt1\t<ws>\n",
    );
    expect((await one.w(undefined, "ports")).stdout.replaceAll(two.ws, "<two>")).toBe(
      "27311\tweb\tt1\t<ws>\n27312\tapi\tt1\t<ws>\n27313\tweb\tt1\t<two>\n27314\tapi\tt1\t<two>\n",
    );
  });

  it("a registry that is not valid: ERR_RECORD_CORRUPT (65), the file named", async () => {
    const { home, workspace } = machine();
    const { w } = workspace();
    writeFileSync(join(home, "ports.json"), "{");
    expect(await w(undefined, "ports")).toEqual({
      code: 65,
      stdout: "",
      stderr:
        `ariel-worktree: error: the port registry ${home}/ports.json is not valid [ERR_RECORD_CORRUPT]\n` +
        "ariel-worktree: hint: repair or delete it (running tasks keep their ports; new ones may then collide)\n",
    });
  });
});

// What a run's process holds (docs/runs.md "What a run's process holds"; decision 0100): only its
// own stdio — never another run's terminal, the monitor's sockets or files, or what the CLI that
// started the monitor inherited — so a monitor killed -9 hangs up every tty run, and no run can
// read or type into another's terminal.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliCommand, cliEnv, records } from "./helpers/cli.ts";
import {
  alive,
  cleanUp,
  runs,
  runsWorkspace,
  spawnD,
  startRun,
  TEST_ENV,
  track,
  until,
} from "./runs_helpers.ts";

afterEach(cleanUp);

/** fd number → what it points at, for a live process. */
function fds(pid: number): Record<string, string> {
  const dir = `/proc/${pid}/fd`;
  return Object.fromEntries(readdirSync(dir).map((n) => [n, readlinkSync(join(dir, n))]));
}

const childPid = (rec: Record<string, unknown>) => (rec.child as { pid: number }).pid;
const monitorPid = (rec: Record<string, unknown>) => (rec.monitor as { pid: number }).pid;

/** A tty run that writes `ready` and, on SIGHUP, `<name>: hup` into `mark`. */
const hupTrap = (mark: string, name: string) => [
  "--tty",
  "--name",
  name,
  "--",
  "bash",
  "-c",
  `trap 'echo ${name}: hup >> ${mark}; exit 1' HUP; echo ready; while :; do sleep 0.1; done`,
];

async function screenHas(root: string, run: string, text: string): Promise<void> {
  const end = Date.now() + 10_000;
  for (;;) {
    const r = await runs(root, ["screen", run]);
    if (r.stdout.includes(text)) return;
    if (Date.now() > end) throw new Error(`screen of ${run} never showed ${text}: ${r.stdout}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("a run's process holds only its own stdio", () => {
  it("three tty runs, then a piped and an --interactive run: none holds another's terminal or the monitor's files", async () => {
    const root = runsWorkspace();
    const tty: Record<string, unknown>[] = [];
    for (const n of ["t1", "t2", "t3"])
      tty.push(await startRun(root, ["--tty", "--name", n, "--", "sleep", "60"]));
    const piped = await startRun(root, ["--name", "p", "--", "sleep", "60"]);
    const inter = await startRun(root, ["--interactive", "--name", "i", "--", "sleep", "60"]);
    for (const rec of tty) {
      const f = fds(childPid(rec));
      expect(Object.keys(f).sort()).toEqual(["0", "1", "2"]);
      expect(f["0"]).toMatch(/^\/dev\/pts\/\d+$/);
      expect([f["1"], f["2"]]).toEqual([f["0"], f["0"]]);
    }
    // Three runs, three different terminals.
    expect(new Set(tty.map((rec) => fds(childPid(rec))["0"])).size).toBe(3);
    const out = join(root, ".ariel/runs", piped.runId as string);
    expect(fds(childPid(piped))).toEqual({
      "0": "/dev/null",
      "1": join(out, "stdout"),
      "2": join(out, "stderr"),
    });
    const i = fds(childPid(inter));
    expect(Object.keys(i).sort()).toEqual(["0", "1", "2"]);
    expect(i["0"]).toMatch(/^socket:\[\d+\]$/); // node gives a child a socket pair for "pipe"
    // The monitor itself does hold the masters: that is what the children must not inherit.
    expect(Object.values(fds(monitorPid(piped))).filter((t) => t === "/dev/ptmx")).toHaveLength(3);
  });

  it("a descriptor the starting CLI inherited reaches neither the run nor (through it) the next run", async () => {
    const root = runsWorkspace();
    const [exe, ...pre] = cliCommand("spawn");
    const cli = spawn(exe!, [...pre, "-C", root, "--detach", "--json", "--name", "x", "--", "sleep", "60"], {
      env: cliEnv(TEST_ENV),
      stdio: ["ignore", "pipe", "pipe", "pipe"], // fd 3: a pipe the CLI does not know about
    });
    track(cli.pid!);
    let stdout = "";
    cli.stdout!.on("data", (d) => {
      stdout += d;
    });
    const code = await new Promise((r) => cli.on("close", r));
    expect(code).toBe(0);
    const [rec] = records(stdout);
    expect(Object.keys(fds(childPid(rec!))).sort()).toEqual(["0", "1", "2"]);
  });

  it("the monitor killed -9 with tty and piped runs mixed: every tty run gets SIGHUP, the piped run goes on (lost)", async () => {
    const root = runsWorkspace();
    const mark = join(root, "hups");
    const tty: Record<string, unknown>[] = [];
    for (const n of ["h1", "h2", "h3"]) tty.push(await startRun(root, hupTrap(mark, n)));
    const piped = await startRun(root, ["--name", "p", "--", "sleep", "60"]);
    for (const n of ["h1", "h2", "h3"]) await screenHas(root, n, "ready");
    const monitor = monitorPid(piped);
    process.kill(monitor, "SIGKILL");
    await until(() => !alive(monitor));
    await until(() => tty.every((rec) => !alive(childPid(rec))));
    expect(readFileSync(mark, "utf8").trim().split("\n").sort()).toEqual(["h1: hup", "h2: hup", "h3: hup"]);
    expect(alive(childPid(piped))).toBe(true);
    const l = records((await runs(root, ["list", "--json"])).stdout);
    expect(l.map((x) => [x.name, x.state])).toEqual([
      ["p", "lost"],
      ["h3", "lost"],
      ["h2", "lost"],
      ["h1", "lost"],
    ]);
  });

  it("with no perl to run the shim, runs still start directly, and a missing command still ends 127", async () => {
    const root = runsWorkspace();
    const env = { ...TEST_ENV, ARIEL_TEST_NO_PERL: "1" };
    const r = await detached(root, ["--name", "np", "--", "sh", "-c", "echo direct"], env);
    expect(r.code).toBe(0);
    const w = await runs(root, ["wait", "np"], { env });
    expect(w.code).toBe(0);
    expect((await runs(root, ["logs", "np"])).stdout).toBe("direct\n");
    const miss = await detached(root, ["--name", "m", "--", "no-such-command-here"], env);
    expect(miss.code).toBe(127);
  });
});

function detached(root: string, args: string[], env: Record<string, string>) {
  return spawnD(root, ["--shared", ...args], { env });
}

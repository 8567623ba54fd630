import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, initRepo, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

// ariel-spawn's command in this process: every flag that needs another (--isolate, --detach,
// --backend k8s) refused alone with 64 and nothing run; what a k8s run cannot do; the plans of
// a detached and of a k8s run (-n), which need no monitor and no cluster.
let ws: string;
let head: string;

beforeAll(() => {
  ws = tempDir("ariel-spawn-usage-");
  head = initRepo(join(ws, "alpha"));
  git(join(ws, "alpha"), "remote", "add", "origin", "https://user:s3cret@example.com/alpha.git");
});
afterAll(() => removeDir(ws));

const spawn = (argv: string[]) => runInProcess(command, ["-C", ws, ...argv], { cwd: ws });
const onTerminal = (argv: string[]) =>
  runInProcess(command, ["-C", ws, ...argv], {
    cwd: ws,
    term: { stdout: true, stderr: true, columns: 200, color: false },
  });
const lines = (text: string) => text.split("\n").filter(Boolean);
const records = (text: string): Record<string, unknown>[] =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));

/** The usage error a run refuses with: its first line, exit 64, nothing on stdout, nothing recorded. */
async function refused(argv: string[]): Promise<string> {
  const r = await spawn(argv);
  expect([r.code, r.stdout]).toEqual([64, ""]);
  expect(existsSync(join(ws, ".ariel/runs"))).toBe(false);
  return r.stderr.split("\n")[0] as string;
}

const ISOLATE_ONLY: [string, string[]][] = [
  ["task", ["--task", "t"]],
  ["base", ["--base", "main"]],
  ["branch", ["--branch", "b"]],
  ["span", ["--span"]],
  ["keep", ["--keep"]],
  ["snapshot", ["--snapshot"]],
  ["with-changes", ["--with-changes"]],
  ["join", ["--join"]],
  ["no-hooks", ["--no-hooks"]],
  ["sparse", ["--sparse", "docs"]],
  ["share", ["--share", "node_modules"]],
];
const DETACH_ONLY: [string, string[]][] = [
  ["name", ["--name", "n"]],
  ["restart", ["--restart", "on-failure"]],
  ["timeout", ["--timeout", "1s"]],
  ["on-exit", ["--on-exit", "true"]],
  ["on-exit-timeout", ["--on-exit-timeout", "1s"]],
  ["interactive", ["--interactive"]],
  ["backend", ["--backend", "local"]],
  ["shared", ["--shared"]],
  ["tty", ["--tty"]],
  ["notify", ["--notify", "true"]],
  ["no-agent-reports", ["--no-agent-reports"]],
];
const K8S_ONLY: [string, string[]][] = [
  ["namespace", ["--namespace", "x"]],
  ["image", ["--image", "i"]],
  ["kubeconfig", ["--kubeconfig", "k"]],
  ["service-account", ["--service-account", "s"]],
  ["git-secret", ["--git-secret", "g"]],
  ["overlay-from", ["--overlay-from", "secret/x"]],
  ["bundle-claim", ["--bundle-claim", "c"]],
  ["ttl", ["--ttl", "1d"]],
  ["requests", ["--requests", "cpu=1"]],
  ["limits", ["--limits", "cpu=1"]],
  ["output", ["-o", "yaml"]],
];
const NOT_WITH_K8S: [string, string[]][] = [
  ["keep", ["--keep"]],
  ["snapshot", ["--snapshot"]],
  ["span", ["--span"]],
  ["on-exit", ["--on-exit", "true"]],
  ["on-exit-timeout", ["--on-exit-timeout", "1s"]],
  ["interactive", ["--interactive"]],
  ["fail-fast", ["--fail-fast"]],
  ["join", ["--join", "--task", "t"]],
  ["shared", ["--shared"]],
  ["tty", ["--tty"]],
  ["notify", ["--notify", "true"]],
  ["no-agent-reports", ["--no-agent-reports"]],
];

describe("ariel-spawn (in-process): flags that need another", () => {
  it.each(ISOLATE_ONLY)("--%s without --isolate: 64", async (name, flag) => {
    expect(await refused(["--source", "alpha", ...flag, "--", "true"])).toBe(
      `ariel-spawn: error: --${name} needs --isolate [ERR_USAGE]`,
    );
  });

  it.each(DETACH_ONLY)("--%s without --detach: 64", async (name, flag) => {
    expect(await refused(["--source", "alpha", ...flag, "--", "true"])).toBe(
      `ariel-spawn: error: --${name} needs --detach [ERR_USAGE]`,
    );
  });

  it.each(K8S_ONLY)("--%s without --backend k8s: 64", async (name, flag) => {
    expect(await refused(["--source", "alpha", ...flag, "--", "true"])).toBe(
      `ariel-spawn: error: --${name} needs --backend k8s [ERR_USAGE]`,
    );
  });

  it.each(NOT_WITH_K8S)("--%s with --backend k8s: 64", async (name, flag) => {
    expect(
      await refused(["--source", "alpha", "-d", "--backend", "k8s", "--image", "img", ...flag, "--", "true"]),
    ).toBe(`ariel-spawn: error: --${name} is not available with --backend k8s [ERR_USAGE]`);
  });

  it.each<[string, string[], string]>([
    [
      "no command",
      [],
      "ariel-spawn: error: missing command: ariel-spawn [OPTIONS] -- CMD [ARGS...] [ERR_USAGE]",
    ],
    [
      "-j 0",
      ["-j", "0", "--", "true"],
      'ariel-spawn: error: --jobs needs an integer >= 1, got "0" [ERR_USAGE]',
    ],
    [
      "--grace=-1",
      ["--grace=-1", "--", "true"],
      'ariel-spawn: error: --grace needs an integer >= 0, got "-1" [ERR_USAGE]',
    ],
    [
      "--join without --task",
      ["--isolate", "--join", "--", "true"],
      "ariel-spawn: error: --join needs --task: a generated task is new, nobody works in it [ERR_USAGE]",
    ],
    [
      "--keep with --snapshot",
      ["--isolate", "--keep", "--snapshot", "--", "true"],
      "ariel-spawn: error: --keep and --snapshot exclude each other [ERR_USAGE]",
    ],
    [
      "--source - twice",
      ["--source", "-", "--source", "-", "--", "true"],
      "ariel-spawn: error: --source - given twice [ERR_USAGE]",
    ],
    [
      "--share out of the checkout",
      ["--isolate", "--share", "../x", "--", "true"],
      'ariel-spawn: error: --share: not a directory name: "../x" [ERR_USAGE]',
    ],
    [
      "--restart of no known policy",
      ["-d", "--restart", "bogus", "--source", "alpha", "--", "true"],
      'ariel-spawn: error: --restart needs no, on-failure or on-failure:N (1-100), got "bogus" [ERR_USAGE]',
    ],
    [
      "--timeout that is no duration",
      ["-d", "--timeout", "xx", "--source", "alpha", "--", "true"],
      'ariel-spawn: error: --timeout needs a duration such as 10s, 5m, 2h or 7d, got "xx" [ERR_USAGE]',
    ],
    [
      "--tty with --interactive",
      ["-d", "--tty", "--interactive", "--source", "alpha", "--", "true"],
      "ariel-spawn: error: --tty and --interactive are two kinds of input; choose one [ERR_USAGE]",
    ],
    [
      "--size without --tty",
      ["-d", "--size", "10x10", "--source", "alpha", "--", "true"],
      "ariel-spawn: error: --size needs --tty [ERR_USAGE]",
    ],
    [
      "--size out of range",
      ["-d", "--tty", "--size", "0x0", "--source", "alpha", "--", "true"],
      'ariel-spawn: error: --size: expected COLSxROWS such as 120x40, got "0x0" [ERR_USAGE]',
    ],
    [
      "--sandbox on k8s",
      ["-d", "--backend", "k8s", "--image", "img", "--sandbox", "--source", "alpha", "--", "true"],
      "ariel-spawn: error: --sandbox is not available with --backend k8s [ERR_USAGE]",
    ],
    [
      "--fail-fast with --detach",
      ["-d", "--fail-fast", "--source", "alpha", "--", "true"],
      "ariel-spawn: error: --fail-fast has no meaning with --detach [ERR_USAGE]",
    ],
    [
      "--on-exit of blanks",
      ["-d", "--on-exit", "  ", "--source", "alpha", "--", "true"],
      "ariel-spawn: error: --on-exit needs a command [ERR_USAGE]",
    ],
    [
      "--on-exit-timeout without --on-exit",
      ["-d", "--on-exit-timeout", "5s", "--source", "alpha", "--", "true"],
      "ariel-spawn: error: --on-exit-timeout needs --on-exit [ERR_USAGE]",
    ],
    [
      "--notify of blanks",
      ["-d", "--notify", " ", "--source", "alpha", "--", "true"],
      "ariel-spawn: error: --notify needs a command [ERR_USAGE]",
    ],
    [
      "--shared with --isolate",
      ["-d", "--shared", "--isolate", "--source", "alpha", "--", "true"],
      "ariel-spawn: error: --shared is for runs without --isolate [ERR_USAGE]",
    ],
    [
      "--backend of no known kind",
      ["-d", "--backend", "nomad", "--source", "alpha", "--", "true"],
      'ariel-spawn: error: --backend must be local or k8s, got "nomad" [ERR_USAGE]',
    ],
    [
      "--sparse on k8s",
      [
        "-d",
        "--backend",
        "k8s",
        "--image",
        "img",
        "--isolate",
        "--sparse",
        "docs",
        "--source",
        "alpha",
        "--",
        "true",
      ],
      "ariel-spawn: error: --sparse is not available with --backend k8s [ERR_USAGE]",
    ],
    [
      "-o of another format",
      ["-n", "-d", "--backend", "k8s", "--image", "img", "-o", "json", "--source", "alpha", "--", "true"],
      'ariel-spawn: error: -o must be yaml, got "json" [ERR_USAGE]',
    ],
    [
      "-o yaml without -n",
      ["-d", "--backend", "k8s", "--image", "img", "-o", "yaml", "--source", "alpha", "--", "true"],
      "ariel-spawn: error: -o yaml needs --dry-run [ERR_USAGE]",
    ],
  ])("%s: 64", async (_name, argv, line) => {
    expect(await refused(argv)).toBe(line);
  });

  it("the hint of a missing command shows where it goes", async () => {
    const r = await spawn([]);
    expect(r.stderr.split("\n")[1]).toBe(
      "ariel-spawn: hint: put the command after --, e.g. ariel-spawn -- git status",
    );
  });
});

describe("ariel-spawn (in-process): plans of runs it does not start here", () => {
  it("-n --detach: a line per run (id, name, source, cwd, command), or a run.start record; nothing started", async () => {
    const text = await spawn(["-n", "-d", "--name", "fix", "--source", "alpha", "--", "make", "test"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`^\\d{8}T\\d{6}Z-[a-z0-9]+\\tfix\\talpha\\t${ws}/alpha\\tmake test\\n$`),
    );
    const json = await spawn(["-n", "--json", "-d", "--name", "fix", "--source", "alpha", "--", "make"]);
    expect(records(json.stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "run.start",
        source: "alpha",
        cwd: `${ws}/alpha`,
        worktree: null,
        branch: null,
        overlay: [],
        argv: ["make"],
        env: ["ARIEL_WORKSPACE_ROOT", "ARIEL_WORKSPACE_HASH", "ARIEL_SOURCE", "ARIEL_RUN_ID"],
        runId: expect.stringMatching(/^\d{8}T\d{6}Z-[a-z0-9]+$/),
        name: "fix",
      },
    ]);
    expect(existsSync(join(ws, ".ariel/runs"))).toBe(false);
  });

  it("-n --backend k8s: the Job of each source, as a line, a record or YAML; the remote's credentials never in it", async () => {
    const k8s = ["-n", "-d", "--backend", "k8s", "--image", "img:1", "--source", "alpha"];
    const text = await spawn([...k8s, "--", "make", "test"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(
        `^\\d{8}T\\d{6}Z-[a-z0-9]+\\t-\\talpha\\tdefault\\tariel-\\d{8}t\\d{6}z-[a-z0-9]+\\t${head.slice(0, 12)}\\n$`,
      ),
    );
    expect(text.stderr).toBe(
      `ariel-spawn: warning: base ${head.slice(0, 12)} of "alpha" is on no branch of origin that this checkout knows: the pod may not find it\n`,
    );
    const json = await spawn(["--json", ...k8s, "--namespace", "ci", "--", "make"]);
    const [plan] = records(json.stdout);
    expect(plan).toMatchObject({ type: "plan", action: "k8s.job.create", source: "alpha", namespace: "ci" });
    const job = plan?.job as { metadata: { namespace: string; annotations: Record<string, string> } };
    expect(job.metadata.namespace).toBe("ci");
    expect(job.metadata.annotations).toMatchObject({
      "ariel.dev/source": "alpha",
      "ariel.dev/remote": "https://example.com/alpha.git",
      "ariel.dev/base": head,
    });
    expect(records(json.stderr)).toEqual([
      expect.objectContaining({ type: "warning", code: "WARN_BASE_NOT_PUSHED", source: "alpha", base: head }),
    ]);
    const yaml = await spawn([...k8s, "-o", "yaml", "--", "make"]);
    expect(yaml.stdout.split("\n").slice(0, 3)).toEqual(["---", "apiVersion: batch/v1", "kind: Job"]);
    expect(yaml.stdout).toContain('image: "img:1"');
    for (const out of [text.stdout, json.stdout, yaml.stdout, text.stderr, json.stderr]) {
      expect(out).not.toContain("s3cret");
    }
    expect(existsSync(join(ws, ".ariel/runs"))).toBe(false);
  });

  it("-n --backend k8s in a workspace whose config sandboxes every run: 64 unless --no-sandbox", async () => {
    writeFileSync(join(ws, "ariel.config.json"), '{ "sandbox": true }');
    try {
      const k8s = ["-n", "-d", "--backend", "k8s", "--image", "img", "--source", "alpha"];
      const r = await spawn([...k8s, "--", "true"]);
      expect(r).toEqual({
        code: 64,
        stdout: "",
        stderr:
          'ariel-spawn: error: config "sandbox" is on, and a k8s run cannot be sandboxed [ERR_USAGE]\n' +
          "ariel-spawn: hint: pass --no-sandbox to run it in its pod only, or drop --backend k8s (docs/kubernetes.md, Flags and config)\n",
      });
      expect((await spawn([...k8s, "--no-sandbox", "--", "true"])).code).toBe(0);
    } finally {
      rmSync(join(ws, "ariel.config.json"));
    }
  });

  it("-n --isolate without --task: the generated task ids, and how to pin them", async () => {
    const one = await spawn(["-n", "--isolate", "--source", "alpha", "--", "true"]);
    const id =
      /^alpha\t\S+\/\.ariel\/worktrees\/(alpha-[a-z0-9]+)\/alpha\tariel\/alpha-[a-z0-9]+\ttrue\n$/.exec(
        one.stdout,
      )?.[1];
    expect(id).toBeDefined();
    expect(one.stderr).toBe(
      `ariel-spawn: task id ${id} was generated for this plan; add --task ${id} to run (or plan) exactly this\n`,
    );
    initRepo(join(ws, "beta"));
    const two = await spawn(["-n", "--isolate", "--source", "alpha", "--source", "beta", "--", "true"]);
    const ids = lines(two.stdout).map((l) => /worktrees\/([^/]+)\//.exec(l)?.[1]);
    expect(ids).toEqual([expect.stringMatching(/^alpha-/), expect.stringMatching(/^beta-/)]);
    expect(two.stderr).toBe(
      `ariel-spawn: task ids ${ids.join(", ")} were generated for this plan; add --task NAME to pin them (NAME-<source> each)\n`,
    );
    removeDir(join(ws, "beta"));
  });

  it("-n --sandbox: each run's sandbox under its plan line, what it may write first", async () => {
    const r = await spawn(["-n", "--sandbox", "--source", "alpha", "--", "true"]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).slice(0, 3)).toEqual([
      `alpha\t${ws}/alpha\t-\ttrue`,
      "sandbox of alpha: network on",
      `  write ${ws}/alpha`,
    ]);
    expect(lines(r.stdout).filter((l) => l.startsWith("  hide  ")).length).toBeGreaterThan(0);
  });

  it("on a terminal, each plan is a table under its headings", async () => {
    const plain = await onTerminal(["-n", "--source", "alpha", "--", "make", "test"]);
    expect(lines(plain.stdout).map((l) => l.split(/\s{2,}/))).toEqual([
      ["SOURCE", "CWD", "BRANCH", "COMMAND"],
      ["alpha", `${ws}/alpha`, "-", "make test"],
    ]);
    const detached = await onTerminal(["-n", "-d", "--name", "fix", "--source", "alpha", "--", "make"]);
    expect(lines(detached.stdout).map((l) => l.split(/\s{2,}/))).toEqual([
      ["RUN", "NAME", "SOURCE", "CWD", "COMMAND"],
      [expect.stringMatching(/^\d{8}T\d{6}Z-/), "fix", "alpha", `${ws}/alpha`, "make"],
    ]);
    const k8s = await onTerminal([
      "-n",
      "-d",
      "--backend",
      "k8s",
      "--image",
      "img",
      "--source",
      "alpha",
      "--",
      "make",
    ]);
    expect(lines(k8s.stdout).map((l) => l.split(/\s{2,}/))).toEqual([
      ["RUN", "NAME", "SOURCE", "NAMESPACE", "JOB", "BASE"],
      [
        expect.stringMatching(/^\d{8}T\d{6}Z-/),
        "-",
        "alpha",
        "default",
        expect.stringMatching(/^ariel-/),
        head.slice(0, 12),
      ],
    ]);
  });
});

describe("ariel-spawn (in-process): --detach", () => {
  it("starts each run under the workspace's monitor: one line per run, and a note that it works in the checkout itself", async () => {
    // A monitor is this CLI's bin run again (`node <argv[1]> --ariel-run-monitor`): the bundle's.
    const argv1 = process.argv[1];
    process.argv[1] = fileURLToPath(new URL("../dist/ariel-spawn.cjs", import.meta.url));
    // (a monitor with nothing to watch ends after 1.5 s, not after the default idle time)
    const r = await runInProcess(
      command,
      ["-C", ws, "-d", "--name", "bg", "--source", "alpha", "--", "true"],
      {
        cwd: ws,
        env: { ARIEL_MONITOR_IDLE_MS: "1500" },
      },
    ).finally(() => {
      process.argv[1] = argv1 as string;
    });
    expect(r.code).toBe(0);
    const [row] = lines(r.stdout).map((l) => l.split("\t"));
    expect(row?.slice(0, 2)).toEqual([expect.stringMatching(/^\d{8}T\d{6}Z-[a-z0-9]+$/), "bg"]);
    expect(row?.slice(5)).toEqual([
      "alpha",
      expect.stringMatching(/^\d+$/),
      expect.any(String),
      "-",
      "true",
      "alpha",
      "-",
    ]);
    expect(r.stderr).toBe(
      `ariel-spawn: the run works in the checkout ${ws}/alpha itself, not in a worktree of its own (--isolate gives it one)\n`,
    );
    expect(existsSync(join(ws, ".ariel/runs", row?.[0] as string, "run.json"))).toBe(true);
  });

  /** ariel-spawn -d in this process, its monitor the bundle (see above). */
  async function detached(argv: string[]) {
    const argv1 = process.argv[1];
    process.argv[1] = fileURLToPath(new URL("../dist/ariel-spawn.cjs", import.meta.url));
    return runInProcess(command, ["-C", ws, "-d", "--shared", "--source", "alpha", ...argv], {
      cwd: ws,
      env: { ARIEL_MONITOR_IDLE_MS: "1500" },
    }).finally(() => {
      process.argv[1] = argv1 as string;
    });
  }

  it("the options of a run are in its record: timeout, the hook at its end and its timeout, notify, the grace", async () => {
    const r = await detached([
      "--timeout",
      "30s",
      "--on-exit",
      "echo  done",
      "--on-exit-timeout",
      "5s",
      "--notify",
      "echo hi",
      "--grace",
      "3",
      "--",
      "true",
    ]);
    expect(r.code).toBe(0);
    const id = r.stdout.split("\t")[0] as string;
    const rec = JSON.parse(readFileSync(join(ws, ".ariel/runs", id, "run.json"), "utf8"));
    expect(rec).toMatchObject({
      timeoutMs: 30_000,
      onExit: ["echo", "done"],
      onExitTimeoutMs: 5000,
      notify: ["echo", "hi"],
      graceMs: 3000,
      interactive: false,
      restart: { policy: "no", max: 0, count: 0 },
    });
    // and without those flags: no timeout, no hook, the detached grace (10 s); --interactive kept
    const plain = await detached(["--interactive", "--", "true"]);
    expect(plain.code).toBe(0);
    const id2 = plain.stdout.split("\t")[0] as string;
    const rec2 = JSON.parse(readFileSync(join(ws, ".ariel/runs", id2, "run.json"), "utf8"));
    expect(rec2).toMatchObject({
      timeoutMs: null,
      onExit: null,
      graceMs: 10_000,
      interactive: true,
    });
    for (const key of ["notify", "onExitTimeoutMs"]) expect(rec2).not.toHaveProperty(key);
  });

  it("a command that cannot start: its row (failed, 127), a warning naming why, a summary with where to read more; 127", async () => {
    const r = await detached(["--name", "nf", "--", "no-such-cmd-xyz"]);
    expect(r.code).toBe(127);
    const [row] = lines(r.stdout).map((l) => l.split("\t"));
    expect([row?.[1], row?.[3], row?.[7]]).toEqual(["nf", "failed", "127"]);
    expect(lines(r.stderr).slice(1)).toEqual([
      `ariel-spawn: warning: run ${row?.[0]} did not start: command not found: no-such-cmd-xyz`,
      "ariel-spawn: 1 of 1 did not start: alpha (exit 127); why: ariel-runs logs nf --stream stderr",
    ]);
  });
});

import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitAll, git, initRepo, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

// ariel-spawn's options reach what they name, in this process on a real repository: an isolated
// run's base, branch, sparse checkout, uncommitted changes and joined task; a sandbox's writable
// paths and network, and --no-sandbox under a config that sandboxes every run.
let ws: string;
let first: string;
const repo = () => join(ws, "gamma");

beforeAll(() => {
  ws = tempDir("ariel-spawn-options-");
  first = initRepo(repo(), { "docs/a.md": "a\n", "src/b.ts": "b\n", "top.txt": "top\n" });
  writeFileSync(join(repo(), "src/b.ts"), "b2\n");
  commitAll(repo(), "second");
  git(repo(), "remote", "add", "origin", "https://example.com/gamma.git");
});
afterAll(() => removeDir(ws));

const spawn = (argv: string[]) =>
  runInProcess(command, ["-C", ws, "--source", "gamma", ...argv], { cwd: ws });

describe("ariel-spawn (in-process): an isolated run's options", () => {
  it("--base and --branch: the worktree starts at that commit, on that branch", async () => {
    const r = await spawn([
      "--isolate",
      "--keep",
      "--task",
      "o1",
      "--base",
      first,
      "--branch",
      "feat/o1",
      "--",
      "git",
      "log",
      "--format=%s",
    ]);
    expect(r).toMatchObject({ code: 0, stdout: "initial\n" });
    expect(git(repo(), "rev-parse", "feat/o1").trim()).toBe(first.trim());
  });

  it("--join (with the task's branch): a second command in the task's worktree, on its branch", async () => {
    const r = await spawn([
      "--isolate",
      "--task",
      "o1",
      "--branch",
      "feat/o1",
      "--join",
      "--",
      "git",
      "branch",
      "--show-current",
    ]);
    expect(r).toMatchObject({ code: 0, stdout: "feat/o1\n" });
  });

  it("--join: into a task a detached run works in (without it: 75, ERR_TASK_IN_USE)", async () => {
    // A monitor is this CLI's bin run again (`node <argv[1]> --ariel-run-monitor`): the bundle's.
    const argv1 = process.argv[1];
    process.argv[1] = fileURLToPath(new URL("../dist/ariel-spawn.cjs", import.meta.url));
    const bg = await runInProcess(
      command,
      [
        "-C",
        ws,
        "--source",
        "gamma",
        "-d",
        "--isolate",
        "--keep",
        "--task",
        "o5",
        "--timeout",
        "60s",
        "--",
        "sleep",
        "30",
      ],
      { cwd: ws, env: { ARIEL_MONITOR_IDLE_MS: "1500" } },
    ).finally(() => {
      process.argv[1] = argv1 as string;
    });
    expect(bg.code).toBe(0);
    const pid = Number(bg.stdout.split("\t")[6]);
    try {
      const refused = await spawn(["--isolate", "--task", "o5", "--", "true"]);
      expect(refused.code).toBe(75);
      expect(refused.stderr.split("\n")[0]).toMatch(/\[ERR_TASK_IN_USE\]$/);
      const joined = await spawn([
        "--isolate",
        "--task",
        "o5",
        "--join",
        "--",
        "git",
        "branch",
        "--show-current",
      ]);
      expect(joined).toMatchObject({ code: 0, stdout: "ariel/o5\n" });
    } finally {
      process.kill(-pid, "SIGKILL");
    }
  });

  it("--sparse: only that directory (and the top-level files) checked out", async () => {
    const r = await spawn(["--isolate", "--keep", "--task", "o2", "--sparse", "docs", "--", "ls", "-A"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").filter((l) => l !== ".git")).toEqual(["docs", "top.txt", ""]);
  });

  it("--with-changes: the checkout's uncommitted change is in the new worktree; without it, not", async () => {
    writeFileSync(join(repo(), "top.txt"), "changed\n");
    try {
      const withIt = await spawn([
        "--isolate",
        "--keep",
        "--task",
        "o3",
        "--with-changes",
        "--",
        "cat",
        "top.txt",
      ]);
      expect(withIt).toMatchObject({ code: 0, stdout: "changed\n" });
      const without = await spawn(["--isolate", "--keep", "--task", "o4", "--", "cat", "top.txt"]);
      expect(without).toMatchObject({ code: 0, stdout: "top\n" });
    } finally {
      git(repo(), "checkout", "--", "top.txt");
    }
    expect(readFileSync(join(repo(), "top.txt"), "utf8")).toBe("top\n");
  });
});

describe("ariel-spawn (in-process): a sandbox's options, planned", () => {
  it("--sandbox-write and --sandbox-net: the plan names the extra path and the network", async () => {
    const out = join(ws, "out");
    mkdirSync(out, { recursive: true });
    const r = await spawn(["-n", "--sandbox", "--sandbox-write", out, "--sandbox-net", "none", "--", "true"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      `gamma\t${repo()}\t-\ttrue`,
      "sandbox of gamma: network none",
      `  write ${repo()}`,
    ]);
    expect(lines).toContain(`  write ${out}`);
    const plain = await spawn(["-n", "--sandbox", "--", "true"]);
    expect(plain.stdout.split("\n")).not.toContain(`  write ${out}`);
    expect(plain.stdout.split("\n")[1]).toBe("sandbox of gamma: network on");
  });

  it("--no-sandbox under a config that sandboxes every run: a plan without a sandbox", async () => {
    writeFileSync(join(ws, "ariel.config.json"), '{ "sandbox": true }');
    try {
      const on = await spawn(["-n", "--", "true"]);
      expect(on.stdout.split("\n")[1]).toBe("sandbox of gamma: network on");
      expect(await spawn(["-n", "--no-sandbox", "--", "true"])).toEqual({
        code: 0,
        stdout: `gamma\t${repo()}\t-\ttrue\n`,
        stderr: "",
      });
    } finally {
      rmSync(join(ws, "ariel.config.json"));
    }
  });
});

describe("ariel-spawn (in-process): a k8s run's options, planned", () => {
  /** The parts of a planned Job that the options set. */
  const jobOf = (stdout: string) => {
    const plan = JSON.parse(stdout);
    const { metadata, spec } = plan.job;
    return {
      name: plan.name,
      annotations: metadata.annotations,
      deadline: spec.activeDeadlineSeconds,
      grace: spec.template.spec.terminationGracePeriodSeconds,
    };
  };
  const k8s = ["-n", "--json", "-d", "--backend", "k8s", "--image", "img"];

  it("--task, --base, --branch, --name, --timeout and --grace reach the Job; from another directory with -C", async () => {
    const elsewhere = join(ws, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    const r = await runInProcess(
      command,
      [
        "-C",
        ws,
        "--source",
        "gamma",
        ...k8s,
        "--task",
        "kt",
        "--base",
        first.trim(),
        "--branch",
        "kb",
        "--name",
        "kn",
        "--timeout",
        "30s",
        "--grace",
        "3",
        "--",
        "make",
      ],
      { cwd: elsewhere },
    );
    expect(r.code).toBe(0);
    expect(jobOf(r.stdout)).toEqual({
      name: "kn",
      annotations: {
        "ariel.dev/task": "kt",
        "ariel.dev/run-name": "kn",
        "ariel.dev/source": "gamma",
        "ariel.dev/remote": "https://example.com/gamma.git",
        "ariel.dev/base": first.trim(),
        "ariel.dev/branch": "kb",
      },
      deadline: 30,
      grace: 3,
    });
  });

  it("without them: a generated task and its branch, the base at HEAD, no deadline (the field left out), the detached grace", async () => {
    const r = await spawn([...k8s, "--", "make"]);
    expect(r.code).toBe(0);
    const job = jobOf(r.stdout);
    const task = job.annotations["ariel.dev/task"];
    expect(task).toMatch(/^run-[a-z0-9]+$/);
    expect(job).toEqual({
      name: null,
      annotations: {
        "ariel.dev/task": task,
        "ariel.dev/source": "gamma",
        "ariel.dev/remote": "https://example.com/gamma.git",
        "ariel.dev/base": git(repo(), "rev-parse", "HEAD").trim(),
        "ariel.dev/branch": `ariel/${task}`,
      },
      deadline: undefined,
      grace: 10,
    });
  });

  it("-o yaml with --json: 64, as an error record", async () => {
    const r = await spawn([...k8s, "-o", "yaml", "--", "make"]);
    expect(r.code).toBe(64);
    expect(JSON.parse(r.stderr)).toMatchObject({
      code: "ERR_USAGE",
      message: "-o yaml and --json exclude each other",
    });
  });
});

describe("ariel-spawn (in-process): numbers and sizes it reads", () => {
  it.each([
    [["-j", "x"], '--jobs needs an integer >= 1, got "x"'],
    [["-j", "1x"], '--jobs needs an integer >= 1, got "1x"'],
    [["--grace", "1.5"], '--grace needs an integer >= 0, got "1.5"'],
    [["--min-free", "lots"], "--min-free"],
    [["-d", "--on-exit", "true", "--on-exit-timeout", "soon"], "--on-exit-timeout"],
  ])("%j: 64, naming the flag", async (flags, message) => {
    const r = await spawn([...flags, "--", "true"]);
    expect(r.code).toBe(64);
    expect(r.stderr.split("\n")[0]).toContain(message);
  });

  it("-j 12 (two digits) is read; with --task no generated-id note", async () => {
    const r = await spawn(["-n", "-j", "12", "--isolate", "--task", "pinned", "--", "true"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
  });
});

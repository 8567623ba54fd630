import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkRecord, RECORD_SCHEMAS } from "../packages/core/src/schema/mod.ts";
import { arielIn, records, runAriel } from "./helpers/cli.ts";
import { tempWorkspaces } from "./helpers/temp.ts";
import { NODE, REPORT, readNdjson, runFiles, runSpawnWatching, sources } from "./spawn_helpers.ts";

const { ws } = tempWorkspaces();
const spawnIn = (root: string, args: readonly string[], input?: string) =>
  arielIn("spawn", root, args, input !== undefined ? { input } : {});

describe("ariel-spawn: shared mode", () => {
  it("runs in each source with its cwd and environment, prefixing lines", async () => {
    const root = ws(["api", "web"]);
    const r = await spawnIn(root, ["--source", "api", "--source", "web", "--", ...REPORT]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n").sort();
    expect(lines.map((l) => l.slice(0, l.indexOf(" ")))).toEqual(["[api]", "[web]"]);
    const [api, web] = lines.map((l) => JSON.parse(l.slice(l.indexOf(" ") + 1)));
    const runId = api.env.ARIEL_RUN_ID;
    expect(runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/);
    expect(api).toEqual({
      cwd: join(root, "api"),
      env: {
        ARIEL_WORKSPACE_ROOT: root,
        ARIEL_WORKSPACE_HASH: expect.stringMatching(/^[0-9a-f]{16}$/),
        ARIEL_SOURCE: "api",
        ARIEL_RUN_ID: runId,
      },
    });
    expect(web.cwd).toBe(join(root, "web"));
    expect(web.env.ARIEL_SOURCE).toBe("web");
    expect(web.env.ARIEL_RUN_ID).toBe(runId);
  });

  it("finds the command along PATH as each child would: a relative entry in the child's cwd", async () => {
    const root = ws(["api", "web"]);
    for (const n of ["api", "web"]) {
      mkdirSync(join(root, n, "bin"));
      writeFileSync(join(root, n, "bin/which-tool"), `#!/bin/sh\necho ${n}-tool "$0"\n`);
      chmodSync(join(root, n, "bin/which-tool"), 0o755);
    }
    const node = dirname(NODE);
    const args = ["--source", "api", "--source", "web", "--"];
    const run = (path: string, argv: string[]) =>
      arielIn("spawn", root, [...args, ...argv], { env: { PATH: path } });
    // A relative PATH entry means the child's own cwd: each source runs its own tool.
    const relative = await run(`bin:${process.env.PATH}`, ["which-tool"]);
    expect(relative.stderr).toBe("");
    expect(relative.stdout.split("\n").sort()).toEqual([
      "",
      "[api] api-tool bin/which-tool",
      "[web] web-tool bin/which-tool",
    ]);
    // An absolute one: the child runs that file and sees argv[0] as it was given.
    const absolute = await run(`${node}:${process.env.PATH}`, ["node", "-e", "console.log(process.argv0)"]);
    expect(absolute.stderr).toBe("");
    expect(absolute.stdout.split("\n").sort()).toEqual(["", "[api] node", "[web] node"]);
  });

  it("runs in the workspace root when no source is named, and drops stale ARIEL_ variables", async () => {
    const root = ws(["."]);
    const r = await runAriel("spawn", ["--", ...REPORT], {
      cwd: join(root),
      env: { ARIEL_TASK: "stale", ARIEL_WORKTREE: "/stale", ARIEL_SOURCE: "stale" },
    });
    expect(r.code).toBe(0);
    const got = JSON.parse(r.stdout);
    expect(got.cwd).toBe(root);
    expect(Object.keys(got.env).sort()).toEqual([
      "ARIEL_RUN_ID",
      "ARIEL_SOURCE",
      "ARIEL_WORKSPACE_HASH",
      "ARIEL_WORKSPACE_ROOT",
    ]);
    expect(got.env.ARIEL_SOURCE).toBe(".");
  });

  it("passes one child's output through unprefixed, partial last line included", async () => {
    const root = ws(["api"]);
    const r = await spawnIn(root, [
      "--source",
      "api",
      "--",
      NODE,
      "-e",
      "process.stdout.write('a\\nno newline');process.stderr.write('e1\\n')",
    ]);
    expect(r).toMatchObject({ code: 0, stdout: "a\nno newline", stderr: "e1\n" });
  });

  it("flushes partial last lines with a prefix and a newline when there are several", async () => {
    const root = ws(["a", "b"]);
    const r = await spawnIn(root, [
      ...sources(["a", "b"]),
      "--",
      NODE,
      "-e",
      "process.stdout.write('x\\ntail');process.stderr.write('oops')",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").sort()).toEqual(["", "[a] tail", "[a] x", "[b] tail", "[b] x"]);
    expect(r.stderr.split("\n").sort()).toEqual(["", "[a] oops", "[b] oops"]);
  });

  it("fans out over 50 sources with -j 8, each exactly once in its own directory", async () => {
    const names = Array.from({ length: 50 }, (_, i) => `s${String(i).padStart(2, "0")}`);
    const root = ws(names);
    const r = await spawnIn(
      root,
      ["--source", "-", "-j", "8", "--json", "--", ...REPORT],
      `${names.join("\n")}\n`,
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const events = records(r.stdout);
    const outputs = events.filter((e) => e.event === "output");
    expect(outputs).toHaveLength(50);
    const seen = outputs.map((e) => {
      const child = JSON.parse(e.line as string);
      expect(child.cwd).toBe(join(root, e.source as string));
      expect(child.env.ARIEL_SOURCE).toBe(e.source);
      return e.source;
    });
    expect(seen.sort()).toEqual(names);
    const finished = events.at(-1);
    expect(finished).toMatchObject({
      event: "run.finished",
      summary: { targets: 50, succeeded: 50, failed: 0, skipped: 0, exit: 0 },
    });
    // never more than 8 at once
    let live = 0;
    let peak = 0;
    for (const e of events) {
      if (e.event === "process.started") peak = Math.max(peak, ++live);
      if (e.event === "process.exited") live--;
    }
    expect(peak).toBeLessThanOrEqual(8);
    expect(peak).toBeGreaterThan(1);
  });
});

const HAS_JQ = spawnSync("jq", ["--version"]).status === 0;

describe("ariel-spawn: stdin targets", () => {
  it.skipIf(!HAS_JQ)("runs the discover | jq | spawn pipeline (needs jq)", async () => {
    const root = ws([".", "api", "docs", "web"]);
    const discovered = await runAriel("discover", ["--json"], { cwd: root });
    expect(discovered.code).toBe(0);
    const jq = spawnSync("jq", ["-c", 'select(.name != "docs" and .name != ".")'], {
      input: discovered.stdout,
      encoding: "utf8",
    });
    expect(jq.status).toBe(0);
    const r = await spawnIn(root, ["--source", "-", "-j", "2", "--json", "--", ...REPORT], jq.stdout);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const outputs = records(r.stdout).filter((e) => e.event === "output");
    expect(outputs.map((e) => [e.source, JSON.parse(e.line as string).cwd]).sort()).toEqual([
      ["api", join(root, "api")],
      ["web", join(root, "web")],
    ]);
  });

  it("reads discover-style source records, plain names and paths", async () => {
    const root = ws(["api", "web", "lib"]);
    const rec = JSON.stringify({
      v: 1,
      type: "source",
      name: "api",
      path: join(root, "api"),
      kind: "checkout",
      gitDir: join(root, "api/.git"),
      head: null,
      branch: "main",
    });
    const r = await spawnIn(root, ["--source", "-", "--json", "--", ...REPORT], `${rec}\nweb\n\n./lib\n`);
    expect(r.code).toBe(0);
    const started = records(r.stdout).filter((e) => e.event === "process.started");
    expect(started.map((e) => [e.source, e.cwd])).toEqual([
      ["api", join(root, "api")],
      ["web", join(root, "web")],
      ["lib", join(root, "lib")],
    ]);
  });

  it.each([
    ["broken JSON", "api\n{nope\n", 2],
    ["a non-object", "api\nweb\n[1,2]\n", 3],
    ["a record of another type", '{"v":1,"type":"task","name":"api"}\n', 1],
    ["an invalid name", "api\nweb; rm -rf /\n", 2],
  ])("rejects %s naming the line, starting nothing", async (_n, input, line) => {
    const root = ws(["api", "web"]);
    const marker = join(root, "ran");
    const r = await spawnIn(
      root,
      ["--source", "-", "--", NODE, "-e", `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`],
      input,
    );
    expect(r.code).toBe(65);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`stdin line ${line}: `);
    expect(r.stderr).toContain("[ERR_INVALID_INPUT]");
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("runs nothing on empty stdin, with a warning and exit 0", async () => {
    const root = ws(["api"]);
    const r = await spawnIn(root, ["--source", "-", "--json", "--", "true"], "\n\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(JSON.parse(r.stderr)).toMatchObject({ type: "warning", code: "WARN_NO_TARGETS" });
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("gives the error record with --json", async () => {
    const root = ws(["api"]);
    const r = await spawnIn(root, ["--source", "-", "--json", "--", "true"], "{oops\n");
    expect(r.code).toBe(65);
    expect(JSON.parse(r.stderr)).toMatchObject({
      v: 1,
      type: "error",
      code: "ERR_INVALID_INPUT",
      exit: 65,
      line: 1,
    });
  });

  it("rejects a record whose path is not this workspace's (65) and an unknown source (66)", async () => {
    const root = ws(["api"]);
    const rec = JSON.stringify({
      v: 1,
      type: "source",
      name: "api",
      path: "/elsewhere/api",
      kind: "checkout",
      gitDir: "/elsewhere/api/.git",
      head: null,
      branch: "main",
    });
    const stale = await spawnIn(root, ["--source", "-", "--", "true"], `${rec}\n`);
    expect(stale.code).toBe(65);
    expect(stale.stderr).toContain('stdin line 1: source "api" is at');
    const missing = await spawnIn(root, ["--source", "nope", "--", "true"]);
    expect(missing.code).toBe(66);
    expect(missing.stderr).toContain("[ERR_SOURCE_NOT_FOUND]");
    expect(runFiles(root)).toEqual([]);
  });
});

describe("ariel-spawn: containment", () => {
  it("a source that leads out of the workspace exits 77 (ERR_PATH_ESCAPE), as ariel-worktree does; nothing runs", async () => {
    const root = ws(["api"]);
    const outside = ws(["repo"]);
    symlinkSync(join(outside, "repo"), join(root, "evil"));
    const marker = join(outside, "ran");
    const cmd = [NODE, "-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`];
    for (const [args, input] of [
      [["--source", "evil"], undefined],
      [["--source", "evil", "--isolate"], undefined],
      [["--source", "-"], "evil\n"],
      [["--source", "-"], `${join(outside, "repo")}\n`],
      [["--source", "../"], undefined],
    ] as const) {
      const r = await spawnIn(root, [...args, "--json", "--", ...cmd], input);
      expect({ args, code: r.code }).toEqual({ args, code: 77 });
      expect(records(r.stderr)).toEqual([expect.objectContaining({ code: "ERR_PATH_ESCAPE", exit: 77 })]);
    }
    const wt = await arielIn("worktree", root, ["add", "--task", "t1", "--source", "evil"]);
    expect(wt.code).toBe(77);
    expect(existsSync(marker)).toBe(false);
    expect(runFiles(root)).toEqual([]);
  });
});

describe("ariel-spawn: exit statuses", () => {
  it.each([
    ["a crash passes through", [NODE, "-e", "process.exit(3)"], 3, ""],
    ["a SIGKILL gives 137", [NODE, "-e", "process.kill(process.pid, 'SIGKILL')"], 137, ""],
    ["a SIGTERM gives 143", [NODE, "-e", "process.kill(process.pid, 'SIGTERM')"], 143, ""],
    ["a missing command gives 127", ["ariel-no-such-command-xyz"], 127, "[ERR_COMMAND_NOT_FOUND]"],
  ])("%s", async (_n, argv, code, stderr) => {
    const root = ws(["api"]);
    const r = await spawnIn(root, ["--source", "api", "--", ...argv]);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(stderr);
  });

  it("a non-executable file gives 126", async () => {
    const root = ws(["api"]);
    const script = join(root, "api/run.sh");
    writeFileSync(script, "#!/bin/sh\necho hi\n");
    chmodSync(script, 0o644);
    const r = await spawnIn(root, ["--source", "api", "--json", "--", script]);
    expect(r.code).toBe(126);
    expect(JSON.parse(r.stderr.trim().split("\n")[0] as string)).toMatchObject({
      code: "ERR_NOT_EXECUTABLE",
      exit: 126,
    });
    const exited = records(r.stdout).find((e) => e.event === "process.exited");
    expect(exited).toMatchObject({
      code: null,
      signal: null,
      status: 126,
      error: { code: "ERR_NOT_EXECUTABLE" },
    });
  });

  it("several targets give 1 when any failed, and process.exited carries code and signal", async () => {
    const root = ws(["a", "b", "c"]);
    const r = await spawnIn(root, [
      ...sources(["a", "b", "c"]),
      "--json",
      "--",
      NODE,
      "-e",
      "const s=process.env.ARIEL_SOURCE; if(s==='b')process.exit(4); if(s==='c')process.kill(process.pid,'SIGKILL')",
    ]);
    expect(r.code).toBe(1);
    const exited = records(r.stdout).filter((e) => e.event === "process.exited");
    expect(exited.map((e) => [e.source, e.code, e.signal, e.status])).toEqual([
      ["a", 0, null, 0],
      ["b", 4, null, 4],
      ["c", null, "SIGKILL", 137],
    ]);
    expect(records(r.stdout).at(-1)).toMatchObject({
      event: "run.finished",
      summary: { targets: 3, succeeded: 1, failed: 2, skipped: 0, exit: 1 },
    });
  });

  it("--fail-fast starts nothing after a failure and terminates the running children", async () => {
    const root = ws(["a", "b", "c", "d"]);
    const r = await spawnIn(root, [
      ...sources(["a", "b", "c", "d"]),
      "-j",
      "2",
      "--fail-fast",
      "--json",
      "--",
      NODE,
      "-e",
      "if(process.env.ARIEL_SOURCE==='a')process.exit(2); setTimeout(()=>{},30000)",
    ]);
    expect(r.code).toBe(1);
    const events = records(r.stdout);
    const started = events.filter((e) => e.event === "process.started").map((e) => e.source);
    expect(started).toEqual(["a", "b"]);
    const exited = events.filter((e) => e.event === "process.exited");
    expect(exited.map((e) => [e.source, e.signal])).toEqual([
      ["a", null],
      ["b", "SIGTERM"],
    ]);
    expect(events.at(-1)).toMatchObject({
      summary: { targets: 4, succeeded: 0, failed: 2, skipped: 2, exit: 1 },
    });
  });

  it.each([
    ["-j 0", ["-j", "0", "--", "true"]],
    ["-j x", ["-j", "x", "--", "true"]],
    ["no command", ["--source", "a"]],
    ["--task without --isolate", ["--task", "t1", "--", "true"]],
    ["--span without --isolate", ["--span", "--", "true"]],
    ["--keep with --snapshot", ["--isolate", "--keep", "--snapshot", "--", "true"]],
    ["--detailed-exitcode without --dry-run", ["--detailed-exitcode", "--", "true"]],
    ["an unknown flag", ["--frobnicate", "--", "true"]],
  ])("usage error: %s → 64", async (_name, args) => {
    const root = ws(["a"]);
    const r = await spawnIn(root, args);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("[ERR_USAGE]");
  });
});

describe("ariel-spawn: dry run", () => {
  it("prints one plan record per target and creates nothing", async () => {
    const root = ws(["api", "web"]);
    const marker = join(root, "ran");
    const argv = [NODE, "-e", `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`];
    const r = await spawnIn(root, ["--source", "api", "--source", "web", "-n", "--json", "--", ...argv]);
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual(
      ["api", "web"].map((s) => ({
        v: 1,
        type: "plan",
        action: "spawn.run",
        source: s,
        cwd: join(root, s),
        worktree: null,
        branch: null,
        overlay: [],
        argv,
        env: ["ARIEL_WORKSPACE_ROOT", "ARIEL_WORKSPACE_HASH", "ARIEL_SOURCE", "ARIEL_RUN_ID"],
      })),
    );
    for (const rec of records(r.stdout)) checkRecord(RECORD_SCHEMAS.plan!, rec, "plan");
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
    expect(readFileSync(join(root, "api/.git/info/exclude"), "utf8")).not.toContain(".ariel");
  });

  it("prints tab-separated lines without --json, and --detailed-exitcode gives 2", async () => {
    const root = ws(["api"]);
    const r = await spawnIn(root, ["--source", "api", "-n", "--detailed-exitcode", "--", "make", "test"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(`api\t${join(root, "api")}\t-\tmake test\n`);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });
});

describe("ariel-spawn: history", () => {
  it("credentials in a child's output never reach output events or the history file", async () => {
    const root = ws([".", "a"]);
    const said =
      "remote https://agent:s3cr3t-T0KEN@git.example.com/r.git and x-access-token:ghp_S3CRET@host:o/r.git";
    const child = [NODE, "-e", `console.log(${JSON.stringify(said)})`];
    const json = await spawnIn(root, ["--source", "a", "--json", "--", ...child]);
    expect(json.code).toBe(0);
    const lines = records(json.stdout)
      .filter((e) => e.event === "output")
      .map((e) => e.line);
    expect(lines).toEqual(["remote https://git.example.com/r.git and host:o/r.git"]);
    const plain = await spawnIn(root, ["--source", "a", "--", ...child]);
    expect(plain.stdout).toBe(`${said}\n`);
    const plan = await spawnIn(root, ["--source", "a", "--dry-run", "--json", "--", ...child]);
    expect(plan.stdout).not.toContain("s3cr3t");
    expect(records(plan.stdout)[0]?.argv).toEqual([
      NODE,
      "-e",
      `console.log(${JSON.stringify("remote https://git.example.com/r.git and host:o/r.git")})`,
    ]);
    const history = runFiles(root)
      .map((f) => readFileSync(f, "utf8"))
      .join("");
    expect(history).toContain("git.example.com/r.git");
    expect(history).not.toContain("s3cr3t");
    expect(history).not.toContain("S3CRET");
  });

  it("the history file holds exactly the events --json printed, each a valid event record", async () => {
    const root = ws([".", "a", "b"]);
    const r = await spawnIn(root, [
      ...sources(["a", "b"]),
      "--json",
      "--",
      NODE,
      "-e",
      "console.log('one');console.error('two');process.stdout.write('three')",
    ]);
    expect(r.code).toBe(0);
    const files = runFiles(root);
    expect(files).toHaveLength(1);
    const events = records(r.stdout);
    expect(readNdjson(files[0] as string)).toEqual(events);
    expect(readFileSync(files[0] as string, "utf8")).toBe(r.stdout);
    const runId = events[0]?.runId;
    expect(files[0]).toBe(join(root, ".ariel/runs", `${runId}.ndjson`));
    for (const e of events) {
      checkRecord(RECORD_SCHEMAS.event!, e, "event");
      expect(e.runId).toBe(runId);
    }
    const names = events.map((e) => e.event);
    expect(names[0]).toBe("run.started");
    expect(names.at(-1)).toBe("run.finished");
    expect(names.filter((n) => n === "process.started")).toHaveLength(2);
    expect(names.filter((n) => n === "output")).toHaveLength(6);
    expect(names.filter((n) => n === "process.exited")).toHaveLength(2);
    const outA = events.filter((e) => e.event === "output" && e.source === "a");
    expect(outA.map((e) => [e.stream, e.line, e.partial ?? false])).toEqual(
      expect.arrayContaining([
        ["stdout", "one", false],
        ["stderr", "two", false],
        ["stdout", "three", true],
      ]),
    );
    // .ariel/ is kept out of the root checkout's status
    expect(readFileSync(join(root, ".git/info/exclude"), "utf8")).toContain("/.ariel/");
  });

  it("records the run without --json too (stdout carries only the child's output)", async () => {
    const root = ws(["a"]);
    const r = await spawnIn(root, ["--source", "a", "--", NODE, "-e", "console.log('hello')"]);
    expect(r.stdout).toBe("hello\n");
    const [file] = runFiles(root);
    const events = readNdjson(file as string);
    expect(events.map((e) => e.event)).toEqual([
      "run.started",
      "process.started",
      "output",
      "process.exited",
      "run.finished",
    ]);
    expect(events[2]).toMatchObject({ source: "a", stream: "stdout", line: "hello" });
  });
});

describe("ariel-spawn: signals and pipes", () => {
  it("SIGINT in the middle of a fan-out reaches the children, is waited for, and ends 130", async () => {
    const root = ws(["a", "b", "c", "d"]);
    let sent = false;
    let started = 0;
    const r = await runSpawnWatching(
      [
        ...sources(["a", "b", "c", "d"]),
        "-j",
        "2",
        "--json",
        "--",
        NODE,
        "-e",
        "process.on('SIGINT',()=>{console.log('got SIGINT');process.exit(7)});console.log('ready');setTimeout(()=>{},30000)",
      ],
      { cwd: root },
      (line, pid) => {
        const e = JSON.parse(line);
        if (e.event === "output" && e.line === "ready") started++;
        if (started === 2 && !sent) {
          sent = true;
          process.kill(pid, "SIGINT");
        }
      },
    );
    expect(r.code).toBe(130);
    const events = records(r.stdout);
    const exited = events.filter((e) => e.event === "process.exited");
    expect(exited.map((e) => [e.source, e.code]).sort()).toEqual([
      ["a", 7],
      ["b", 7],
    ]);
    expect(events.filter((e) => e.event === "output" && e.line === "got SIGINT")).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({
      event: "run.finished",
      interrupted: "SIGINT",
      summary: { targets: 4, succeeded: 0, failed: 2, skipped: 2, exit: 130 },
    });
    expect(readNdjson(runFiles(root)[0] as string)).toEqual(events);
  });

  it("SIGTERM to a single-target run is forwarded, and a second signal escalates to SIGKILL; exit 143", async () => {
    const root = ws(["a"]);
    let signals = 0;
    const r = await runSpawnWatching(
      [
        "--source",
        "a",
        "--json",
        "--",
        NODE,
        "-e",
        "process.on('SIGTERM',()=>console.log('ignoring SIGTERM'));console.log('ready');setInterval(()=>{},1000)",
      ],
      { cwd: root },
      (line, pid) => {
        const e = JSON.parse(line);
        if (e.event !== "output") return;
        if (e.line === "ready" || e.line === "ignoring SIGTERM") {
          signals++;
          process.kill(pid, "SIGTERM");
        }
      },
    );
    expect(signals).toBe(2);
    expect(r.code).toBe(143);
    const events = records(r.stdout);
    expect(events.find((e) => e.event === "process.exited")).toMatchObject({
      signal: "SIGKILL",
      status: 137,
    });
    expect(events.at(-1)).toMatchObject({
      event: "run.finished",
      interrupted: "SIGTERM",
      summary: { exit: 143 },
    });
  });

  it("a closed stdout (| head) ends quietly with 0 and stops the children", async () => {
    const root = ws(["a", "b"]);
    let lines = 0;
    const r = await runSpawnWatching(
      [...sources(["a", "b"]), "-j", "2", "--", NODE, "-e", "setInterval(()=>console.log('tick'),5)"],
      { cwd: root },
      (_line, _pid, close) => {
        if (++lines === 3) close();
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const events = readNdjson(runFiles(root)[0] as string);
    expect(events.filter((e) => e.event === "process.exited").map((e) => e.signal)).toEqual([
      "SIGTERM",
      "SIGTERM",
    ]);
    expect(events.at(-1)).toMatchObject({ event: "run.finished" });
  });
});

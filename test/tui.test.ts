// The terminal UI (`ariel`, bin ariel-tui; docs/tui.md) driven on a real pseudo-terminal against
// real runs and real repositories: the built CLIs as a person would run them. Text snapshots of
// key screens go to artifacts/tui/ (CI keeps artifacts/).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TOGGLES } from "../packages/cli-tui/src/model/form.ts";
import { KEYS } from "../packages/cli-tui/src/model/keys.ts";
import { cliCommand, cliEnv, REPO_ROOT, records, runAriel } from "./helpers/cli.ts";
import { git, tempDir, writeFile } from "./helpers/git.ts";
import {
  cleanUp,
  multiRepoWorkspace,
  NODE,
  runHistory,
  runs,
  startRun,
  TEST_ENV,
  until,
} from "./runs_helpers.ts";
import { KEY, rowOf, rowsOf, startTui, type Tui } from "./tui_helpers.ts";

const FAKE_AGENT = join(REPO_ROOT, "test/fixtures/fake-agent.mjs");
const open: Tui[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.kill();
  cleanUp();
});
function tui(root: string, o: Parameters<typeof startTui>[1] = {}): Tui {
  const t = startTui(root, o);
  open.push(t);
  return t;
}

const worktree = (root: string, args: string[]) =>
  runAriel("worktree", ["-C", root, ...args], { env: TEST_ENV, cwd: root });

/** The group a line of the list is under: the nearest header above it. */
function groupOf(text: string, what: string): string | null {
  const rows = rowsOf(text);
  for (let y = rowOf(text, what); y >= 0; y--) {
    const m = /^(Needs you|Running|Ended) \(\d+\)/.exec(rows[y]!);
    if (m) return m[1]!;
  }
  return null;
}

describe("docs/tui.md", () => {
  it("names every key and every toggle of the new-run form", () => {
    const doc = readFileSync(join(REPO_ROOT, "docs/tui.md"), "utf8");
    for (const k of KEYS) for (const label of k.label.split(" ")) expect(doc).toContain(`\`${label}\``);
    for (const t of TOGGLES) expect(doc).toContain(t.flag);
  });
});

describe("ariel without a terminal", () => {
  it("exits 2 naming ariel-runs list, and draws nothing", () => {
    const root = multiRepoWorkspace(["a"], undefined, { marked: true });
    const [exe, ...pre] = cliCommand("tui");
    const r = spawnSync(exe!, [...pre, "-C", root], { env: cliEnv(), encoding: "utf8", input: "" });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("[ERR_NOT_A_TERMINAL]");
    expect(r.stderr).toContain("ariel-runs list");
  });
});

describe("ariel on a terminal", () => {
  it("three runs: the asking agent moves to Needs you within 2 s; Enter attaches, keys echo, the detach key comes back; k asks and kills", async () => {
    const root = multiRepoWorkspace(["a", "b", "c"], undefined, { marked: true });
    await startRun(root, ["--name", "sleeper-a", "--source", "a", "--", "sleep", "300"]);
    await startRun(root, ["--name", "sleeper-b", "--source", "b", "--", "sleep", "300"]);
    const agent = await startRun(root, [
      "--tty",
      "--size",
      "80x20",
      "--agent",
      "claude",
      "--name",
      "agent-c",
      "--source",
      "c",
      "--",
      NODE,
      FAKE_AGENT,
    ]);
    const t = tui(root, { env: { FAKE_AGENT_SPIN_MS: "1500" } });
    let text = await t.waitFor("agent-c");
    expect(groupOf(text, "sleeper-a")).toBe("Running");
    // The agent asks: from its run.attention event to the list showing it under Needs you.
    const id = agent.runId as string;
    await until(
      () => runHistory(root, id).some((e) => e.event === "run.attention" && e.to === "waiting"),
      15_000,
    );
    const asked = Date.now();
    text = await t.waitFor((s) => groupOf(s, "agent-c") === "Needs you", 2_000);
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(text).toContain("waiting: pattern");
    expect(t.raw()).toContain("\x07"); // the bell
    // NO_COLOR (the tests' default): bold and inverse only, no colour anywhere in what it drew.
    expect(t.raw()).not.toMatch(/\x1b\[[0-9;]*(?:3[0-7]|9[0-7]|38;|4[0-7]|48;)[0-9;]*m/);
    await t.snapshot("needs-you");
    // Select the agent (the first item: Needs you comes first) and attach.
    t.type(KEY.enter);
    // Attached: the agent's screen is the whole terminal (the list is gone).
    text = await t.waitFor((s) => s.includes("Do you want to proceed?") && !s.includes("Needs you"));
    expect(rowsOf(text)[0]).toBe("fake-agent 1.0");
    await t.snapshot("attached");
    t.type("1");
    // The key echoes: the agent's terminal shows it under its menu.
    await t.waitFor((s) => rowsOf(s)[rowOf(s, "2. No") + 1] === "1");
    t.type("\r");
    await t.waitFor("Done.", 15_000);
    t.type(KEY.detach);
    await t.waitFor("detached from agent-c");
    text = await t.waitFor("Running (3)"); // the list read again: the agent works, nothing waits
    expect(text).toContain("Needs you (0)");
    // k on a sleeper: asks; n keeps it; y kills it.
    t.type("j");
    await t.waitFor((s) => /── sleeper-/.test(s));
    const selected = /── (sleeper-[ab])/.exec(await t.text())![1]!;
    t.type("k");
    await t.waitFor(`kill ${selected}?`);
    await t.snapshot("kill-asks");
    t.type("n");
    await t.waitFor("nothing was done");
    expect(
      records((await runs(root, ["list", "--json"])).stdout).find((r) => r.name === selected)?.state,
    ).toBe("running");
    t.type("k");
    await t.waitFor(`kill ${selected}?`);
    t.type("y");
    text = await t.waitFor(`killed ${selected}`, 20_000);
    expect(groupOf(text, selected)).toBe("Ended");
    const listed = records((await runs(root, ["list", "--all", "--json"])).stdout);
    expect(listed.find((r) => r.name === selected)?.state).toBe("killed");
    t.type("q");
    expect((await t.exited).code).toBe(0);
  });

  it("a two-repository task: its legs in the preview, d shows its diff, L lands both legs; a conflicting land is refused and moves nothing", async () => {
    const root = multiRepoWorkspace(["a", "b"], undefined, { marked: true });
    expect((await worktree(root, ["add", "--task", "t2", "--source", "a", "--source", "b"])).code).toBe(0);
    expect((await worktree(root, ["add", "--task", "t3", "--source", "a", "--source", "b"])).code).toBe(0);
    for (const s of ["a", "b"]) {
      const leg = join(root, ".ariel/worktrees/t2", s);
      writeFile(join(leg, "CHANGE.md"), `t2 in ${s}\n`);
      git(leg, "add", "CHANGE.md");
      git(leg, "commit", "-qm", `t2: change ${s}`);
      const leg3 = join(root, ".ariel/worktrees/t3", s);
      writeFile(join(leg3, "README.md"), `t3 rewrites ${s}\n`);
      git(leg3, "commit", "-qam", `t3: rewrite ${s}`);
    }
    // a's main moves the same line t3 changes: t3 conflicts there.
    writeFile(join(root, "a", "README.md"), "main rewrites a\n");
    git(join(root, "a"), "commit", "-qam", "main: rewrite a");
    const heads = () => ["a", "b"].map((s) => git(join(root, s), "rev-parse", "main").trim());
    const t = tui(root, { cols: 100, rows: 30 });
    let text = await t.waitFor("task t3");
    expect(groupOf(text, "task t2")).toBe("Needs you");
    // The title counts what the group lists: two tasks wait for a review.
    expect([rowsOf(text)[0]!.includes("· 2 need you ·"), text.includes("Needs you (2)")]).toEqual([
      true,
      true,
    ]);
    // t3 is the newest: first. Select t2 and see its legs.
    t.type("j");
    text = await t.waitFor("t2: change b");
    expect(text).toMatch(/a\s+ariel\/t2\s+1 commit ahead, 1 file changed, 0 uncommitted/);
    expect(text).toMatch(/b\s+ariel\/t2\s+1 commit ahead, 1 file changed/);
    await t.snapshot("task-legs");
    t.type("d");
    text = await t.waitFor("diff of task t2");
    expect(text).toContain("+t2 in a");
    expect(text).toContain("── b · ariel/t2");
    await t.snapshot("diff");
    t.type("q");
    await t.waitFor("Needs you");
    const before = heads();
    t.type("L");
    text = await t.waitFor("land task t2?");
    expect(text).toMatch(/land {2}a: ariel\/t2 → main {2}1 commit/);
    await t.snapshot("land-plan");
    t.type("y");
    text = await t.waitFor("landed t2: a landed, b landed", 20_000);
    await t.snapshot("land-outcome");
    const after = heads();
    for (const [i, s] of ["a", "b"].entries()) {
      expect(after[i]).not.toBe(before[i]);
      expect(git(join(root, s), "log", "--format=%s", "main").split("\n")).toContain(`t2: change ${s}`);
    }
    t.type("q");
    // t3: refused, nothing moves.
    t.type(KEY.up);
    await t.waitFor("t3: rewrite a");
    t.type("L");
    text = await t.waitFor("nothing landed", 20_000);
    expect(text).toContain("ERR_");
    expect(text).toContain("a (conflict)");
    await t.snapshot("land-refused");
    expect(heads()).toEqual(after);
    t.type("q");
    t.type("q");
    expect((await t.exited).code).toBe(0);
  });

  it("redraws on resize, scrolls through 50 runs, and keeps colours in a screen's preview", async () => {
    const names = Array.from({ length: 10 }, (_, i) => `r${i}`);
    const root = multiRepoWorkspace(names, undefined, { marked: true });
    for (let k = 0; k < 5; k++) {
      const r = await runAriel(
        "spawn",
        [
          "-C",
          root,
          "--detach",
          "--json",
          "--shared",
          ...names.flatMap((n) => ["--source", n]),
          "--",
          "true",
        ],
        { env: TEST_ENV },
      );
      expect(r.code).toBe(0);
    }
    await until(
      () =>
        records(
          spawnSync(
            cliCommand("runs")[0]!,
            [...cliCommand("runs").slice(1), "list", "-C", root, "--all", "--json"],
            { env: cliEnv(TEST_ENV), encoding: "utf8" },
          ).stdout,
        ).filter((r) => r.state === "exited").length === 50,
      30_000,
    );
    await startRun(root, [
      "--tty",
      "--size",
      "40x5",
      "--name",
      "colours",
      "--source",
      "r0",
      "--",
      "bash",
      "-c",
      "printf '\\e[31mred\\e[0m\\n'; sleep 300",
    ]);
    const t = tui(root, { env: { NO_COLOR: undefined } });
    let text = await t.waitFor("Ended (50)");
    // The live tty run is selected first: its screen, in red, in the preview.
    await t.waitFor("── colours");
    await until(() => /\x1b\[0;31mred/.test(t.raw()), 10_000);
    // 50 ended runs: the list scrolls with the selection.
    expect(rowsOf(text)).toHaveLength(24);
    for (let i = 0; i < 50; i++) t.type("j");
    text = await t.waitFor((s) => !s.includes("Needs you (0)") && s.includes("Ended (50)") === false);
    const first = (await t.screen())[1];
    expect(first).not.toContain("Needs you");
    await t.snapshot("scrolled-50");
    // Resize: the frame is drawn again at the new size.
    t.resize(120, 30);
    text = await t.waitFor((s) => rowsOf(s)[29]!.includes("? help") && rowsOf(s)[0]!.includes("51 runs"));
    expect((await t.screen()).find((l) => l.startsWith("── "))?.length).toBe(120); // the preview's rule, full width
    t.resize(80, 24);
    text = await t.waitFor((s) => rowsOf(s)[23]!.includes("? help"));
    t.type("?");
    await t.waitFor("Keys");
    await t.snapshot("help");
    t.type("q");
    t.type("q");
    expect((await t.exited).code).toBe(0);
  });

  it("n starts a run from the form (sources completed from discovery) with the same refusals as ariel-spawn", async () => {
    const root = multiRepoWorkspace(["alpha", "beta"], undefined, { marked: true });
    const t = tui(root, { cols: 120 });
    await t.waitFor("Needs you");
    t.type("n");
    await t.waitFor("Tab completes: alpha beta");
    t.type("al");
    t.type(KEY.tab);
    await t.waitFor((s) => /source\s+alpha/.test(s));
    t.type(`${KEY.down}${KEY.down}${KEY.down}`);
    t.type("sleep 300");
    t.type(`${KEY.down}formed${KEY.down}${KEY.space}`);
    let text = await t.waitFor("[x] isolate");
    expect(text).toContain(
      "ariel-spawn --detach --tty --name formed --source alpha --isolate --agent claude -- sleep 300",
    );
    await t.snapshot("new-run-form");
    t.type(KEY.enter);
    text = await t.waitFor("started formed", 20_000);
    const listed = records((await runs(root, ["list", "--json"])).stdout);
    expect(listed.map((r) => [r.name, r.state, typeof r.task])).toEqual([["formed", "running", "string"]]);
    // span with no source in a workspace whose root is no checkout: the very refusal ariel-spawn gives.
    t.type("n");
    await t.waitFor("new run in");
    t.type(`${KEY.down}${KEY.down}${KEY.down}sleep 1`);
    for (let i = 0; i < 4; i++) t.type(KEY.down);
    t.type(KEY.space);
    await t.waitFor("[x] span");
    t.type(KEY.enter);
    text = await t.waitFor("ERR_NOT_A_CHECKOUT", 15_000);
    expect(text).toContain("workspace root");
    const cli = await runAriel("spawn", ["-C", root, "--detach", "--isolate", "--span", "--", "sleep", "1"], {
      env: TEST_ENV,
    });
    expect(cli.code).toBe(66);
    expect(cli.stderr).toContain(`workspace root ${root} is not a git checkout [ERR_NOT_A_CHECKOUT]`);
    // Several sources in the source field (Tab completes the last): one agent over a new task of both.
    await t.waitFor("q Esc close"); // the refusal's panel, with its hint
    t.type(KEY.escape);
    await t.waitFor((x) => x.includes("n new") && !x.includes("q Esc close"));
    t.type("n");
    await t.waitFor("new run in");
    t.type("alpha bet");
    t.type(KEY.tab);
    await t.waitFor((x) => /source\s+alpha beta/.test(x));
    t.type(`${KEY.down}${KEY.down}${KEY.down}sleep 300${KEY.down}both`);
    for (let i = 0; i < 3; i++) t.type(KEY.down);
    t.type(KEY.space);
    text = await t.waitFor("[x] span");
    expect(text).toContain(
      "ariel-spawn --detach --tty --name both --source alpha --source beta --span --agent claude -- sleep 300",
    );
    t.type(KEY.enter);
    await t.waitFor("started both", 20_000);
    const both = records((await runs(root, ["list", "--json"])).stdout).find((r) => r.name === "both")!;
    expect((both.legs as { source: string }[]).map((l) => l.source)).toEqual(["alpha", "beta"]);
    t.type("q");
    expect((await t.exited).code).toBe(0);
  });

  it("s types a line into the selected run; r respawns an ended run under a new id", async () => {
    const root = multiRepoWorkspace(["a"], undefined, { marked: true });
    const first = await startRun(root, [
      "--tty",
      "--size",
      "60x8",
      "--name",
      "asker",
      "--source",
      "a",
      "--",
      "bash",
      "-c",
      'read -p "name? " x; echo "got $x"; sleep 300',
    ]);
    const t = tui(root);
    await t.waitFor("name?");
    t.type("s");
    await t.waitFor("send a line to asker");
    t.type("bob");
    t.type(KEY.enter);
    await t.waitFor('sent "bob" to asker');
    await t.waitFor("got bob"); // in the preview: the run's live screen
    t.type("k");
    await t.waitFor("kill asker?");
    t.type("y");
    await t.waitFor((s) => groupOf(s, "asker") === "Ended", 20_000);
    // The fleet can show it ended before the kill action is done; keys wait for that.
    await t.waitFor("killed asker (", 20_000);
    t.type("r"); // ended: no question
    const text = await t.waitFor("respawned asker as", 20_000);
    const id = /respawned asker as (\S+)/.exec(text)![1]!;
    expect(id).not.toBe(first.runId);
    await t.waitFor((s) => groupOf(s, "asker") === "Running" || groupOf(s, "asker") === "Needs you");
    const listed = records((await runs(root, ["list", "--all", "--json"])).stdout);
    expect(listed.find((r) => r.runId === id)).toMatchObject({ name: "asker", respawnOf: first.runId });
    t.type("q");
    expect((await t.exited).code).toBe(0);
  });

  it("an agent that reports: why it waits in its own words and its last tool, live and when ariel starts later", async () => {
    const root = multiRepoWorkspace(["a"], undefined, { marked: true });
    const claude = join(REPO_ROOT, "test/fixtures/agents/claude");
    await startRun(root, ["--tty", "--name", "c1", "--source", "a", "--", claude]);
    const t = tui(root, { cols: 140 });
    await t.waitFor("c1");
    await runs(root, ["send", "c1", "ask", "--enter"]);
    const why = "waiting (agent): Claude needs your permission to use Bash";
    let text = await t.waitFor(why, 15_000);
    expect(groupOf(text, why)).toBe("Needs you");
    t.type("q");
    expect((await t.exited).code).toBe(0);
    // A second ariel, started while it waits: the run's view says who and why.
    const later = tui(root, { cols: 140 });
    text = await later.waitFor(why, 15_000);
    expect(groupOf(text, why)).toBe("Needs you");
    // Answered: busy, then idle by its Stop; the row names the tool it last used.
    await runs(root, ["send", "c1", "1", "--enter"]);
    text = await later.waitFor(
      (x) => rowsOf(x).some((l) => l.includes("c1") && l.includes("tool Bash")),
      15_000,
    );
    expect(groupOf(text, "tool Bash")).toBe("Running");
    later.type("q");
    expect((await later.exited).code).toBe(0);
  });

  it("without -C: every workspace of the registry, a new one as it appears", async () => {
    const state = tempDir("ariel-tui-state-");
    const env = { ...TEST_ENV, ARIEL_STATE_HOME: state };
    const one = multiRepoWorkspace(["a"]);
    const two = multiRepoWorkspace(["b"]);
    const start = (root: string, name: string, source: string) =>
      runAriel("spawn", ["-C", root, "--detach", "--name", name, "--source", source, "--", "sleep", "300"], {
        env,
      });
    expect((await start(one, "in-one", "a")).code).toBe(0);
    const t = tui(one, { env: { ARIEL_STATE_HOME: state }, argv: [...cliCommand("tui")] });
    await t.waitFor("in-one");
    expect(await t.text()).toContain("1 workspace");
    expect((await start(two, "in-two", "b")).code).toBe(0);
    const text = await t.waitFor("in-two", 10_000);
    expect(text).toContain("2 workspaces");
    t.type("q");
    expect((await t.exited).code).toBe(0);
  });

  it("gives the terminal back as it was: q, Ctrl-C mid-panel, SIGTERM, SIGHUP and a crash", async () => {
    const root = multiRepoWorkspace(["a"], undefined, { marked: true });
    const [exe, ...pre] = cliCommand("tui");
    const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
    const cmd = [exe!, ...pre, "-C", root].map(quote).join(" ");
    for (const [how, act] of [
      ["q", (t: Tui) => t.type("q")],
      [
        "ctrl-c",
        (t: Tui) => {
          t.type("n"); // mid-screen: the form is open
          setTimeout(() => t.type(KEY.ctrlC), 300);
        },
      ],
      ["sigterm", (_t: Tui, pid: number) => process.kill(pid, "SIGTERM")],
      ["sighup", (_t: Tui, pid: number) => process.kill(pid, "SIGHUP")],
      ["crash", (t: Tui) => t.type("!")],
    ] as const) {
      const before = join(root, `${how}.before`);
      const after = join(root, `${how}.after`);
      const script = `stty -a > ${quote(before)}; ${cmd}; echo "exit=$?"; stty -a > ${quote(after)}; sleep 30`;
      const t = tui(root, {
        argv: ["bash", "-c", script],
        env: { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_CRASH_KEY: "!" },
      });
      await t.waitFor("Needs you");
      // The shell's one child is ariel-tui.
      const pid = Number(readFileSync(`/proc/${t.pid}/task/${t.pid}/children`, "utf8").trim().split(" ")[0]);
      (act as (t: Tui, pid: number) => void)(t, pid);
      const text = await t.waitFor("exit=", 10_000);
      expect(text).toContain(`exit=${{ q: 0, "ctrl-c": 0, sigterm: 143, sighup: 129, crash: 70 }[how]}`);
      if (how === "crash")
        expect(text).toContain("ariel-tui: crashed (a bug; the runs go on): Error: test crash");
      await until(() => {
        try {
          return readFileSync(after, "utf8").length > 0;
        } catch {
          return false;
        }
      });
      expect(readFileSync(after, "utf8")).toBe(readFileSync(before, "utf8"));
      expect(t.raw()).toContain("\x1b[?1049l"); // the main screen back
      await t.snapshot(`restored-${how}`);
      t.kill();
    }
  });
});

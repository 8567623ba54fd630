/**
 * Names are validated before anything touches the filesystem: a task id or branch that could
 * never be a task is refused (exit 65, its own error code) by every command that takes one, and
 * not one file under `.ariel/` is created or changed, lease files included (a fault-injection
 * run found `remove --task=a..b` leaving `.ariel/leases/a..b.json` behind).
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { records, runAriel } from "./helpers/cli.ts";
import { gitState, makeWorkspace, removeDir, wt } from "./worktree-fixtures.ts";

/** Every entry under `<root>/.ariel` (leases and runs included): path → kind and content hash. */
function stateListing(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const r = `${rel}/${name}`;
      const st = lstatSync(p);
      if (st.isDirectory()) {
        out[r] = "dir";
        walk(p, r);
      } else out[r] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  const state = join(root, ".ariel");
  if (existsSync(state)) walk(state, ".ariel");
  return out;
}

const BAD_IDS: [string, string][] = [
  ["a..b", 'contains ".."'],
  ["x..", 'contains ".."'],
  ["a.lock", 'ends with ".lock"'],
  ["aa.", 'ends with "."'],
];

let root = "";
let fresh = "";
beforeAll(async () => {
  root = makeWorkspace(["api"]);
  expect((await wt(root, ["add", "--task", "t1", "--source", "api"])).code).toBe(0);
  fresh = makeWorkspace(["api"]);
});
afterAll(() => {
  removeDir(root);
  removeDir(fresh);
});

/** Run, then check: exit 65, exactly one error record with `code`, and nothing changed. */
async function expectRefusedUntouched(
  dir: string,
  run: () => Promise<{ code: number | null; stdout: string; stderr: string }>,
  code: string,
  message: string,
): Promise<void> {
  const before = { state: stateListing(dir), api: gitState(join(dir, "api")) };
  const r = await run();
  const errs = records(r.stderr).filter((e) => e.type === "error");
  expect({ exit: r.code, stdout: r.stdout, errors: errs.map((e) => [e.code, e.message]) }).toEqual({
    exit: 65,
    stdout: "",
    errors: [[code, message]],
  });
  expect({ state: stateListing(dir), api: gitState(join(dir, "api")) }).toEqual(before);
}

describe("ariel-worktree refuses a bad --task before touching .ariel/", () => {
  for (const [id, why] of BAD_IDS) {
    const message = `invalid task id ${JSON.stringify(id)}: ${why}`;
    it.each([
      ["remove", ["remove", `--task=${id}`]],
      ["remove --dry-run", ["remove", `--task=${id}`, "--dry-run"]],
      ["restore", ["restore", `--task=${id}`]],
      ["list", ["list", `--task=${id}`]],
      ["verify", ["verify", `--task=${id}`]],
      ["add", ["add", `--task=${id}`, "--source", "api"]],
    ])(`%s --task=${id} → 65 ERR_INVALID_TASK_ID`, async (_name, args) => {
      await expectRefusedUntouched(root, () => wt(root, [...args, "--json"]), "ERR_INVALID_TASK_ID", message);
    });
  }

  it("in a workspace without .ariel/, remove --task=a..b does not create it", async () => {
    await expectRefusedUntouched(
      fresh,
      () => wt(fresh, ["remove", "--task=a..b", "--json"]),
      "ERR_INVALID_TASK_ID",
      'invalid task id "a..b": contains ".."',
    );
    expect(existsSync(join(fresh, ".ariel"))).toBe(false);
  });

  it("add --branch=a..b → 65 ERR_INVALID_BRANCH, no lease, no task directory", async () => {
    await expectRefusedUntouched(
      root,
      () => wt(root, ["add", "--task", "t2", "--source", "api", "--branch=a..b", "--json"]),
      "ERR_INVALID_BRANCH",
      'invalid branch name "a..b": contains ".."',
    );
  });
});

describe("ariel-spawn --isolate refuses a bad name before writing a run history", () => {
  const spawnIn = (dir: string, args: readonly string[]) =>
    runAriel("spawn", [...args, "--json", "--", process.execPath, "-e", "0"], { cwd: dir });
  it.each([
    ["--branch=a..b", ["--branch=a..b"], "ERR_INVALID_BRANCH", 'invalid branch name "a..b": contains ".."'],
    ["--task=x..", ["--task=x.."], "ERR_INVALID_TASK_ID", 'invalid task id "x..": contains ".."'],
    [
      "--task=a.lock",
      ["--task=a.lock"],
      "ERR_INVALID_TASK_ID",
      'invalid task id "a.lock": ends with ".lock"',
    ],
  ])("%s", async (_name, flags, code, message) => {
    for (const dir of [root, fresh]) {
      await expectRefusedUntouched(
        dir,
        () => spawnIn(dir, ["--source", "api", "--isolate", ...flags]),
        code,
        message,
      );
    }
    expect(existsSync(join(fresh, ".ariel"))).toBe(false);
  });

  it("--detach --isolate --branch=a..b: refused before a monitor or run directory exists", async () => {
    for (const dir of [root, fresh]) {
      await expectRefusedUntouched(
        dir,
        () => spawnIn(dir, ["--detach", "--source", "api", "--isolate", "--branch=a..b"]),
        "ERR_INVALID_BRANCH",
        'invalid branch name "a..b": contains ".."',
      );
    }
    expect(existsSync(join(fresh, ".ariel"))).toBe(false);
  });
});

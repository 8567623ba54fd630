/**
 * `ariel-spawn --detach --backend k8s --dry-run` end to end over real repositories with
 * remotes: every Job printed parses and is a valid batch/v1 Job by the Kubernetes OpenAPI
 * schema (kubernetes-models, offline); refusals change nothing; no credential is printed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Job } from "kubernetes-models/batch/v1/Job";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { records, runAriel } from "./helpers/cli.ts";
import { git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";

const SECRET = "s3cr3t-token";
const IMAGE = "ghcr.io/acme/agent:1.2";
/** The flags of a k8s dry run. */
const K8S_DRY = ["--detach", "--backend", "k8s", "--dry-run", "--image", IMAGE];

type Manifest = {
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  spec: { backoffLimit: number; activeDeadlineSeconds?: number; template: { spec: Record<string, unknown> } };
};

function validJob(doc: unknown): Manifest {
  new Job(doc as ConstructorParameters<typeof Job>[0]).validate();
  return doc as Manifest;
}

let root: string;
let heads: Record<string, string>;
/** A workspace whose only source has no remote. */
let bare: string;

beforeAll(() => {
  // api: a bare remote it pushed to (the base is on origin/main); web: an https remote with a
  // token in its URL that was never fetched (the base is on no remote branch: a warning).
  root = tempDir("ariel-k8s-");
  heads = { api: initRepo(join(root, "api")), web: initRepo(join(root, "web")) };
  git(root, "init", "-q", "--bare", join(root, ".remotes/api.git"));
  git(join(root, "api"), "remote", "add", "origin", join(root, ".remotes/api.git"));
  git(join(root, "api"), "push", "-q", "-u", "origin", "main");
  git(join(root, "web"), "remote", "add", "origin", `https://bot:${SECRET}@git.example.com/acme/web.git`);
  bare = tempDir("ariel-k8s-bare-");
  initRepo(join(bare, "lib"));
});
afterAll(() => {
  removeDir(root);
  removeDir(bare);
});

function spawnK8s(args: string[], input?: string, cwd = root) {
  return runAriel(
    "spawn",
    ["--detach", "--backend", "k8s", "--dry-run", "--image", IMAGE, ...args],
    input === undefined ? { cwd } : { cwd, input },
  );
}

describe("ariel-spawn --detach --backend k8s --dry-run", () => {
  it("ariel-discover --json | ariel-spawn --source - ... -o yaml prints one valid Job per source", async () => {
    const discovered = await runAriel("discover", ["--json"], { cwd: root });
    expect(discovered.code).toBe(0);
    const r = await spawnK8s(
      [
        "--source",
        "-",
        "-o",
        "yaml",
        "--name",
        "agent",
        "--restart",
        "on-failure:2",
        "--timeout",
        "8h",
        "--task",
        "t1",
        "--",
        "claude",
        "-p",
        "fix it",
      ],
      discovered.stdout,
    );
    expect
      .soft(r.stderr)
      .toBe(
        `ariel-spawn: warning: base ${heads.web?.slice(0, 12)} of "web" is on no branch of origin that this checkout knows: the pod may not find it\n`,
      );
    expect(r.code).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => {
      expect(d.errors).toEqual([]);
      return validJob(d.toJS());
    });
    expect(
      docs.map((j) => [
        j.metadata.annotations["ariel.dev/source"],
        j.metadata.annotations["ariel.dev/run-name"],
      ]),
    ).toEqual([
      ["api", "agent@api"],
      ["web", "agent@web"],
    ]);
    for (const j of docs) {
      const source = j.metadata.annotations["ariel.dev/source"] as string;
      expect(j.metadata.annotations["ariel.dev/base"]).toBe(heads[source]);
      expect(j.metadata.annotations["ariel.dev/branch"]).toBe("ariel/t1");
      expect(j.metadata.labels["ariel.dev/task"]).toBe("t1");
      expect(j.metadata.labels["ariel.dev/run"]).toMatch(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/);
      expect(j.metadata.name).toBe(`ariel-${j.metadata.labels["ariel.dev/run"]?.toLowerCase()}`);
      expect([j.spec.backoffLimit, j.spec.activeDeadlineSeconds]).toEqual([2, 28800]);
    }
    expect(docs.map((j) => j.metadata.annotations["ariel.dev/remote"])).toEqual([
      join(root, ".remotes/api.git"),
      "https://git.example.com/acme/web.git",
    ]);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("--json prints one plan record per Job, from the same planner", async () => {
    const r = await spawnK8s(["--json", "--source", "api", "--namespace", "agents", "--", "make", "test"]);
    expect(r.code).toBe(0);
    const recs = records(r.stdout);
    expect(recs.map((x) => [x.type, x.action, x.source, x.namespace, x.name])).toEqual([
      ["plan", "k8s.job.create", "api", "agents", null],
    ]);
    const job = validJob(recs[0]?.job);
    expect(job.metadata.labels["ariel.dev/run"]).toBe(recs[0]?.runId);
    expect((job.spec.template.spec.containers as { command: string[] }[])[0]?.command.slice(3)).toEqual([
      "ariel-run",
      "make",
      "test",
    ]);
  });

  it("--detailed-exitcode exits 2 when there are Jobs to create", async () => {
    const r = await spawnK8s(["--source", "api", "--detailed-exitcode", "--", "true"]);
    const row = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => l.split(/\s+/));
    expect([r.code, row.length, row[0]?.slice(1, 5)]).toEqual([
      2,
      1,
      ["-", "api", "default", `ariel-${row[0]?.[0]?.toLowerCase()}`],
    ]);
  });

  it("config backend and k8s.* give the defaults; flags win", async () => {
    const ws = tempDir("ariel-k8s-cfg-");
    try {
      initRepo(join(ws, "api"));
      git(join(ws, "api"), "remote", "add", "origin", "git@github.com:acme/api.git");
      writeFile(
        join(ws, "ariel.config.json"),
        JSON.stringify({ backend: "k8s", k8s: { image: "cfg:1", namespace: "agents", limits: "cpu=2" } }),
      );
      const r = await runAriel(
        "spawn",
        [
          "-C",
          ws,
          "--source",
          "api",
          "--detach",
          "--dry-run",
          "-o",
          "yaml",
          "--namespace",
          "other",
          "--",
          "true",
        ],
        { cwd: ws },
      );
      expect(r.code).toBe(0);
      const jobs = parseAllDocuments(r.stdout).map((d) => validJob(d.toJS()));
      expect(jobs.length).toBe(1);
      const job = jobs[0] as Manifest;
      const run = (job.spec.template.spec.containers as { image: string; resources: unknown }[])[0];
      expect([job.metadata.namespace, run?.image, run?.resources]).toEqual([
        "other",
        "cfg:1",
        { limits: { cpu: "2" } },
      ]);
    } finally {
      removeDir(ws);
    }
  });
});

describe("refusals change nothing", () => {
  it.each([
    [
      "a source without a remote",
      [...K8S_DRY, "--source", "lib", "--", "true"],
      3,
      "ERR_NO_REMOTE",
      'source "lib" has no remote: a Kubernetes Job has nothing to clone from',
    ],
    [
      "-o other",
      [...K8S_DRY, "-o", "json", "--source", "api", "--", "true"],
      64,
      "ERR_USAGE",
      '-o must be yaml, got "json"',
    ],
    [
      "--keep",
      [...K8S_DRY, "--keep", "--source", "api", "--", "true"],
      64,
      "ERR_USAGE",
      "--keep is not available with --backend k8s",
    ],
    [
      "a bad --requests",
      [...K8S_DRY, "--requests", "cpu=lots", "--source", "api", "--", "true"],
      64,
      "ERR_USAGE",
      '--requests: "cpu=lots" is not a list like cpu=500m,memory=1Gi',
    ],
    [
      "no image",
      ["--detach", "--backend", "k8s", "--dry-run", "--source", "api", "--", "true"],
      64,
      "ERR_USAGE",
      "--backend k8s needs --image IMG (or config k8s.image)",
    ],
    [
      "creating Jobs with an unreadable kubeconfig",
      [
        "--detach",
        "--backend",
        "k8s",
        "--image",
        IMAGE,
        "--kubeconfig",
        "/nonexistent/kubeconfig",
        "--source",
        "api",
        "--",
        "true",
      ],
      66,
      "ERR_NOINPUT",
      "cannot read the kubeconfig /nonexistent/kubeconfig",
    ],
    [
      "--image without --backend k8s",
      ["--detach", "--dry-run", "--image", IMAGE, "--source", "api", "--", "true"],
      64,
      "ERR_USAGE",
      "--image needs --backend k8s",
    ],
    [
      "--backend without --detach",
      ["--backend", "k8s", "--source", "api", "--", "true"],
      64,
      "ERR_USAGE",
      "--backend needs --detach",
    ],
  ])("%s", async (_, args, code, errCode, message) => {
    const r = await runAriel("spawn", args, { cwd: errCode === "ERR_NO_REMOTE" ? bare : root });
    expect([r.code, r.stdout]).toEqual([code, ""]);
    expect(r.stderr.split("\n")[0]).toBe(`ariel-spawn: error: ${message} [${errCode}]`);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
    expect(existsSync(join(bare, ".ariel"))).toBe(false);
  });
});

/**
 * The k8s run's records (record.ts) in a temp workspace: a pending run (its directory and job.json
 * owner-only, run.json with the uid empty), the Job's uid and run.started recorded once, a refused
 * Job's failed end with one run.finished, the refusal re-said with the run's id, and job.json read
 * back (absent, unreadable, damaged, another version).
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorOf } from "../../../../_fixture.ts";
import { ArielError } from "../../../../errors.ts";
import { workspaceHash } from "../../../../hash.ts";
import { runPaths } from "../../../../runs/paths.ts";
import type { PlannedRun } from "../../../../runs/plan.ts";
import { removeDir, tempDir } from "../../../_fixture.ts";
import { runFields } from "../../../runs/_fixture.ts";
import { createRun, readRunSync } from "../../../runs/store.ts";
import { historyOf, JOB_PLAN as PLAN } from "./_k8s_fixture.ts";
import {
  JOB_NOT_CREATED,
  jobNotCreatedError,
  k8sJobCreated,
  k8sJobRefused,
  readJobPlan,
  recordPendingK8sRun,
} from "./record.ts";

const RUN = "20261202T110943Z-aaaaaa";
const JOB = "ariel-20261202t110943z-aaaaaa";
const AT = Date.UTC(2026, 11, 2, 12, 0, 0);
const AT_ISO = "2026-12-02T12:00:00.000Z";

let root = "";
let hash = "";
beforeEach(async () => {
  root = tempDir("ariel-k8s-record-");
  hash = await workspaceHash(root);
});
afterEach(() => removeDir(root));

/** The pending run RUN (task t1, group g, a k8s ref whose uid the record must empty). */
function planned(): PlannedRun & { k8s: NonNullable<PlannedRun["k8s"]> } {
  return runFields({ root, hash }, RUN, {
    backend: "k8s",
    task: "t1",
    group: "20261202T110943Z-gggggg",
    startedAt: null,
    k8s: { namespace: "agents", job: JOB, uid: "not-yet", kubeconfig: "/k/config" },
  }) as PlannedRun & { k8s: NonNullable<PlannedRun["k8s"]> };
}

const history = () => historyOf(root, RUN);

describe("recordPendingK8sRun and k8sJobCreated", () => {
  it("records the run (uid empty) and job.json, both owner-only, before any Job", async () => {
    await recordPendingK8sRun(root, planned(), PLAN);
    const p = runPaths(root, RUN);
    const { version: _v, fencingToken: _t, ...rec } = readRunSync(root, RUN);
    expect(rec).toEqual({
      ...planned(),
      k8s: { namespace: "agents", job: JOB, uid: "", kubeconfig: "/k/config" },
    });
    expect([
      readFileSync(p.job, "utf8"),
      statSync(p.dir).mode & 0o777,
      statSync(p.job).mode & 0o777,
      history(),
    ]).toEqual([`${JSON.stringify(PLAN)}\n`, 0o700, 0o600, []]);
  });

  it("the Job's uid and run.started are recorded once", async () => {
    await recordPendingK8sRun(root, planned(), PLAN);
    const run = await k8sJobCreated(root, RUN, "uid-1", AT);
    expect([run, run.k8s]).toEqual([
      readRunSync(root, RUN),
      { namespace: "agents", job: JOB, uid: "uid-1", kubeconfig: "/k/config" },
    ]);
    const again = await k8sJobCreated(root, RUN, "uid-2", AT + 1000);
    expect([again, history()]).toEqual([
      run,
      [
        {
          v: 1,
          type: "event",
          event: "run.started",
          runId: RUN,
          ts: AT_ISO,
          source: "api",
          argv: ["agent", "--go"],
          workspace: { root, hash },
          targets: ["api"],
          mode: "detached",
          task: "t1",
          name: "agent",
          group: "20261202T110943Z-gggggg",
          backend: "k8s",
          job: { namespace: "agents", name: JOB, uid: "uid-1" },
        },
      ],
    ]);
  });

  it("a run without a Job (a local run) is returned as it is", async () => {
    mkdirSync(runPaths(root, RUN).dir, { recursive: true });
    const made = await createRun(root, runFields({ root, hash }, RUN));
    expect([await k8sJobCreated(root, RUN, "uid-1", AT), history()]).toEqual([made, []]);
  });
});

describe("k8sJobRefused", () => {
  it("ends the run failed (1, job-not-created) with one run.finished; a second call changes nothing", async () => {
    await recordPendingK8sRun(root, planned(), PLAN);
    await k8sJobRefused(root, RUN, AT);
    const rec = readRunSync(root, RUN);
    expect([rec.endedAt, rec.exit, rec.startedAt, JOB_NOT_CREATED]).toEqual([
      AT_ISO,
      { code: null, signal: null, status: 1, endedAt: AT_ISO, state: "failed", reason: "job-not-created" },
      null,
      "job-not-created",
    ]);
    await k8sJobRefused(root, RUN, AT + 5000);
    expect([readRunSync(root, RUN), history()]).toEqual([
      rec,
      [
        {
          v: 1,
          type: "event",
          event: "run.finished",
          runId: RUN,
          ts: AT_ISO,
          source: null,
          state: "failed",
          status: 1,
          code: null,
          signal: null,
          reason: "job-not-created",
          restarts: 0,
        },
      ],
    ]);
  });
});

describe("jobNotCreatedError", () => {
  it("re-says an ArielError with the run's id and that it is recorded failed", () => {
    const e = jobNotCreatedError(
      new ArielError("ERR_BACKEND_UNAVAILABLE", "Kubernetes API: create Job failed with HTTP 403: no", {
        context: { op: "create" },
      }),
      RUN,
    ) as ArielError;
    expect(e instanceof ArielError && [e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_BACKEND_UNAVAILABLE",
      "Kubernetes API: create Job failed with HTTP 403: no",
      `run ${RUN} is recorded as failed (ariel-runs list --all); no Job was created`,
      69,
      { op: "create", runId: RUN },
    ]);
  });

  it("anything else is returned as it is", () => {
    const boom = new Error("boom");
    expect(jobNotCreatedError(boom, RUN)).toBe(boom);
  });
});

describe("readJobPlan", () => {
  const write = (text: string) => {
    mkdirSync(runPaths(root, RUN).dir, { recursive: true });
    writeFileSync(runPaths(root, RUN).job, text);
  };

  it("reads the plan back", () => {
    write(JSON.stringify(PLAN));
    expect(readJobPlan(root, RUN)).toEqual(PLAN);
  });

  it("no job.json: ERR_BACKEND_UNAVAILABLE (69), start a new Job instead", () => {
    const e = errorOf(() => readJobPlan(root, RUN));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_BACKEND_UNAVAILABLE",
      `cannot respawn ${RUN}: its Job plan was not recorded (the run is older than respawn on Kubernetes)`,
      "start a new Job with ariel-spawn --detach --backend k8s",
      69,
      { runId: RUN },
    ]);
  });

  it.each([
    ["not JSON", "{not json"],
    ["another version", JSON.stringify({ ...PLAN, v: 2 })],
    ["null", "null"],
  ])("%s: ERR_RECORD_CORRUPT", (_what, text) => {
    write(text);
    const path = runPaths(root, RUN).job;
    const e = errorOf(() => readJobPlan(root, RUN));
    expect([e.code, e.message, e.exit, e.context]).toEqual([
      "ERR_RECORD_CORRUPT",
      `run ${RUN}: ${path} is not a Job plan`,
      65,
      { runId: RUN, path },
    ]);
  });

  it("a job.json that cannot be read otherwise (a directory) fails with that error", async () => {
    mkdirSync(runPaths(root, RUN).job, { recursive: true });
    const e = await Promise.resolve()
      .then(() => readJobPlan(root, RUN))
      .catch((x: unknown) => x);
    expect([e instanceof ArielError, (e as NodeJS.ErrnoException).code]).toEqual([false, "EISDIR"]);
  });
});

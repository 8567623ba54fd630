/**
 * A child process for the multi-process durability tests (bundled by esbuild in the tests'
 * beforeAll; Node 20 cannot run .ts). `node worker.mjs <action> <json args>`; prints one JSON
 * line per event on stdout and exits with the ArielError's status on failure.
 */
import { isArielError } from "../../errors.ts";
import { acquireLease } from "../lease-store.ts";
import { acquireLockFile } from "../lock-file.ts";
import { readRecord, writeRecordCAS } from "../record-store.ts";
import { withRepoLock } from "../repo-lock.ts";

type Args = Record<string, unknown>;

const say = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(o)}\n`);

/** Block the whole process (timers too), like a stopped or swapped-out writer. */
function freeze(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const actions: Record<string, (a: Args) => Promise<void>> = {
  /** Read-modify-CAS-retry `n` increments of `count` (optionally under the task's lease). */
  async increment(a) {
    const path = a.path as string;
    let conflicts = 0;
    for (let i = 0; i < (a.n as number); i++) {
      for (;;) {
        const cur = await readRecord(path);
        const count = ((cur?.count as number | undefined) ?? 0) + 1;
        try {
          await writeRecordCAS(path, { count }, { expectVersion: cur?.version ?? 0, token: 0 });
          break;
        } catch (e) {
          if (isArielError(e) && e.code === "ERR_CONFLICT") conflicts++;
          else throw e;
        }
      }
    }
    say({ done: true, conflicts });
  },

  /** Take the lease, freeze past its TTL (no renewal can run), then try to write the record. */
  async "lease-freeze-write"(a) {
    const lease = await acquireLease(a.root as string, a.task as string, {
      owner: "frozen",
      ttlMs: a.ttlMs as number,
    });
    const cur = await readRecord(a.path as string);
    say({ leased: lease.token, version: cur?.version ?? 0 });
    freeze(a.freezeMs as number);
    await writeRecordCAS(
      a.path as string,
      { writer: "frozen" },
      { expectVersion: cur?.version ?? 0, token: lease.token, leasePath: lease.path },
    );
    say({ wrote: true });
  },

  /** Take the lease and hold it for `holdMs`. */
  async "hold-lease"(a) {
    const lease = await acquireLease(a.root as string, a.task as string, {
      owner: (a.owner as string) ?? "holder",
      ttlMs: (a.ttlMs as number) ?? 30_000,
    });
    say({ leased: lease.token });
    await new Promise((r) => setTimeout(r, a.holdMs as number));
    await lease.release();
    say({ released: true });
  },

  /** Take a lock file and hold it for `holdMs` (the test may SIGKILL us meanwhile). */
  async "hold-lock"(a) {
    const lock = await acquireLockFile(a.path as string, {});
    say({ locked: lock.holder.nonce, at: Date.now() });
    await new Promise((r) => setTimeout(r, a.holdMs as number));
    say({ releasing: true, at: Date.now() });
    await lock.release();
  },

  /** Count increments to a plain file inside the repository lock (mutual exclusion check). */
  async "repo-lock-append"(a) {
    for (let i = 0; i < (a.n as number); i++) {
      await withRepoLock(a.common as string, async () => {
        const fs = await import("node:fs/promises");
        const file = `${a.common as string}/counter`;
        const text = await fs.readFile(file, "utf8").catch(() => "0");
        await new Promise((r) => setTimeout(r, 1));
        await fs.writeFile(file, String(Number(text) + 1));
      });
    }
    say({ done: true });
  },
};

const [action, json] = process.argv.slice(2);
const fn = actions[action ?? ""];
if (!fn) {
  process.stderr.write(`unknown action ${action}\n`);
  process.exit(64);
}
try {
  await fn(JSON.parse(json ?? "{}") as Args);
} catch (e) {
  if (isArielError(e)) {
    say({ error: e.code, exit: e.exit, message: e.message });
    process.exitCode = e.exit;
  } else {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 70;
  }
}

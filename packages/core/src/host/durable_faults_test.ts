/**
 * The durability primitives (record store, lease store, lock files) on an in-memory filesystem
 * with planted faults: no real disk is touched, and each fault leaves exactly the state before.
 */
import { describe, expect, it } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import { FakeFs } from "../testing/fake_fs.ts";
import { faultyFs } from "../testing/faulty_fs.ts";
import { acquireLease, withLease } from "./lease-store.ts";
import { withLockFile } from "./lock-file.ts";
import { readRecord, writeRecordCAS } from "./record-store.ts";

const REC = "/ws/.ariel/tasks/t1.json";

function snapshot(fs: FakeFs): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, n] of fs.nodes) out[p] = n.kind === "file" ? (fs.text(p) ?? "") : n.kind;
  return out;
}

describe("record store on a faulty filesystem", () => {
  it.each(["ENOSPC", "EACCES", "EXDEV"])(
    "%s at the atomic write: old record kept, lock released",
    async (code) => {
      const mem = new FakeFs({ "/ws/.ariel/tasks": { dir: true } });
      await writeRecordCAS(REC, { n: 1 }, { expectVersion: 0, token: 1, fs: mem });
      const before = snapshot(mem);
      const fs = faultyFs(mem, [{ op: "writeAtomic", path: REC, code }]);
      await expect(writeRecordCAS(REC, { n: 2 }, { expectVersion: 1, token: 1, fs })).rejects.toMatchObject({
        code,
      });
      expect(snapshot(mem)).toEqual(before);
      expect((await readRecord(REC, { fs: mem }))?.n).toBe(1);
      expect(fs.log.at(-1)).toBe(`unlink ${REC}.lock`);
    },
  );

  it("EACCES taking the record lock: nothing written", async () => {
    const mem = new FakeFs({ "/ws/.ariel/tasks": { dir: true } });
    const fs = faultyFs(mem, [{ op: "createExclusive", path: `${REC}.lock`, code: "EACCES" }]);
    await expect(writeRecordCAS(REC, { n: 1 }, { expectVersion: 0, token: 1, fs })).rejects.toMatchObject({
      code: "EACCES",
    });
    expect([...mem.nodes.keys()].filter((p) => p.startsWith("/ws/.ariel/tasks/"))).toEqual([]);
  });
});

describe("lease store on a faulty filesystem", () => {
  it("ENOSPC writing the lease: no lease is held, the lock is released, a retry works", async () => {
    const mem = new FakeFs({ "/ws": { dir: true } });
    const fs = faultyFs(mem, [
      { op: "writeAtomic", path: "/ws/.ariel/leases/t1.json", code: "ENOSPC", times: 1 },
    ]);
    await expect(acquireLease("/ws", "t1", { owner: "a", fs })).rejects.toMatchObject({ code: "ENOSPC" });
    expect(mem.nodes.has("/ws/.ariel/leases/t1.json")).toBe(false);
    expect(mem.nodes.has("/ws/.ariel/leases/t1.json.lock")).toBe(false);
    expect(await withLease("/ws", "t1", { owner: "a", fs }, async (l) => l.token)).toBe(1);
  });

  it("a lease taken over between two fenced steps: the second step never runs", async () => {
    const mem = new FakeFs({ "/ws": { dir: true } });
    const ran: string[] = [];
    const e = await arielErrorOf(
      withLease("/ws", "t1", { owner: "a", fs: mem, renew: false }, async (lease) => {
        await lease.fenced(async () => void ran.push("first"));
        const stolen = JSON.parse(mem.text("/ws/.ariel/leases/t1.json") ?? "");
        mem.put("/ws/.ariel/leases/t1.json", JSON.stringify({ ...stolen, token: 2, owner: "b" }));
        await lease.fenced(async () => void ran.push("second"));
      }),
    );
    expect([e.code, e.context.token, e.context.leaseToken, ran]).toEqual(["ERR_FENCED", 1, 2, ["first"]]);
    // Release leaves the successor's lease alone.
    expect(JSON.parse(mem.text("/ws/.ariel/leases/t1.json") ?? "").owner).toBe("b");
  });
});

describe("lock files on a faulty filesystem", () => {
  it("EACCES unlinking at release: the error surfaces after fn ran", async () => {
    const mem = new FakeFs({ "/ws": { dir: true } });
    const fs = faultyFs(mem, [{ op: "unlink", path: "/ws/x.lock", code: "EACCES" }]);
    await expect(withLockFile("/ws/x.lock", { fs }, async () => "ran")).rejects.toMatchObject({
      code: "EACCES",
    });
    expect(fs.log).toEqual([
      "createExclusive /ws/x.lock",
      "readFileNoFollow /ws/x.lock",
      "unlink /ws/x.lock",
    ]);
  });
});

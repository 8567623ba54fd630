/**
 * Following a k8s run's log (follow.ts) against a small API server on 127.0.0.1 that answers each
 * log request as the test scripts it: the exact log requests (follow, timestamps, sinceTime of a
 * reconnect), the bytes written and their sequences (`from` cut inside a line, a retry's pod from
 * 0, lines split over chunks, a last line without its newline), what a drop, a refusal (400, 404,
 * 5xx), a hang-up and a 401 each lead to (sleep and reopen, wait for the run, throw), the extra
 * pass once the run is final, and an abort.
 */
import { getEventListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ArielError } from "../../../../errors.ts";
import { KubeClient, type KubeObject } from "./client.ts";
import { type FollowDeps, followK8sLog } from "./follow.ts";

const TOKEN = "f0llow-t0ken";
type Answer = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server answering its n-th request with `answers[n]` (a request past them is a 599); the URLs it saw. */
async function serve(answers: Answer[]): Promise<{ client: KubeClient; urls: string[]; closed: boolean[] }> {
  const urls: string[] = [];
  const closed: boolean[] = [];
  const server = createServer((req, res) => {
    const n = urls.length;
    urls.push(`${req.method} ${req.url}`);
    closed.push(false);
    res.on("close", () => {
      closed[n] = true;
    });
    const answer = answers[n] ?? ((_q, r) => status(599, "unexpected")(_q, r));
    answer(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const client = new KubeClient({
    server: `http://127.0.0.1:${port}`,
    ca: null,
    insecure: false,
    token: TOKEN,
    cert: null,
    key: null,
    namespace: null,
  });
  return { client, urls, closed };
}

/** The whole log, then the end (the container terminated). */
const body =
  (text: string): Answer =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(text);
  };

/** `parts` one by one (separate chunks), then the end, or the connection cut (`drop`), or kept open (`hold`). */
const chunks =
  (parts: string[], then: "end" | "drop" | "hold"): Answer =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    const next = (i: number) => {
      if (i === parts.length) {
        if (then === "end") res.end();
        if (then === "drop") res.socket?.destroy();
        return;
      }
      res.write(parts[i], () => setTimeout(() => next(i + 1), 25));
    };
    next(0);
  };

const status =
  (code: number, message: string): Answer =>
  (_req, res) => {
    res.writeHead(code, { "content-type": "application/json" });
    res.end(JSON.stringify({ message }));
  };

/** No answer: the connection is cut. */
const hangUp: Answer = (req) => req.socket.destroy();

const pod = (name: string, created: string): KubeObject => ({
  metadata: { name, creationTimestamp: created },
});
const P1 = pod("p1", "2026-12-02T10:01:00Z");
const P2 = pod("p2", "2026-12-02T10:02:00Z");

const TS1 = "2026-12-02T10:00:00.1Z";
const TS2 = "2026-12-02T10:00:00.2Z";
const TS3 = "2026-12-02T10:00:01Z";
const LOG = (pod: string) =>
  `GET /api/v1/namespaces/agents/pods/${pod}/log?container=run&follow=true&timestamps=true`;
const SINCE0 = "&sinceTime=2026-12-02T10%3A00%3A00Z";
const SINCE1 = "&sinceTime=2026-12-02T10%3A00%3A01Z";

/** Deps that script the pods (one list per call, the last repeated) and final (false past the list); every call in `trace`. */
function script(podLists: KubeObject[][], finals: boolean[], signal?: AbortSignal) {
  const trace: string[] = [];
  let p = 0;
  let f = 0;
  const deps: FollowDeps = {
    pods: async () => {
      trace.push("pods");
      return podLists[Math.min(p++, podLists.length - 1)] ?? [];
    },
    final: async () => {
      trace.push("final");
      return finals[f++] ?? false;
    },
    wait: async (ms) => {
      trace.push(`wait ${ms}`);
    },
    ...(signal ? { signal } : {}),
  };
  return { trace, deps };
}

/** Resolves with `p`'s value, or "still waiting" after `ms` (a bound, not a timing assert). */
function within<T>(p: Promise<T>, ms = 3000): Promise<T | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"still waiting">((r) => {
    timer = setTimeout(() => r("still waiting"), ms);
  });
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

/** Follow from `from`; what was written (sequence, text), what the deps saw, and how it ended. */
async function follow(client: KubeClient, from: number, deps: FollowDeps) {
  const writes: [number, string][] = [];
  const ended = await within(
    followK8sLog(
      client,
      "agents",
      from,
      (seq, bytes) => writes.push([seq, Buffer.from(bytes).toString()]),
      deps,
    ).then(
      () => "done",
      (e: unknown) => (e instanceof ArielError ? { code: e.code, message: e.message, exit: e.exit } : e),
    ),
  );
  return { writes, ended };
}

describe("followK8sLog: one pod to its end", () => {
  // A complete stream, then (the run final) one more pass from sinceTime: only the new line.
  it("reads the log, then once final a last pass from the last line's second: nothing twice", async () => {
    const s = await serve([body(`${TS1} a\n${TS2} bc\n`), body(`${TS1} a\n${TS2} bc\n${TS3} d\n`)]);
    const { trace, deps } = script([[P1]], [true]);
    expect(await follow(s.client, 0, deps)).toEqual({
      writes: [
        [0, "a\n"],
        [2, "bc\n"],
        [5, "d\n"],
      ],
      ended: "done",
    });
    expect([trace, s.urls]).toEqual([
      ["pods", "final", "pods"],
      [LOG("p1"), LOG("p1") + SINCE0],
    ]);
  });

  // Bytes below `from` are skipped; a line it cuts is written from `from` on.
  it.each([
    [
      0,
      [
        [0, "ab\n"],
        [3, "cdef\n"],
      ],
    ],
    [
      2,
      [
        [2, "\n"],
        [3, "cdef\n"],
      ],
    ],
    [3, [[3, "cdef\n"]]],
    [4, [[4, "def\n"]]],
    [8, []],
    [100, []],
  ])("from %i", async (from, writes) => {
    const s = await serve([body(`${TS1} ab\n${TS2} cdef\n`), body(`${TS1} ab\n${TS2} cdef\n`)]);
    const { deps } = script([[P1]], [true]);
    expect(await follow(s.client, from, deps)).toEqual({ writes, ended: "done" });
  });
});

describe("followK8sLog: one pod, several passes", () => {
  // Not final after a complete stream: wait for the run (2 s at most), read again.
  it("a complete stream of a run not final yet: waits for a change, reads on from where it was", async () => {
    const s = await serve([body(`${TS1} a\n`), body(`${TS1} a\n${TS2} b\n`), body(`${TS1} a\n${TS2} b\n`)]);
    const { trace, deps } = script([[P1]], [false, true]);
    expect(await follow(s.client, 0, deps)).toEqual({
      writes: [
        [0, "a\n"],
        [2, "b\n"],
      ],
      ended: "done",
    });
    expect([trace, s.urls]).toEqual([
      ["pods", "final", "wait 2000", "pods", "final", "pods"],
      [LOG("p1"), LOG("p1") + SINCE0, LOG("p1") + SINCE0],
    ]);
  });

  // Chunks split lines anywhere; a line without a timestamp is written as it is; the last line
  // of a complete log needs no newline.
  it("lines split over chunks, a bare newline first, a last line without its newline", async () => {
    const s = await serve([chunks(["\n", `${TS1} ab`, `c\n${TS2} d\n${TS3} ta`, "il"], "end"), body("")]);
    const { trace, deps } = script([[P1]], [true]);
    expect(await follow(s.client, 0, deps)).toEqual({
      writes: [
        [0, "\n"],
        [1, "abc\n"],
        [5, "d\n"],
        [7, "tail"],
      ],
      ended: "done",
    });
    expect([trace, s.urls]).toEqual([
      ["pods", "final", "pods"],
      [LOG("p1"), LOG("p1") + SINCE1],
    ]);
  });
}, 20_000);

describe("followK8sLog: pods come and go", () => {
  // A retry's pod is new output: from 0 again, whatever `from` was.
  it("a retry's newer pod starts again at 0", async () => {
    const s = await serve([body(`${TS1} ab\n${TS2} cdef\n`), body(`${TS1} x\n`), body(`${TS1} x\n`)]);
    const { trace, deps } = script([[P1], [P1, P2]], [false, true]);
    expect(await follow(s.client, 4, deps)).toEqual({
      writes: [
        [4, "def\n"],
        [0, "x\n"],
      ],
      ended: "done",
    });
    expect([trace, s.urls]).toEqual([
      ["pods", "final", "wait 2000", "pods", "final", "pods"],
      [LOG("p1"), LOG("p2"), LOG("p2") + SINCE0],
    ]);
  });

  // No pod yet: nothing asked of the API; wait for the run.
  it("no pod yet: no log request, waits, then reads the pod that came", async () => {
    const s = await serve([body(`${TS1} a\n`), body("")]);
    const { trace, deps } = script([[], [P1]], [false, true]);
    expect(await follow(s.client, 0, deps)).toEqual({ writes: [[0, "a\n"]], ended: "done" });
    expect([trace, s.urls]).toEqual([
      ["pods", "final", "wait 2000", "pods", "final", "pods"],
      [LOG("p1"), LOG("p1") + SINCE0],
    ]);
  });

  // A run that ends with no pod: the last pass finds none either.
  it("a run final without a pod writes nothing and asks for no log", async () => {
    const s = await serve([]);
    const { trace, deps } = script([[]], [true]);
    expect(await follow(s.client, 0, deps)).toEqual({ writes: [], ended: "done" });
    expect([trace, s.urls]).toEqual([["pods", "final", "pods"], []]);
  });
}, 20_000);

describe("followK8sLog: drops", () => {
  // A drop: reopened after 200 ms (no wait for the run) from the last line's second; the lines
  // already printed are dropped by their timestamps, half a line is not written.
  it("a dropped stream is reopened from sinceTime without a lost or repeated line", async () => {
    const ac = new AbortController();
    const s = await serve([
      chunks([`${TS1} a\n${TS2} b\n${TS3} ha`], "drop"),
      body(`${TS1} a\n${TS2} b\n${TS3} half\n`),
      body(`${TS3} half\n`),
    ]);
    const { trace, deps } = script([[P1]], [false, true], ac.signal);
    expect(await follow(s.client, 0, deps)).toEqual({
      writes: [
        [0, "a\n"],
        [2, "b\n"],
        [4, "half\n"],
      ],
      ended: "done",
    });
    expect([trace, s.urls]).toEqual([
      ["pods", "final", "pods", "final", "pods"],
      [LOG("p1"), LOG("p1") + SINCE0, LOG("p1") + SINCE1],
    ]);
    expect(getEventListeners(ac.signal, "abort")).toEqual([]);
  });

  // Final already seen: a drop on the last pass is reopened, not the end.
  it("a drop on the last pass is reopened until a complete stream", async () => {
    const s = await serve([
      body(`${TS1} a\n`),
      chunks([`${TS1} a\n${TS2} b\n`], "drop"),
      body(`${TS1} a\n${TS2} b\n${TS3} c\n`),
    ]);
    const { trace, deps } = script([[P1]], [true]);
    expect(await follow(s.client, 0, deps)).toEqual({
      writes: [
        [0, "a\n"],
        [2, "b\n"],
        [4, "c\n"],
      ],
      ended: "done",
    });
    expect([trace, s.urls]).toEqual([
      ["pods", "final", "pods", "pods"],
      [LOG("p1"), LOG("p1") + SINCE0, LOG("p1") + SINCE0],
    ]);
  });
});

describe("followK8sLog: refusals", () => {
  // An answer that is an error (waiting to start, gone, failing): nothing now, wait for the run.
  it.each([
    [400, "container is waiting to start"],
    [404, 'pods "p1" not found'],
    [422, "bad"],
    [500, "boom"],
  ])("HTTP %i: wait for the run, then read", async (code, message) => {
    const s = await serve([status(code, message), body(`${TS1} a\n`), body("")]);
    const { trace, deps } = script([[P1]], [false, true]);
    expect(await follow(s.client, 0, deps)).toEqual({ writes: [[0, "a\n"]], ended: "done" });
    expect([trace, s.urls]).toEqual([
      ["pods", "final", "wait 2000", "pods", "final", "pods"],
      [LOG("p1"), LOG("p1"), LOG("p1") + SINCE0],
    ]);
  });

  // A hang-up before any answer is a drop: reopened after 200 ms, no wait for the run.
  it("a hang-up before the answer is reopened like a drop", async () => {
    const s = await serve([hangUp, body(`${TS1} a\n`), body("")]);
    const { trace, deps } = script([[P1]], [false, true]);
    expect(await follow(s.client, 0, deps)).toEqual({ writes: [[0, "a\n"]], ended: "done" });
    expect([trace, s.urls]).toEqual([
      ["pods", "final", "pods", "final", "pods"],
      [LOG("p1"), LOG("p1"), LOG("p1") + SINCE0],
    ]);
  });

  // Forbidden: not a state of the pod; the follow fails with the API's error.
  it.each([
    [401, "Unauthorized"],
    [403, "forbidden"],
  ])("HTTP %i fails the follow (ERR_BACKEND_UNAVAILABLE)", async (code, message) => {
    const s = await serve([status(code, message)]);
    const { trace, deps } = script([[P1]], [true]);
    expect(await follow(s.client, 0, deps)).toEqual({
      writes: [],
      ended: {
        code: "ERR_BACKEND_UNAVAILABLE",
        message: `Kubernetes API: read pod log failed with HTTP ${code}: ${message}`,
        exit: 69,
      },
    });
    expect([trace, s.urls]).toEqual([["pods"], [LOG("p1")]]);
  });
}, 20_000);

describe("followK8sLog: abort", () => {
  // An abort closes the open stream and returns at once: the run's state is not asked.
  it("an abort mid-stream closes the connection and returns", async () => {
    const ac = new AbortController();
    const s = await serve([chunks([`${TS1} a\n`], "hold")]);
    const { trace, deps } = script([[P1]], [true], ac.signal);
    const writes: [number, string][] = [];
    const ended = await within(
      followK8sLog(
        s.client,
        "agents",
        0,
        (seq, bytes) => {
          writes.push([seq, Buffer.from(bytes).toString()]);
          ac.abort();
        },
        deps,
      ).then(() => "done"),
    );
    expect([ended, writes, trace, s.urls]).toEqual(["done", [[0, "a\n"]], ["pods"], [LOG("p1")]]);
    for (let i = 0; i < 100 && !s.closed[0]; i++) await new Promise((r) => setTimeout(r, 10));
    expect(s.closed).toEqual([true]);
  });

  it("an aborted signal: nothing is asked", async () => {
    const s = await serve([]);
    const { trace, deps } = script([[P1]], [true], AbortSignal.abort());
    expect(await follow(s.client, 0, deps)).toEqual({ writes: [], ended: "done" });
    expect([trace, s.urls]).toEqual([[], []]);
  });
});

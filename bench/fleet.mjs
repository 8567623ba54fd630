// ariel-fleet serve benchmarks. Ratios against baselines measured in the same run; never fails on time.
//   1. GET /api/fleet over 20 workspaces x 50 runs (`--smoke`: 4 x 10): requests/s and p99 latency
//      with a bounded local load loop on 127.0.0.1, against Hono's hello-world on @hono/node-server;
//   2. SSE: 100 clients (`--smoke`: 10) on one run whose history grows by 1,000 lines/s: lines
//      delivered per second against lines written x clients, and the server's CPU time.
// Run: node bench/fleet.mjs [--smoke] [--sse (the SSE part only)]   (needs `node scripts/setup.mjs` first)
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg } from "node:os";
import { join } from "node:path";
import { builtCli, flag, git, REPO_ROOT as repoRoot, smoke, tempDir } from "./_env.mjs";
import { sha256Hex } from "./_sha.mjs";

const sseOnly = flag("sse");
const { bin } = builtCli("fleet", "bench/fleet");
const { bin: spawnBin } = builtCli("spawn", "bench/fleet");
const WORKSPACES = smoke ? 4 : 20;
const RUNS = smoke ? 10 : 50;
const REQUESTS = smoke ? 40 : 100;
const CONCURRENCY = 4;
const CLIENTS = smoke ? 10 : 100;
const SSE_SECONDS = smoke ? 1 : 5;
const LINES_PER_SECOND = 1000;

const tmp = tempDir("ariel-bench-fleet-");
const state = join(tmp, "state");
const children = [];

function runId(w, r) {
  return `20261202T11${String(w).padStart(2, "0")}${String(r % 60).padStart(2, "0")}Z-${(w * 1000 + r).toString(36).padStart(6, "0")}`;
}

function history(id, ts, pid, lines, finished) {
  const ev = (event, f) => JSON.stringify({ v: 1, type: "event", event, runId: id, ts, source: ".", ...f });
  const out = [ev("run.started", { argv: ["make", "test"], targets: ["."], mode: "shared", jobs: 1, pid })];
  out.push(ev("process.started", { pid: 1, cwd: "/", argv: ["make", "test"] }));
  for (let i = 0; i < lines; i++) out.push(ev("output", { stream: "stdout", line: `line ${i}` }));
  if (finished) {
    out.push(ev("process.exited", { code: 0, signal: null, status: 0 }));
    out.push(
      ev("run.finished", {
        source: null,
        summary: { targets: 1, succeeded: 1, failed: 0, skipped: 0, exit: 0 },
      }),
    );
  }
  return `${out.join("\n")}\n`;
}

/** A fleet of WORKSPACES x RUNS finished foreground runs, registered in a private state home. */
async function makeFleet() {
  mkdirSync(join(state, "workspaces"), { recursive: true });
  for (let w = 0; w < WORKSPACES; w++) {
    const root = join(tmp, `ws${w}`);
    mkdirSync(join(root, ".git"), { recursive: true });
    writeFileSync(join(root, ".git/HEAD"), "ref: refs/heads/main\n");
    mkdirSync(join(root, ".ariel/runs"), { recursive: true });
    for (let r = 0; r < RUNS; r++) {
      const id = runId(w, r);
      writeFileSync(
        join(root, ".ariel/runs", `${id}.ndjson`),
        history(id, "2026-12-02T11:00:00.000Z", 1, 5, true),
      );
    }
    const hash = (await sha256Hex(root)).slice(0, 16);
    writeFileSync(
      join(state, "workspaces", `${hash}.json`),
      JSON.stringify({ v: 1, root, hash, firstSeen: "2026-12-02T11:00:00.000Z" }),
    );
  }
}

/** Start a child that prints its URL as the first line of stdout (JSON or plain). */
function startServer(args, env = {}) {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.once("exit", (c) => reject(new Error(`server exited (${c}) before listening`)));
    child.stdout.on("data", (b) => {
      out += b;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      const line = out.slice(0, nl);
      resolve({ child, url: line.startsWith("{") ? JSON.parse(line).url : line });
    });
  });
}

/** `total` GETs of `url`, `CONCURRENCY` at a time over keep-alive: requests/s and p99 ms. */
async function load(url, total) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const get = () =>
    new Promise((resolve, reject) => {
      const t = process.hrtime.bigint();
      const req = request(url, { agent }, (res) => {
        res.on("data", () => {});
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(Number(process.hrtime.bigint() - t) / 1e6)
            : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end();
    });
  for (let i = 0; i < CONCURRENCY; i++) await get(); // warm-up
  const times = [];
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        next++;
        times.push(await get());
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  agent.destroy();
  times.sort((a, b) => a - b);
  return { rps: total / secs, p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] };
}

function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8")
    .slice(readFileSync(`/proc/${pid}/stat`, "utf8").lastIndexOf(")") + 2)
    .split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, at 100 ticks/s
}

/** The SSE readers' process (bench/_sse_clients.mjs): resolves once every client is connected. */
function startClients(url) {
  const child = spawn(process.execPath, [join(repoRoot, "bench/_sse_clients.mjs"), url, String(CLIENTS)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  let out = "";
  const waiters = [];
  child.stdout.on("data", (b) => {
    out += b;
    for (let nl = out.indexOf("\n"); nl >= 0; nl = out.indexOf("\n")) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      waiters.shift()?.(line);
    }
  });
  const next = () => new Promise((r) => waiters.push(r));
  return next().then(() => ({
    child,
    /** A command; "stop" answers with one line. */
    send: (cmd) => {
      const reply = cmd === "stop" || cmd === "wait" ? next() : Promise.resolve(null);
      child.stdin.write(`${cmd}\n`);
      return reply;
    },
  }));
}

/** Appends `lines()` to `path` at LINES_PER_SECOND; returns a function that stops and counts. */
function writer(path, line) {
  let written = 0;
  const t0 = Date.now();
  const timer = setInterval(() => {
    const due = Math.floor(((Date.now() - t0) / 1000) * LINES_PER_SECOND) - written;
    if (due <= 0) return;
    let chunk = "";
    for (let i = 0; i < due; i++) chunk += line(written + i);
    appendFileSync(path, chunk);
    written += due;
  }, 10);
  return () => {
    clearInterval(timer);
    return written;
  };
}

/**
 * SSE: CLIENTS readers (in their own process) of one run whose history grows by
 * LINES_PER_SECOND; the server's CPU, the readers' CPU and the load average over the run.
 */
async function sse(url, server) {
  const root = join(tmp, "ws0");
  const id = "20261202T120000Z-sse000";
  const path = join(root, ".ariel/runs", `${id}.ndjson`);
  writeFileSync(path, history(id, new Date().toISOString(), process.pid, 0, false));
  const clients = await startClients(`${url}api/runs/${id}/stream`);
  await new Promise((r) => setTimeout(r, 300));
  const cpu0 = cpuMs(server);
  const load0 = loadavg()[0];
  await clients.send("start");
  const t0 = Date.now();
  const ts = new Date().toISOString();
  const stopWriting = writer(
    path,
    (n) =>
      `${JSON.stringify({ v: 1, type: "event", event: "output", runId: id, ts, source: ".", stream: "stdout", line: `line ${n}` })}\n`,
  );
  await new Promise((r) => setTimeout(r, SSE_SECONDS * 1000));
  const written = stopWriting();
  await new Promise((r) => setTimeout(r, 300)); // let the readers catch up
  const secs = (Date.now() - t0) / 1000;
  const cpu = cpuMs(server) - cpu0;
  const { delivered, cpuMs: clientCpu } = JSON.parse(await clients.send("stop"));
  return { written, delivered, secs, cpu, clientCpu, load: [load0, loadavg()[0]] };
}

/**
 * SSE on a real detached run (`ariel-spawn --detach`) whose child prints LINES_PER_SECOND lines
 * to its stdout file for SSE_SECONDS: CLIENTS readers follow it to its end.
 */
async function sseDetached(url, server) {
  const root = join(tmp, "wsd");
  mkdirSync(root);
  git(root, "init", "-q");
  const lines = LINES_PER_SECOND * SSE_SECONDS;
  // Waits 1.5 s (the readers connect), then prints at the rate until `lines`, then exits.
  const script = `setTimeout(()=>{let n=0;const t0=Date.now();const t=setInterval(()=>{const due=Math.min(${lines},Math.floor((Date.now()-t0)*${LINES_PER_SECOND}/1000));let s="";while(n<due)s+="line "+(n++)+"\\n";if(s)process.stdout.write(s);if(n>=${lines})clearInterval(t)},10)},1500)`;
  const r = spawnSync(
    process.execPath,
    [spawnBin, "-C", root, "--detach", "--json", "--", process.execPath, "-e", script],
    { env: { ...process.env, ARIEL_STATE_HOME: state, ARIEL_MONITOR_IDLE_MS: "500" }, encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`ariel-spawn --detach: ${r.stderr}`);
  const id = JSON.parse(r.stdout).runId;
  const clients = await startClients(`${url}api/runs/${id}/stream`);
  const cpu0 = cpuMs(server);
  const load0 = loadavg()[0];
  await clients.send("start");
  const t0 = Date.now();
  const { delivered, cpuMs: clientCpu, secs } = JSON.parse(await clients.send("wait"));
  const cpu = cpuMs(server) - cpu0;
  const wall = (Date.now() - t0) / 1000;
  return { written: lines, delivered, secs, wall, cpu, clientCpu, load: [load0, loadavg()[0]] };
}

/** Wait (up to 10 s) for the detached run's monitor to exit (it idles out 500 ms after the run). */
async function monitorGone(root) {
  let pid;
  try {
    pid = JSON.parse(readFileSync(join(root, ".ariel/monitor.json"), "utf8")).pid;
  } catch {
    return;
  }
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
}

/** GET /api/fleet against Hono's hello-world, interleaved so that machine noise hits both alike. */
async function fleetLoad(fleetUrl, helloUrl) {
  const a = [];
  const b = [];
  for (let i = 0; i < 2; i++) {
    b.push(await load(helloUrl, REQUESTS * 5));
    a.push(await load(`${fleetUrl}api/fleet`, REQUESTS / 2));
  }
  const best = (xs) => xs.reduce((m, x) => (x.rps > m.rps ? x : m));
  const f = best(a);
  const h = best(b);
  console.log(
    `GET /api/fleet (${WORKSPACES} workspaces x ${RUNS} runs): ${f.rps.toFixed(1)} req/s, p99 ${f.p99.toFixed(1)} ms`,
  );
  console.log(`Hono hello-world:                 ${h.rps.toFixed(1)} req/s, p99 ${h.p99.toFixed(2)} ms`);
  console.log(
    `ratio: ${(f.rps / h.rps).toFixed(4)}x the requests/s of hello-world, p99 ${(f.p99 / h.p99).toFixed(1)}x`,
  );
}

try {
  await makeFleet();
  const fleet = await startServer([bin, "serve", "--addr", "127.0.0.1:0", "--json"], {
    ARIEL_STATE_HOME: state,
  });
  const hello = await startServer([join(repoRoot, "bench/_hono_hello.mjs")]);
  const snapshot = await (await fetch(`${fleet.url}api/fleet`)).json();
  const runsSeen = snapshot.workspaces.reduce((n, w) => n + w.runs.exited, 0);
  if (runsSeen !== WORKSPACES * RUNS)
    throw new Error(`the fleet shows ${runsSeen} runs, not ${WORKSPACES * RUNS}`);
  if (!sseOnly) await fleetLoad(fleet.url, hello.url);
  const s = await sse(fleet.url, fleet.child.pid);
  const want = s.written * CLIENTS;
  const pct = (ms) => `${((100 * ms) / (s.secs * 1000)).toFixed(0)}%`;
  console.log(
    `SSE: ${CLIENTS} clients on one run, ${s.written} lines written in ${s.secs.toFixed(1)} s: ` +
      `${(s.delivered / s.secs).toFixed(0)} lines/s delivered (${((100 * s.delivered) / want).toFixed(1)}% of written x clients), ` +
      `server CPU ${pct(s.cpu)} of one core, readers' process ${pct(s.clientCpu)}, load average ${s.load.map((l) => l.toFixed(1)).join(" -> ")}`,
  );
  const d = await sseDetached(fleet.url, fleet.child.pid);
  const dpct = (ms) => `${((100 * ms) / (d.wall * 1000)).toFixed(0)}%`;
  console.log(
    `SSE: ${CLIENTS} clients on one detached run printing ${d.written} lines at ${LINES_PER_SECOND}/s: ` +
      `${(d.delivered / d.secs).toFixed(0)} lines/s delivered (${((100 * d.delivered) / (d.written * CLIENTS)).toFixed(1)}% of written x clients, ` +
      `the last stream ended ${(d.secs - SSE_SECONDS).toFixed(1)} s after the writing), ` +
      `server CPU ${dpct(d.cpu)} of one core, readers' process ${dpct(d.clientCpu)}, load average ${d.load.map((l) => l.toFixed(1)).join(" -> ")}`,
  );
} finally {
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  await Promise.all(
    children.map((c) => (c.exitCode === null ? new Promise((r) => c.once("exit", r)) : null)),
  );
  await monitorGone(join(tmp, "wsd"));
  rmSync(tmp, { recursive: true, force: true });
}

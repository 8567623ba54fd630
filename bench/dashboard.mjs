// The dashboard with live terminals (docs/fleet.md, Dashboard): N detached runs of which T are tty
// runs printing a line every 100 ms (N = 50, T = 5; `--smoke`: 10 and 2), `ariel-fleet serve`, and
// headless Chromium with the T terminals open side by side. Reports the page's frame rate
// (requestAnimationFrame callbacks per second over a window) and the server's CPU over the same
// window. Nothing to compare against in the same run: the figures are reported, never asserted.
// Skipped without chromium on PATH. Run: node bench/dashboard.mjs [--smoke]
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { chromium } from "playwright-core";
import { benchEnv, builtCli, git, loadAverage, smoke, tempDir } from "./_env.mjs";
import { sha256Hex } from "./_sha.mjs";

const RUNS = smoke ? 10 : 50;
const TERMINALS = smoke ? 2 : 5;
const WINDOW_MS = smoke ? 2000 : 5000;
const fleetBin = builtCli("fleet", "bench/dashboard").bin;
const spawnBin = builtCli("spawn", "bench/dashboard").bin;

const CHROMIUM = (process.env.PATH ?? "")
  .split(delimiter)
  .flatMap((d) => (d === "" ? [] : ["chromium", "chromium-browser"].map((n) => join(d, n))))
  .find((p) => existsSync(p));
if (!CHROMIUM) {
  console.log("dashboard: skipped, no chromium on PATH");
  process.exit(0);
}

const tmp = tempDir("ariel-bench-dashboard-");
const root = join(tmp, "ws");
const state = join(tmp, "state");
const env = benchEnv({ ARIEL_STATE_HOME: state, ARIEL_MONITOR_IDLE_MS: "30000" });

function cpuMs(pid) {
  const t = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = t.slice(t.lastIndexOf(")") + 2).split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

function spawnRun(args) {
  const r = spawnSync(process.execPath, [spawnBin, "-C", root, "--detach", "--shared", ...args], {
    env,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`ariel-spawn ${args.join(" ")}: ${r.stderr}`);
}

function startServer() {
  const child = spawn(process.execPath, [fleetBin, "serve", "--addr", "127.0.0.1:0", "--json"], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.once("exit", (c) => reject(new Error(`ariel-fleet serve exited (${c})`)));
    child.stdout.on("data", (b) => {
      out += b;
      if (out.includes("\n")) resolve({ child, url: JSON.parse(out.slice(0, out.indexOf("\n"))).url });
    });
  });
}

let server = null;
let browser = null;
try {
  mkdirSync(join(state, "workspaces"), { recursive: true });
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "commit", "-q", "--allow-empty", "-m", "initial");
  const hash = (await sha256Hex(root)).slice(0, 16);
  writeFileSync(
    join(state, "workspaces", `${hash}.json`),
    JSON.stringify({ v: 1, root, hash, firstSeen: "2026-12-02T11:00:00.000Z" }),
  );
  for (let i = 0; i < RUNS - TERMINALS; i++) spawnRun(["--name", `quiet-${i}`, "--", "sleep", "600"]);
  const ticker = ["sh", "-c", "while :; do date +%T.%N; sleep 0.1; done"];
  for (let i = 0; i < TERMINALS; i++)
    spawnRun(["--tty", "--size", "60x10", "--name", `term-${i}`, "--", ...ticker]);
  server = await startServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
    headless: true,
  });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
  await page.goto(server.url);
  for (let i = 0; i < TERMINALS; i++)
    await page.getByRole("button", { name: `Terminal of term-${i}`, exact: true }).click();
  await page.waitForFunction(
    (n) => document.querySelectorAll(".term-pane .xterm-rows").length === n,
    TERMINALS,
  );
  const cpu0 = cpuMs(server.child.pid);
  const frames = await page.evaluate(
    (ms) =>
      new Promise((resolve) => {
        let n = 0;
        const end = performance.now() + ms;
        const tick = () => {
          n++;
          if (performance.now() < end) requestAnimationFrame(tick);
          else resolve(n);
        };
        requestAnimationFrame(tick);
      }),
    WINDOW_MS,
  );
  const cpu = cpuMs(server.child.pid) - cpu0;
  console.log(`dashboard: ${RUNS} runs, ${TERMINALS} live terminals, load average ${loadAverage()}`);
  console.log(`page frame rate  ${((frames * 1000) / WINDOW_MS).toFixed(1)} frames/s over ${WINDOW_MS} ms`);
  console.log(`server CPU       ${((cpu / WINDOW_MS) * 100).toFixed(1)}% of one core (${cpu.toFixed(0)} ms)`);
} finally {
  await browser?.close();
  server?.child.kill("SIGTERM");
  try {
    const monitor = JSON.parse(readFileSync(join(root, ".ariel/monitor.json"), "utf8")).pid;
    const runs = join(root, ".ariel/runs");
    for (const id of existsSync(runs) ? readdirSync(runs) : []) {
      try {
        const rec = JSON.parse(readFileSync(join(runs, id, "run.json"), "utf8"));
        if (rec.child) process.kill(-rec.child.pgid, "SIGKILL");
      } catch {}
    }
    process.kill(monitor, "SIGKILL");
  } catch {}
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);

// Start-up of ariel-mcp: a client's first exchange (initialize, initialized, tools/list) piped
// into the server, which answers and exits at the end of its input, against `node -e 0`, and a
// tool call that runs one CLI (list_sources) against `ariel-discover --json` run directly: what
// the server adds around the CLI; `ariel-runs list` (a code-cached CLI doing little) is the floor
// of any ariel bin. Each bin as npm installs it (publishConfig.bin, dist/ariel-*.cjs): what the
// start-up target is about; the repository's .mjs launcher, which goes through the ES-module
// loader first, has a row of its own. Interleaved runs, ratios printed, never asserted.
// Run: node bench/mcp.mjs [--runs N]   (needs `node scripts/setup.mjs` first)
import { rmSync } from "node:fs";
import { join } from "node:path";
import { benchEnv, builtCli, initRepo, numberOption, smoke, tempDir } from "./_env.mjs";
import { measureInterleaved, printRatios } from "./_measure.mjs";

const RUNS = numberOption("runs", smoke ? 3 : 20);
const mcp = builtCli("mcp", "bench/mcp");
const discover = builtCli("discover", "bench/mcp");
const runs = builtCli("runs", "bench/mcp");

const rpc = (...messages) => `${messages.map((m) => JSON.stringify({ jsonrpc: "2.0", ...m })).join("\n")}\n`;
const HELLO = [
  {
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  },
  { method: "notifications/initialized" },
  { id: 2, method: "tools/list" },
];

const ws = tempDir("ariel-bench-mcp-");
try {
  for (const name of ["api", "web"]) initRepo(join(ws, name));
  const results = measureInterleaved(
    [
      { label: "node -e 0", cmd: process.execPath, args: ["-e", "0"] },
      {
        label: "ariel-mcp initialize + tools/list",
        cmd: process.execPath,
        args: [mcp.bundle, "-C", ws],
        input: rpc(...HELLO),
      },
      {
        label: "… through the repository's launcher",
        cmd: process.execPath,
        args: [mcp.bin, "-C", ws],
        input: rpc(...HELLO),
      },
      // The floor of a code-cached ariel CLI doing almost nothing: what the SDK adds is the rest.
      { label: "ariel-runs list", cmd: process.execPath, args: [runs.bundle, "-C", ws, "list"] },
      { label: "ariel-discover --json", cmd: process.execPath, args: [discover.bundle, "-C", ws, "--json"] },
      {
        label: "ariel-mcp … + list_sources",
        cmd: process.execPath,
        args: [mcp.bundle, "-C", ws],
        input: rpc(...HELLO, {
          id: 3,
          method: "tools/call",
          params: { name: "list_sources", arguments: {} },
        }),
      },
    ],
    { runs: RUNS, cwd: ws, env: benchEnv() },
  );
  printRatios(`ariel-mcp start-up, ${RUNS} interleaved runs each`, results);
} finally {
  rmSync(ws, { recursive: true, force: true });
}

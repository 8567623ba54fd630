// The floor of the echo benchmark (bench/tty.mjs): one Node process between a terminal and a
// pseudo-terminal running `cat`, with no logic: its raw stdin written to the pty, the pty's
// output written to its terminal through a non-blocking stream (as the monitor writes to an
// attached client's terminal). Ctrl-] ends it. Run by bench/tty.mjs under a pty of its own.
const { createRequire } = require("node:module");
const { join } = require("node:path");
const tty = require("node:tty");

const pty = createRequire(join(__dirname, "../packages/core/package.json"))("@lydell/node-pty");
const p = pty.spawn("cat", [], { cols: 80, rows: 24, encoding: null, env: process.env });
const out = new tty.ReadStream(1);
process.stdin.setRawMode(true);
process.stdin.on("data", (b) => {
  if (b.includes(0x1d)) process.exit(0);
  p.write(b);
});
p.onData((d) => out.write(d));
out.write("ready\r\n");

// The floor under `ariel-spawn -- true` (bench/spawn.mjs): what any Node program must do to run
// a command the way ariel-spawn does, with no ariel logic at all: its stderr stream (ariel's
// messages go there), node:child_process, the child with its stdout and stderr on pipes (ariel
// reads them line by line for the history), and one history line appended and fsynced at the
// end. `node bench/_spawn_floor.cjs -- CMD...` in a directory with `.ariel/`.
const { spawn } = require("node:child_process");
const { closeSync, fsyncSync, openSync, writeSync } = require("node:fs");

const argv = process.argv.slice(process.argv.indexOf("--") + 1);
process.stderr; // created at start, as ariel's runCli does
const child = spawn(argv[0], argv.slice(1), { stdio: ["inherit", "pipe", "pipe"] });
let bytes = 0;
for (const s of [child.stdout, child.stderr]) s.on("data", (b) => (bytes += b.length));
child.on("close", (code, signal) => {
  const fd = openSync(".ariel/bench-spawn-floor.ndjson", "a", 0o600);
  writeSync(fd, `${JSON.stringify({ event: "run.finished", code, signal, bytes })}\n`);
  fsyncSync(fd);
  closeSync(fd);
  process.exitCode = code ?? 1;
});

// The floor under ariel-spawn's fan-out (bench/spawn.mjs): what Node's child_process itself
// costs for the same work. Reads NUL-separated directories on stdin (as `find -print0` writes
// them), then runs the command after `--` in each, at most J at once (the first argument), each
// child with its stdout and stderr on pipes, copying what it prints to our stdout and stderr.
// No records, no history, no line splitting, no source resolution: nothing ariel does beyond
// starting the children and passing their output on.
// Run: find ROOT -maxdepth 2 -name .git -print0 | node bench/_fanout_floor.cjs 8 -- git rev-parse HEAD
const { spawn } = require("node:child_process");

const jobs = Number(process.argv[2]);
const argv = process.argv.slice(process.argv.indexOf("--") + 1);
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const dirs = Buffer.concat(chunks)
    .toString("utf8")
    .split("\0")
    .filter((d) => d !== "");
  let next = 0;
  let failed = 0;
  const startOne = () => {
    if (next >= dirs.length) return;
    const child = spawn(argv[0], argv.slice(1), { cwd: dirs[next++], stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (b) => process.stdout.write(b));
    child.stderr.on("data", (b) => process.stderr.write(b));
    child.on("close", (code) => {
      if (code !== 0) failed++;
      startOne();
    });
  };
  for (let i = 0; i < jobs; i++) startOne();
  process.on("exit", () => {
    if (failed > 0) process.exitCode = 1;
  });
});

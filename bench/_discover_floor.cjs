// The floor under `ariel-discover --json` (bench/discover.mjs): the same system calls for a
// workspace of `.git/HEAD` + loose-ref sources (one listing, then per source open/read/close of
// HEAD and of its branch's ref, as ariel's syncReadFs does) and the same NDJSON on stdout, with
// no discovery logic at all. Not a discovery: it assumes every child directory is a checkout.
const { closeSync, constants, openSync, readdirSync, readSync, realpathSync } = require("node:fs");

const buf = Buffer.allocUnsafe(16 * 1024);
function read(path) {
  const fd = openSync(path, constants.O_RDONLY);
  try {
    return buf.toString("utf8", 0, readSync(fd, buf, 0, buf.length, 0));
  } finally {
    closeSync(fd);
  }
}

const root = realpathSync(process.argv[2]);
let out = "";
for (const e of readdirSync(root, { withFileTypes: true })) {
  if (!e.isDirectory()) continue;
  const path = `${root}/${e.name}`;
  const gitDir = `${path}/.git`;
  let ref;
  try {
    ref = read(`${gitDir}/HEAD`).trim().slice(4).trim();
  } catch {
    continue;
  }
  const head = read(`${gitDir}/${ref}`).trim();
  const rec = {
    v: 1,
    type: "source",
    name: e.name,
    path,
    kind: "checkout",
    gitDir,
    head,
    branch: ref.slice(11),
  };
  out += `${JSON.stringify(rec)}\n`;
}
process.stdout.write(out);

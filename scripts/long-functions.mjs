// Lists the functions in packages/*/src (tests left out) longer than a limit, longest first,
// then one closing line `N functions over LIMIT lines`. A long function is a missing name: this
// is the count issue 24 asks to bring down. `node scripts/long-functions.mjs [LIMIT]` (100).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseSync } from "vite";

const root = new URL("..", import.meta.url).pathname;
const limit = Number(process.argv[2] ?? 100);
const isFunction = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

function* sources(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== "node_modules") yield* sources(p);
    else if (e.isFile() && /\.tsx?$/.test(e.name) && !/_test\.ts$|\.d\.ts$/.test(e.name)) yield p;
  }
}

function lineOf(starts, offset) {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function nameOf(node, parent) {
  if (node.id?.name) return node.id.name;
  if (parent?.type === "VariableDeclarator") return parent.id?.name ?? "(anonymous)";
  if (parent?.type === "MethodDefinition" || parent?.type === "Property")
    return parent.key?.name ?? "(method)";
  return "(anonymous)";
}

function walk(node, parent, visit) {
  if (!node || typeof node.type !== "string") return;
  visit(node, parent);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const child of value) walk(child, node, visit);
    else if (value && typeof value === "object") walk(value, node, visit);
  }
}

const rows = [];
for (const pkg of readdirSync(join(root, "packages")).filter((p) =>
  existsSync(join(root, "packages", p, "src")),
)) {
  for (const file of sources(join(root, "packages", pkg, "src"))) {
    const text = readFileSync(file, "utf8");
    const starts = [0];
    for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
    const { program } = parseSync(file, text, { lang: file.endsWith("x") ? "tsx" : "ts" });
    walk(program, undefined, (node, parent) => {
      if (!isFunction.has(node.type)) return;
      const from = lineOf(starts, node.start);
      const lines = lineOf(starts, node.end) - from + 1;
      if (lines > limit)
        rows.push({ lines, where: `${relative(root, file)}:${from}`, name: nameOf(node, parent) });
    });
  }
}
rows.sort((a, b) => b.lines - a.lines);
for (const r of rows) process.stdout.write(`${String(r.lines).padStart(4)} ${r.where} ${r.name}\n`);
process.stdout.write(`${rows.length} functions over ${limit} lines\n`);

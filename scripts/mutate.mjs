// Mutation testing, one folder (or file) at a time, and the score of every folder
// (docs/testing.md, "Mutation testing"; docs/decisions/0131-mutation-testing-host-and-clis.md).
//
//   node scripts/mutate.mjs [PATH|!GLOB ...] [-- STRYKER OPTIONS]
//       Stryker on PATH (a folder: its .ts files; a file, optionally FILE:LINES) with the
//       exclusions of stryker.config.mjs; no PATH: everything the config mutates. `!GLOB` leaves
//       files out (`packages/core/src '!packages/core/src/host/**'`: the pure core). Then the
//       incremental file is rewritten for the repository (see `normalize`).
//   node scripts/mutate.mjs --scores [PATH ...]
//       The score of each folder from the committed incremental file, as a markdown table, then
//       the folders with nothing measured, each with its command, and those with some files not
//       measured, each with those files. No PATH: core/src/host and the CLIs' sources.
//
// Stryker runs with HOME (and XDG_*) in a temporary directory: a mutant that drops a test's own
// state home or git config must not reach the user's.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { transformSync } from "esbuild";
import config, { NOT_MUTATED } from "../stryker.config.mjs";

const ROOT = new URL("..", import.meta.url).pathname;
const INCREMENTAL = join(ROOT, config.incrementalFile);

/** The `--mutate` globs for the paths asked for: each folder's .ts files, minus NOT_MUTATED. */
export function mutateGlobs(paths) {
  const globs = paths.map((p) => {
    if (p.startsWith("!") || /\.ts(:[\d:-]+)?$/.test(p)) return p;
    return `${p.replace(/\/+$/, "")}/**/*.ts`;
  });
  return [...globs, ...NOT_MUTATED];
}

/**
 * The folder a source file's score is counted in: one level under `src/` of a package, and one
 * under `src/host/` of core (`packages/core/src/host/worktree/add.ts` → `core/src/host/worktree`);
 * the files directly in such a `src/` (or `host/`) count as that folder's own `(files)`.
 */
export function folderOf(file) {
  const m = /^packages\/([^/]+)\/src\/(host\/)?(.*)$/.exec(file);
  if (!m) return file;
  const [, pkg, host = "", rest] = m;
  const slash = rest.indexOf("/");
  const base = `${pkg}/src/${host}`.replace(/\/$/, "");
  return slash === -1 ? `${base} (files)` : `${base}/${rest.slice(0, slash)}`;
}

/** What `--scores` lists by default: the host half of core and the CLIs (docs/testing.md). */
const SCORED = [
  "packages/core/src/host",
  ...["discover", "fleet", "mcp", "runs", "spawn", "tui", "worktree"].map((c) => `packages/cli-${c}/src`),
];

const KILLED = new Set(["Killed", "Timeout"]);
const COUNTED = new Set(["Killed", "Timeout", "Survived", "NoCoverage"]);

/** Killed, survived, no coverage and score (killed / counted) of each folder, sorted by name. */
export function folderScores(report, under = []) {
  const by = new Map();
  for (const [file, { mutants }] of Object.entries(report.files)) {
    if (under.length > 0 && !under.some((u) => file.startsWith(u))) continue;
    const key = folderOf(file);
    const row = by.get(key) ?? { folder: key, mutants: 0, killed: 0, survived: 0, noCoverage: 0 };
    for (const m of mutants) {
      if (!COUNTED.has(m.status)) continue;
      row.mutants++;
      if (KILLED.has(m.status)) row.killed++;
      else if (m.status === "Survived") row.survived++;
      else row.noCoverage++;
    }
    by.set(key, row);
  }
  return [...by.values()].sort((a, b) => a.folder.localeCompare(b.folder));
}

/** A glob of NOT_MUTATED (without its `!`) as a regular expression over a repository path. */
function globRegExp(glob) {
  const re = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*\*\//g, "\0")
    .replace(/\/\*\*$/, "\u0001")
    .replace(/\*/g, "[^/]*")
    .replace(/\0/g, "(?:.*/)?")
    .replace(/\u0001/g, "/.*");
  return new RegExp(`^${re}$`);
}

const SKIPPED = NOT_MUTATED.map((g) => globRegExp(g.slice(1)));

/** Whether Stryker would mutate this repository path (a `.ts` file not in NOT_MUTATED). */
export function isMutable(file) {
  return file.endsWith(".ts") && !SKIPPED.some((re) => re.test(file));
}

/** The command that measures a folder of `folderOf` (`core/src/host (files)`: its own files). */
export function measureCommand(folder) {
  const own = folder.endsWith(" (files)");
  const path = `packages/${own ? `${folder.slice(0, -" (files)".length)}/*.ts` : folder}`;
  return `nice -n 19 node scripts/mutate.mjs ${own ? `'${path}'` : path}`;
}

/**
 * The folders of `files` (repository paths) that hold a file Stryker would mutate but no result
 * in the report, each with the command that measures it, sorted by name.
 */
export function unmeasured(report, files) {
  const measured = new Set(Object.keys(report.files).map(folderOf));
  const folders = new Set(files.filter(isMutable).map(folderOf));
  return [...folders]
    .filter((f) => !measured.has(f))
    .sort((a, b) => a.localeCompare(b))
    .map((folder) => ({ folder, command: measureCommand(folder) }));
}

/**
 * Whether a TypeScript source has code Stryker can mutate: what is left once its types are
 * stripped and its imports and re-exports dropped (a `mod.ts` of re-exports, a file of types
 * alone: none, and Stryker leaves such a file out of its report).
 */
export function hasCode(source) {
  const { code } = transformSync(source, { loader: "ts" });
  const rest = code
    .replace(/export\s*(\*|\{[^}]*\})\s*(as\s+[\w$]+\s*)?from\s*"[^"]*";/g, "")
    .replace(/import\s[^;]*;/g, "");
  return /\S/.test(rest);
}

/**
 * The folders of `files` with a result for some of their mutable files but not all: each with
 * the files (paths under the folder) that have none, sorted by name. `read`
 * gives a file's source: one without code ({@link hasCode}) is never missing.
 */
export function partlyMeasured(report, files, read = (f) => readFileSync(join(ROOT, f), "utf8")) {
  const measured = new Set(Object.keys(report.files));
  const folders = new Set([...measured].map(folderOf));
  const missing = new Map();
  for (const f of files.filter(isMutable)) {
    const folder = folderOf(f);
    if (measured.has(f) || !folders.has(folder) || !hasCode(read(f))) continue;
    const dir = `packages/${folder.replace(/ \(files\)$/, "")}/`;
    missing.set(folder, [...(missing.get(folder) ?? []), f.slice(dir.length)]);
  }
  return [...missing.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([folder, list]) => ({ folder, missing: list.sort() }));
}

/** `text` in lines of at most 100 characters, the later ones indented by two (a list item). */
function wrap(text) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > 100) {
      lines.push(line);
      line = `  ${word}`;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line].join("\n");
}

function scoresTable(rows) {
  const pct = (r) => (r.mutants === 0 ? "—" : `${((100 * r.killed) / r.mutants).toFixed(1)}%`);
  const total = rows.reduce(
    (t, r) => ({
      folder: "**all**",
      mutants: t.mutants + r.mutants,
      killed: t.killed + r.killed,
      survived: t.survived + r.survived,
      noCoverage: t.noCoverage + r.noCoverage,
    }),
    { mutants: 0, killed: 0, survived: 0, noCoverage: 0 },
  );
  const cells = [...rows, total].map((r) => [
    r.folder === "**all**" ? r.folder : `\`${r.folder}\``,
    String(r.mutants),
    String(r.killed),
    String(r.survived),
    String(r.noCoverage),
    pct(r),
  ]);
  const head = ["folder", "mutants", "killed", "survived", "no coverage", "score"];
  const w = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const right = (i) => i > 0;
  const line = (c) => `| ${c.map((x, i) => (right(i) ? x.padStart(w[i]) : x.padEnd(w[i]))).join(" | ")} |`;
  const rule = `| ${w.map((n, i) => (right(i) ? `${"-".repeat(n - 1)}:` : "-".repeat(n))).join(" | ")} |`;
  return [line(head), rule, ...cells.map(line)].join("\n");
}

const hash = (s) => createHash("sha256").update(s).digest("hex").slice(0, 12);

/**
 * The incremental file as the repository keeps it. Stryker writes its whole report: the
 * project's absolute path, every option, each mutant's failure message (stack traces with
 * this machine's paths), ids that change at every run. Kept: what the next run needs to reuse a
 * result (each file's and test file's source, each mutant's place, mutator, replacement, status,
 * covering and killing tests). Ids are made from what identifies a mutant or a test (so an
 * unchanged one keeps its id), and every mutant and test is one line, so a run that re-tests a
 * few mutants changes a few lines.
 */
export function normalize(report) {
  const testIds = new Map();
  const testFiles = {};
  for (const file of Object.keys(report.testFiles ?? {}).sort()) {
    const { source, tests } = report.testFiles[file];
    const seen = new Map();
    const out = tests.map((t) => {
      const n = (seen.get(t.name) ?? 0) + 1;
      seen.set(t.name, n);
      const id = hash(`${file}\0${t.name}\0${n}`);
      testIds.set(t.id, id);
      return { ...t, id };
    });
    testFiles[file] = { ...(source === undefined ? {} : { source }), tests: out };
  }
  const ids = (xs) => xs?.map((x) => testIds.get(x) ?? x).sort();
  const files = {};
  for (const file of Object.keys(report.files).sort()) {
    const { language, source, mutants } = report.files[file];
    const out = mutants
      .map(({ statusReason: _reason, id: _id, coveredBy, killedBy, ...m }) => {
        const at = m.location;
        const key = `${file}\0${m.mutatorName}\0${at.start.line}:${at.start.column}-${at.end.line}:${at.end.column}\0${m.replacement ?? ""}`;
        return {
          id: hash(key),
          ...m,
          ...(coveredBy ? { coveredBy: ids(coveredBy) } : {}),
          ...(killedBy ? { killedBy: ids(killedBy) } : {}),
        };
      })
      .sort(
        (a, b) =>
          a.location.start.line - b.location.start.line ||
          a.location.start.column - b.location.start.column ||
          a.id.localeCompare(b.id),
      );
    files[file] = { language, source, mutants: out };
  }
  return { schemaVersion: report.schemaVersion, thresholds: report.thresholds, files, testFiles };
}

/** `normalize`d report as text: one line per mutant and per test. */
export function formatReport(r) {
  const j = JSON.stringify;
  const block = (entries, item, list) =>
    entries
      .map(([name, v]) => {
        const { [list]: xs, ...rest } = v;
        const head = j(rest).slice(0, -1);
        const sep = head.length > 1 ? "," : "";
        return `${j(name)}:${head}${sep}${j(list)}:[\n${xs.map(item).join(",\n")}\n]}`;
      })
      .join(",\n");
  return `{"schemaVersion":${j(r.schemaVersion)},"thresholds":${j(r.thresholds)},
"files":{
${block(Object.entries(r.files), j, "mutants")}
},
"testFiles":{
${block(Object.entries(r.testFiles), j, "tests")}
}}
`;
}

function runStryker(paths, rest) {
  const home = mkdtempSync(join(tmpdir(), "ariel-mutate-home-"));
  const args = ["run", ...(paths.length > 0 ? ["--mutate", mutateGlobs(paths).join(",")] : []), ...rest];
  const env = {
    ...process.env,
    HOME: home,
    XDG_STATE_HOME: join(home, ".local/state"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
  };
  const before = existsSync(INCREMENTAL) ? statSync(INCREMENTAL).mtimeMs : 0;
  try {
    const r = spawnSync(join(ROOT, "node_modules/.bin/stryker"), args, { cwd: ROOT, env, stdio: "inherit" });
    if (existsSync(INCREMENTAL) && statSync(INCREMENTAL).mtimeMs !== before) {
      const report = JSON.parse(readFileSync(INCREMENTAL, "utf8"));
      writeFileSync(INCREMENTAL, formatReport(normalize(report)));
    }
    return r.status ?? 1;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const dd = argv.indexOf("--");
  const own = dd === -1 ? argv : argv.slice(0, dd);
  const rest = dd === -1 ? [] : argv.slice(dd + 1);
  if (own[0] === "--help" || own[0] === "-h") {
    const head = readFileSync(new URL(import.meta.url), "utf8").split("\n");
    const usage = head.slice(
      0,
      head.findIndex((l) => !l.startsWith("//")),
    );
    process.stdout.write(`${usage.map((l) => l.replace(/^\/\/ ?/, "")).join("\n")}\n`);
  } else if (own[0] === "--scores") {
    const report = JSON.parse(readFileSync(INCREMENTAL, "utf8"));
    const under = own.length > 1 ? own.slice(1) : SCORED;
    const files = spawnSync("git", ["ls-files", "-z", "--", ...under], { cwd: ROOT, encoding: "utf8" });
    const todo = unmeasured(report, files.stdout.split("\0").filter(Boolean));
    const list = todo.map((t) => `- \`${t.folder}\`: \`${t.command}\``).join("\n");
    const rest = todo.length === 0 ? "" : `\n\nNot measured yet:\n\n${list}`;
    const part = partlyMeasured(report, files.stdout.split("\0").filter(Boolean));
    const parts = part.map((p) =>
      wrap(`- \`${p.folder}\`, not yet: ${p.missing.map((m) => `\`${m}\``).join(", ")}`),
    );
    const partly =
      part.length === 0
        ? ""
        : `\n\nPartly measured (the score above is of the other files):\n\n${parts.join("\n")}`;
    process.stdout.write(`${scoresTable(folderScores(report, under))}${rest}${partly}\n`);
  } else {
    process.exitCode = runStryker(own, rest);
  }
}

// Build what ariel runs and publishes (never committed), for every packages/cli-* found:
// - each CLI, packages/cli-<name>/src/main.ts, bundled by esbuild into one CommonJS file,
//   packages/cli-<name>/dist/ariel-<name>.cjs, core and every dependency included, starting
//   with `#!/usr/bin/env node`: the bin that npm installs
//   (docs/decisions/0029-dist-publishable-packages.md); in this repository the committed
//   launchers packages/cli-*/bin/ariel-*.mjs load it;
// - the meta package's bins, packages/ariel/dist/ariel-<name>.cjs: one require() of a CLI bundle;
// - @ariel/core as ESM with declarations, packages/core/dist (tsc -p packages/core/tsconfig.build.json).
// `node scripts/build.mjs --bins` builds the CLI bundles only (what scripts/setup.mjs needs).
//
// Why CommonJS for every CLI (ariel-discover is started thousands of times in pipelines,
// ariel-spawn and ariel-worktree once per agent step): a bundle that is require()d skips the
// ES-module loader's job for it, and its node: builtins come from require() instead of ES-module
// facades (importing node:fs as ESM evaluates every export, which loads the whole stream stack).
// About 5% of `node -e 0` at start-up (docs/benchmarks.md). A CJS main.ts must not use
// top-level await.
//
// Vendor chunks: a dependency that the CLIs only ever load with a dynamic import() (yaml, for a
// kubeconfig) is not put into the bundle but bundled once into its own file beside it,
// dist/<name>.cjs, which the bundle require()s when that import() first runs. Everything in
// the bundle is parsed at every start, used or not (yaml alone was 40% of ariel-spawn's bundle);
// a file beside it costs nothing until it is loaded. Only self-contained npm packages qualify
// (no state shared with core), and only through import(): a static import would load the chunk at
// start-up anyway. A package whose bundle loads a chunk lists it in its `files` (pack-check
// refuses a tarball without it). docs/decisions/0033-startup-code-cache-and-vendor-chunks.md.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { AJV_CHUNK, ajvOnFirstUse, sdkSchemasOnFirstUse } from "./build-mcp-sdk.mjs";
import { CORE_DIR, cliPackages, META_ALIASES, META_DIR, ROOT, RUNTIME_DEPENDENCIES } from "./packages.mjs";

const SHEBANG = "#!/usr/bin/env node\n";
const clis = cliPackages();

/** Packages bundled as vendor chunks (see above), resolved from @ariel/core, which depends on them. */
export const VENDOR_CHUNKS = ["yaml"];

/**
 * CLIs whose bin compiles its bundle with a V8 code cache made by the build, and the command the
 * build runs once to make it (in a temporary workspace). Their bundles (~375–390 KB) cost a fifth
 * of their start-up CPU to parse and compile; ariel-discover's (~85 KB) is not worth the extra
 * reads, and ariel-fleet is a server. See writeCodeCached below and
 * docs/decisions/0033-startup-code-cache-and-vendor-chunks.md.
 */
export const CODE_CACHED = {
  "ariel-spawn": ["--", "true"],
  "ariel-worktree": ["list"],
  "ariel-runs": ["list"],
  // An MCP client's first exchange, piped in: the server answers and exits at the end of input.
  "ariel-mcp": {
    args: [],
    input: [
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"build","version":"0"}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
      "",
    ].join("\n"),
  },
};

/**
 * The bin of a code-cached CLI, dist/ariel-<name>.cjs: it compiles the bundle beside it,
 * ariel-<name>.main.cjs, with the cache ariel-<name>.main.cache when that cache was made from
 * this very bundle (the build id on the bundle's first line heads the cache: V8 itself checks only
 * the source's length and its own version and flags, and rejects a cache made by another Node,
 * which then costs a plain compile). ARIEL_WRITE_CODE_CACHE=FILE is for the build: write the cache
 * of what this run compiled to FILE at exit.
 */
function cacheStub(bin) {
  return `${SHEBANG}// ${bin}: loads ${bin}.main.cjs with its V8 code cache; written by scripts/build.mjs
"use strict";
const { readFileSync, writeFileSync } = require("node:fs");
const vm = require("node:vm");
const file = \`\${__dirname}/${bin}.main.cjs\`;
const source = readFileSync(file, "latin1"); // ASCII: esbuild escapes most, the build the rest (asciiOnly)
let cachedData;
try {
  const cache = readFileSync(\`\${__dirname}/${bin}.main.cache\`);
  const id = source.slice(0, source.indexOf("\\n") + 1);
  if (cache.toString("latin1", 0, id.length) === id) cachedData = cache.subarray(id.length);
} catch {}
const script = new vm.Script(\`(function (exports, require, module, __filename, __dirname) {\${source}\\n})\`, {
  filename: file,
  cachedData,
  importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const out = process.env.ARIEL_WRITE_CODE_CACHE;
if (out) process.once("exit", () => writeFileSync(out, script.createCachedData()));
script.runInThisContext()(exports, require, module, file, __dirname);
`;
}

/**
 * Write `code` as a code-cached CLI: the bundle under its build id, the stub as the bin, and the
 * cache made by running `warmUp` once (so it holds the functions that ran compiled, not only
 * the top level) in a temporary workspace with its own state home.
 */
function writeCodeCached(cli, code, spec) {
  const warmUp = Array.isArray(spec) ? spec : spec.args;
  const input = Array.isArray(spec) ? undefined : spec.input;
  const dist = dirname(cli.bundle);
  const id = `//build:${createHash("sha256").update(code).digest("hex").slice(0, 16)}\n`;
  writeFileSync(join(dist, `${cli.bin}.main.cjs`), id + code);
  writeBin(cli.bundle, cacheStub(cli.bin));
  const tmp = mkdtempSync(join(tmpdir(), "ariel-build-cache-"));
  try {
    mkdirSync(join(tmp, "ws", ".ariel"), { recursive: true });
    const cacheOut = join(tmp, "cache");
    const r = spawnSync(process.execPath, [cli.bundle, ...warmUp], {
      cwd: join(tmp, "ws"),
      env: { ...process.env, ARIEL_WRITE_CODE_CACHE: cacheOut, ARIEL_STATE_HOME: join(tmp, "state") },
      stdio: [input === undefined ? "ignore" : "pipe", "ignore", "pipe"],
      input,
      encoding: "utf8",
    });
    if (r.status !== 0) {
      throw new Error(`build: ${cli.bin} ${warmUp.join(" ")} (code cache warm-up) failed: ${r.stderr}`);
    }
    const cache = Buffer.concat([Buffer.from(id, "latin1"), readFileSync(cacheOut)]);
    writeFileSync(join(dist, `${cli.bin}.main.cache`), cache);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * `import("yaml")` becomes a lazy `require("./yaml.cjs")`, relative to the bundle: the import
 * resolves to a small CommonJS module of the bundle that requires the chunk (a bare external
 * import() would go through the ES-module loader, which sees no named exports in CommonJS).
 */
const vendorChunks = {
  name: "vendor-chunks",
  setup(b) {
    const names = VENDOR_CHUNKS.join("|");
    b.onResolve({ filter: new RegExp(`^(${names})$`) }, (args) => {
      if (args.kind !== "dynamic-import") {
        throw new Error(`${args.importer}: ${args.path} is a vendor chunk; import it with import() only`);
      }
      return { path: args.path, namespace: "vendor-chunk" };
    });
    b.onLoad({ filter: /.*/, namespace: "vendor-chunk" }, (args) => ({
      contents: `module.exports = require("./${args.path}.cjs");`,
      loader: "js",
    }));
    b.onResolve({ filter: new RegExp(`^\\./(${names})\\.cjs$`), namespace: "vendor-chunk" }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

/**
 * The CommonJS text of vendor chunk `name`: module `specifier` (by default the package `name`,
 * resolved from @ariel/core) and its own dependencies.
 */
async function vendorChunk(name, specifier = name, resolveDir = CORE_DIR) {
  const out = await build({
    stdin: { contents: `module.exports = require(${JSON.stringify(specifier)});`, resolveDir },
    bundle: true,
    write: false,
    platform: "node",
    target: "node20",
    format: "cjs",
    legalComments: "none",
    logLevel: "warning",
  });
  return `// ${name}, loaded by the CLI bundle beside it on first use; written by scripts/build.mjs\n${out.outputFiles[0].text}`;
}

function writeBin(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

// ariel-fleet's dashboard (HTML, CSS, a script) goes into its bundle: this plugin replaces the
// module that reads the files from the source tree with one that holds them, so the bin needs
// nothing beside it. Every bundle gets the plugin; only cli-fleet has a file it matches.
const inlineDashboard = {
  name: "inline-dashboard",
  setup(b) {
    b.onLoad({ filter: /cli-fleet\/src\/server\/assets\.ts$/ }, (args) => {
      const src = readFileSync(args.path, "utf8");
      // The two lists as the formatter writes them: JSON but for a trailing comma.
      const json = (re) => JSON.parse(re.exec(src)[1].replace(/,\s*([\]}])$/, "$1"));
      const names = json(/DASHBOARD_FILES = (\[[^\]]*\])/);
      // The terminal's files come from their package (PACKAGE_FILES), without their source map line.
      const packaged = json(/PACKAGE_FILES = (\{[^}]*\})/);
      const dir = new URL("../packages/cli-fleet/src/dashboard/", import.meta.url);
      const modules = new URL("../packages/cli-fleet/node_modules/", import.meta.url);
      const read = (n) =>
        packaged[n]
          ? readFileSync(new URL(packaged[n], modules), "utf8").replace(
              /\n\/[/*][#@] sourceMappingURL=[^\n]*\s*$/,
              "\n",
            )
          : readFileSync(new URL(n, dir), "utf8");
      const files = Object.fromEntries(names.map((n) => [n, read(n)]));
      return {
        loader: "js",
        contents: `const FILES = ${JSON.stringify(files)};
export const DASHBOARD_FILES = ${JSON.stringify(names)};
export function dashboardFile(name) { return Object.hasOwn(FILES, name) ? FILES[name] : undefined; }`,
      };
    });
  },
};

/**
 * The agents' reporter (docs/runs.md, "What agents report"), bundled alone: what the hooks of
 * wired runs run, so it starts about as fast as `node -e 0` (bench/reports.mjs). It is written
 * beside every CLI bundle that can be a run monitor (the monitor names it in the hooks it wires,
 * host/supervise/reporter_command.ts), and such a package lists it in its `files`.
 */
export const REPORTER = {
  file: "ariel-report.cjs",
  src: join(CORE_DIR, "src/host/supervise/reporter_main.ts"),
};
const reporterCode = build({
  entryPoints: [REPORTER.src],
  bundle: true,
  write: false,
  platform: "node",
  target: "node20",
  format: "cjs",
  legalComments: "none",
  logLevel: "warning",
}).then(
  (out) =>
    `${SHEBANG}// ariel-report: the agents' reporter; written by scripts/build.mjs\n${out.outputFiles[0].text}`,
);

/**
 * `code` with every character outside ASCII written as `\uXXXX` (each UTF-16 unit). esbuild's
 * `charset: "ascii"` escapes strings, templates and names but leaves a regular expression
 * literal's characters as they are, in UTF-8 (evanw/esbuild#4205), and a code-cached bundle is
 * read as latin1: `/[❯›]/u` became a class of the UTF-8 bytes' latin1 characters, and the screen
 * rule no longer saw a menu marked `❯`. In a regular expression (with or without `u`) the escape
 * means the same character; in a comment it changes nothing that runs.
 */
function asciiOnly(code) {
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

async function bundle(cli) {
  const out = await build({
    entryPoints: [cli.src],
    bundle: true,
    write: false,
    platform: "node",
    target: "node20",
    format: "cjs",
    splitting: false,
    minify: false,
    sourcemap: false,
    charset: "ascii", // esbuild's default, relied on: a code-cached bundle is read as latin1
    legalComments: "none",
    logLevel: "warning",
    plugins: [inlineDashboard, vendorChunks, sdkSchemasOnFirstUse, ajvOnFirstUse],
    // Loaded at run time from the CLI package's own dependencies: a native addon cannot be bundled,
    // and the terminal emulator is loaded only by tty runs (docs/decisions/0076-tty-runs.md).
    external: RUNTIME_DEPENDENCIES,
  });
  // main.ts starts with a Deno hashbang (it also runs from source); the bundle is for Node.
  const code = asciiOnly(out.outputFiles[0].text.replace(/^#![^\n]*\n/, ""));
  const dist = dirname(cli.bundle);
  mkdirSync(dist, { recursive: true }); // a fresh clone has no dist/ yet
  for (const [name, chunk] of chunks) {
    const file = join(dist, `${name}.cjs`);
    if (code.includes(`require("./${name}.cjs")`)) writeFileSync(file, await chunk);
    else rmSync(file, { force: true });
  }
  // A bundle that can be a run monitor names the reporter beside it in the hooks it wires.
  if (code.includes('"--ariel-run-monitor"')) writeBin(join(dist, REPORTER.file), await reporterCode);
  else rmSync(join(dist, REPORTER.file), { force: true });
  const warmUp = CODE_CACHED[cli.bin];
  if (warmUp) writeCodeCached(cli, code, warmUp);
  else {
    writeBin(cli.bundle, SHEBANG + code);
    for (const ext of ["main.cjs", "main.cache"]) rmSync(join(dist, `${cli.bin}.${ext}`), { force: true });
  }
}

// ariel-mcp's Ajv (the SDK's validator), which its bundle require()s on first use
// (scripts/build-mcp-sdk.mjs) rather than import()s.
const chunks = new Map([
  ...VENDOR_CHUNKS.map((name) => [name, vendorChunk(name)]),
  [AJV_CHUNK.name, vendorChunk(AJV_CHUNK.name, AJV_CHUNK.module, join(ROOT, AJV_CHUNK.from))],
]);

/** The meta package's bin `bin` for `cli`: a one-line hop to the CLI package's bundle. */
function metaBin(cli, bin = cli.bin) {
  writeBin(
    join(META_DIR, "dist", `${bin}.cjs`),
    `${SHEBANG}// ${bin} from ${cli.name}; written by scripts/build.mjs\nrequire("${cli.name}/bin");\n`,
  );
}

function compileCore() {
  rmSync(join(CORE_DIR, "dist"), { recursive: true, force: true });
  const r = spawnSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", join(CORE_DIR, "tsconfig.build.json")], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (r.status !== 0) {
    process.stderr.write(`build: tsc for @ariel/core failed (status ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
}

await Promise.all(clis.map(bundle));
if (!process.argv.includes("--bins")) {
  rmSync(join(META_DIR, "dist"), { recursive: true, force: true });
  for (const cli of clis) metaBin(cli);
  for (const [alias, bin] of Object.entries(META_ALIASES))
    metaBin(
      clis.find((c) => c.bin === bin),
      alias,
    );
  compileCore();
}

// Pack every publishable package with pnpm and install the tarballs the way users will, into
// empty prefixes in a temporary directory. Used by scripts/pack-check.mjs (CI) and
// bench/installed.mjs (start-up as installed).
//
// - `pnpm -r pack` writes one tarball per package (prepack refuses a stale build: run
//   `npm run build` first).
// - The CLI packages are installed from their tarball files: `npm install -g --prefix P *.tgz`;
//   core and every library are bundled in, but for the runtime dependencies of tty runs (a native
//   addon and the terminal emulator, scripts/packages.mjs), which come from the npm registry.
// - The meta package is installed by name, `npm install -g --prefix P ariel`, from a registry on
//   127.0.0.1 that serves our tarballs and sends every other name to the npm registry: exactly
//   what `npm install -g ariel` will do once published (installing its tarball next to the CLI
//   tarballs would let the CLI packages' bins win the names, and hide ariel's own bins).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { basename, join } from "node:path";
import { ROOT, RUNTIME_DEPENDENCIES } from "./packages.mjs";

/** A package the installs may fetch from the npm registry: a runtime dependency or one of its platform builds. */
const fromRegistry = (path) => {
  const name = path.replace(/\/-\/[^/]+\.tgz$/, ""); // its metadata, or a tarball of it
  return RUNTIME_DEPENDENCIES.some((d) => name === d || name.startsWith(`${d}-`));
};

const PNPM = "pnpm@10.34.9";

/** Run a command (never through a shell); resolves with its status and output. */
export function run(cmd, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    const out = [];
    const err = [];
    child.stdout.on("data", (b) => out.push(b));
    child.stderr.on("data", (b) => err.push(b));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    );
  });
}

/** Like run(), but throws with the command's stderr when it does not exit 0. */
export async function must(cmd, args, options = {}) {
  const r = await run(cmd, args, options);
  if (r.code !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.code ?? r.signal}\n${r.stderr}${r.stdout}`);
  }
  return r;
}

/** The package.json inside a tarball. */
export async function manifestOf(tarball) {
  const r = await must("tar", ["-xzOf", tarball, "package/package.json"]);
  return JSON.parse(r.stdout);
}

/** The file list of a tarball, without the leading `package/`. */
export async function filesOf(tarball) {
  const r = await must("tar", ["-tzf", tarball]);
  return r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.replace(/^package\//, ""));
}

/**
 * `pnpm -r pack` every publishable package into `dir`.
 * @returns {Promise<Map<string, { file: string, manifest: any }>>} by package name
 */
export async function packAll(dir) {
  mkdirSync(dir, { recursive: true });
  await must("npx", ["-y", PNPM, "-r", "--reporter=silent", "pack", "--pack-destination", dir], {
    cwd: ROOT,
  });
  const packed = new Map();
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".tgz"))) {
    const file = join(dir, f);
    const manifest = await manifestOf(file);
    packed.set(manifest.name, { file, manifest });
  }
  return packed;
}

/**
 * Serve `packed` as an npm registry on 127.0.0.1; any other package is redirected to
 * `upstream` (and its name recorded in `redirected`). Returns the registry URL and a close().
 */
export async function serveRegistry(packed, upstream) {
  const byName = new Map();
  for (const [name, { file, manifest }] of packed) {
    const bytes = readFileSync(file);
    byName.set(name, { file, manifest, bytes });
  }
  let url = "";
  const redirected = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname).slice(1);
    const tarball = path.match(/^(.+)\/-\/([^/]+\.tgz)$/);
    const own = byName.get(tarball ? tarball[1] : path);
    if (own && tarball) {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(own.bytes);
    } else if (own) {
      const { manifest, bytes, file } = own;
      const version = {
        ...manifest,
        _id: `${manifest.name}@${manifest.version}`,
        dist: {
          tarball: `${url}${manifest.name}/-/${basename(file)}`,
          integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
          shasum: createHash("sha1").update(bytes).digest("hex"),
        },
      };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          name: manifest.name,
          "dist-tags": { latest: manifest.version },
          versions: { [manifest.version]: version },
        }),
      );
    } else {
      redirected.push(path);
      res.writeHead(302, { location: new URL(req.url.slice(1), upstream).href });
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${server.address().port}/`;
  return { url, redirected, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The npm registry configured for this user (the upstream of serveRegistry). */
export async function upstreamRegistry() {
  const r = await run("npm", ["config", "get", "registry"]);
  const url = r.code === 0 ? r.stdout.trim() : "";
  return url.startsWith("http") ? (url.endsWith("/") ? url : `${url}/`) : "https://registry.npmjs.org/";
}

const QUIET = ["--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error"];

/** npm's environment for installs under `tmp`: its own cache, no user or global config. */
export function npmEnv(tmp) {
  return {
    ...process.env,
    npm_config_cache: join(tmp, "npm-cache"),
    npm_config_userconfig: join(tmp, "npmrc"),
    npm_config_globalconfig: join(tmp, "npmrc-global"),
  };
}

/**
 * Pack everything, then install: every CLI package from its tarball into `<tmp>/prefix-clis`
 * (offline), and the meta package by name into `<tmp>/prefix-ariel` (from serveRegistry; it
 * fails if that install asked for any package that is not ours).
 * @returns {Promise<{ packed: Map<string, { file: string, manifest: any }>, prefixes: { clis: string, ariel: string }, registry: { url: string, close: () => Promise<void> } }>}
 *   the registry is left open for more installs; close it when done.
 */
export async function packAndInstall(tmp, metaName = "ariel") {
  const packed = await packAll(join(tmp, "tarballs"));
  const env = npmEnv(tmp);
  const clis = join(tmp, "prefix-clis");
  const ariel = join(tmp, "prefix-ariel");
  const cliTarballs = [...packed.values()]
    .filter(({ manifest }) => manifest.bin && manifest.name !== metaName)
    .map(({ file }) => file);
  const registry = await serveRegistry(packed, await upstreamRegistry());
  try {
    await must(
      "npm",
      ["install", "-g", "--prefix", clis, "--registry", registry.url, ...QUIET, ...cliTarballs],
      {
        env,
      },
    );
    await must("npm", ["install", "-g", "--prefix", ariel, "--registry", registry.url, ...QUIET, metaName], {
      env,
    });
    const foreign = registry.redirected.filter((n) => !fromRegistry(n));
    if (foreign.length > 0) {
      throw new Error(`installing ${metaName} needed the npm registry for ${foreign.join(", ")}`);
    }
  } catch (e) {
    await registry.close();
    throw e;
  }
  return { packed, prefixes: { clis, ariel }, registry };
}

/** Install `names` from `registryUrl` into a new npm project at `dir` (a consumer of a library). */
export async function installInProject(tmp, dir, registryUrl, names) {
  mkdirSync(dir, { recursive: true });
  await must("npm", ["init", "-y"], { cwd: dir, env: npmEnv(tmp) });
  await must("npm", ["install", "--registry", registryUrl, ...QUIET, ...names], {
    cwd: dir,
    env: npmEnv(tmp),
  });
}

/**
 * An in-memory FsPort for unit tests: a map of absolute paths to files, directories, links and
 * planted errors. Only what discovery reads is implemented; writes throw. `fakeSyncFs` is the
 * same filesystem as a {@link SyncReadFs} (for `discoverSourcesSync`).
 *
 * @example
 * ```ts
 * const fs = fakeFs({ "/ws/api/.git/HEAD": "ref: refs/heads/main\n", "/ws/l": { link: "/ws/api" } });
 * ```
 */

import { normalizePosix, resolvePosix } from "../paths.ts";
import type { DirEntry, FsPort, StatInfo } from "../ports.ts";
import type { SyncReadFs } from "./io.ts";

/** File text, a link (target as stored), a directory, or a directory that fails with `error`. */
export type FakeNode = string | { link: string } | { dir: true } | { error: string };

function fsError(code: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

/** Build a fake filesystem; parent directories of every path are created implicitly. */
export function fakeFs(tree: Record<string, FakeNode>): FsPort & { calls: string[] } {
  return asyncFake(fakeSyncFs(tree));
}

/** The async FsPort over a {@link fakeSyncFs} (its methods looked up at each call). */
export function asyncFake(sync: FakeSyncFs): FsPort & { calls: string[] } {
  const unsupported = () => Promise.reject(new Error("fakeFs is read-only"));
  return {
    calls: sync.calls,
    readDir: async (path) => sync.readDir(path),
    readText: async (path) => sync.readText(path),
    readBytes: async (path) => new TextEncoder().encode(sync.readText(path)),
    stat: async (path) => sync.stat(path),
    lstat: async (path) => sync.lstat(path),
    realpath: async (path) => sync.realpath(path),
    readLink: async (path) => sync.readLink(path),
    mkdirp: unsupported,
    writeAtomic: unsupported,
    remove: unsupported,
    rename: unsupported,
    readFileNoFollow: unsupported,
    createExclusive: unsupported,
    unlink: unsupported,
    rmdir: unsupported,
    syncDir: unsupported,
  };
}

export type FakeSyncFs = SyncReadFs & {
  calls: string[];
  lstat(path: string): StatInfo | null;
  readLink(path: string): string;
};

/** {@link fakeFs} with synchronous reads. */
export function fakeSyncFs(tree: Record<string, FakeNode>): FakeSyncFs {
  const nodes = new Map<string, FakeNode>();
  nodes.set("/", { dir: true });
  for (const [p, node] of Object.entries(tree)) {
    const path = normalizePosix(p);
    nodes.set(path, node);
    for (let d = path.slice(0, path.lastIndexOf("/")); d !== ""; d = d.slice(0, d.lastIndexOf("/"))) {
      if (!nodes.has(d)) nodes.set(d, { dir: true });
    }
  }
  const calls: string[] = [];

  /** Resolve every link in `path` (the last one too when `followLast`). */
  function resolve(
    path: string,
    followLast: boolean,
    hops = 0,
  ): { path: string; node: FakeNode | undefined } {
    if (hops > 40) throw fsError("ELOOP", path);
    const segs = normalizePosix(path).split("/").filter(Boolean);
    let cur = "";
    for (let i = 0; i < segs.length; i++) {
      const next = `${cur}/${segs[i]}`;
      const node = nodes.get(next);
      const last = i === segs.length - 1;
      if (node === undefined) return { path: `${next}/${segs.slice(i + 1).join("/")}`, node: undefined };
      if (typeof node === "object" && "link" in node && (!last || followLast)) {
        const target = resolvePosix(cur === "" ? "/" : cur, node.link);
        const rest = segs.slice(i + 1).join("/");
        return resolve(rest ? `${target}/${rest}` : target, followLast, hops + 1);
      }
      if (!last && (typeof node === "string" || "error" in node)) {
        if (typeof node === "object" && "error" in node) throw fsError(node.error, next);
        throw fsError("ENOTDIR", next);
      }
      cur = next;
    }
    return { path: cur === "" ? "/" : cur, node: nodes.get(cur === "" ? "/" : cur) };
  }

  function kindOf(node: FakeNode): StatInfo["kind"] {
    if (typeof node === "string") return "file";
    if ("link" in node) return "symlink";
    // A planted error stands for a directory that fails when it is entered.
    return "dir";
  }

  function info(node: FakeNode): StatInfo {
    return { kind: kindOf(node), size: 0, mtimeMs: 0, mode: 0o644, dev: 1, ino: 1 };
  }

  return {
    calls,
    readDir(path) {
      calls.push(`readDir ${path}`);
      const { path: real, node } = resolve(path, true);
      if (node === undefined) throw fsError("ENOENT", path);
      if (typeof node === "object" && "error" in node) throw fsError(node.error, path);
      if (typeof node === "string") throw fsError("ENOTDIR", path);
      const out: DirEntry[] = [];
      const prefix = real === "/" ? "/" : `${real}/`;
      for (const [p, n] of nodes) {
        if (p.startsWith(prefix) && p !== real && !p.slice(prefix.length).includes("/")) {
          out.push({ name: p.slice(prefix.length), kind: kindOf(n) });
        }
      }
      return out.reverse(); // unsorted on purpose
    },
    readText(path) {
      calls.push(`readText ${path}`);
      const { node } = resolve(path, true);
      if (node === undefined) throw fsError("ENOENT", path);
      if (typeof node === "string") return node;
      if ("error" in node) throw fsError(node.error, path);
      throw fsError("EISDIR", path);
    },
    stat(path) {
      calls.push(`stat ${path}`);
      const { node } = resolve(path, true);
      return node === undefined ? null : info(node);
    },
    lstat(path) {
      calls.push(`lstat ${path}`);
      const { node } = resolve(path, false);
      return node === undefined ? null : info(node);
    },
    realpath(path) {
      calls.push(`realpath ${path}`);
      const r = resolve(path, true);
      if (r.node === undefined) throw fsError("ENOENT", path);
      return r.path;
    },
    readLink(path) {
      const node = nodes.get(normalizePosix(path));
      if (node && typeof node === "object" && "link" in node) return node.link;
      throw fsError("EINVAL", path);
    },
  };
}

/**
 * An in-memory {@link FsPort} for unit tests: files, directories and symbolic links (absolute or
 * relative, dangling allowed), with Node-style error codes. Pure: no `node:` imports.
 *
 * @example
 * ```ts
 * const fs = new FakeFs({ "/ws/.git/HEAD": "ref: refs/heads/main\n", "/ws/link": { link: "/etc" } });
 * await fs.realpath("/ws/link"); // "/etc" (throws ENOENT unless /etc exists in the fake)
 * ```
 */
import type { DirEntry, EntryKind, FsPort, NoFollowRead, StatInfo } from "../ports.ts";

type Node =
  | { kind: "file"; data: Uint8Array; mode: number }
  | { kind: "dir"; mode: number }
  | { kind: "symlink"; target: string };

/** What a path in the initial tree holds: file text, `{ dir: true }` or `{ link: target }`. */
export type FakeEntry = string | Uint8Array | { dir: true } | { link: string };

/** A Node-style filesystem error. */
export function fsError(code: string, syscall: string, path: string): Error & { code: string } {
  return Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, syscall, path });
}

function parentOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

function joinPath(a: string, b: string): string {
  return a === "/" ? `/${b}` : `${a}/${b}`;
}

export class FakeFs implements FsPort {
  readonly nodes = new Map<string, Node>([["/", { kind: "dir", mode: 0o755 }]]);
  /** Paths whose reads fail with EACCES. */
  readonly unreadable = new Set<string>();
  /** Every call, for tests that count I/O: `["lstat", "/ws/.git"]`. */
  readonly calls: [string, string][] = [];

  constructor(tree: Record<string, FakeEntry> = {}) {
    for (const [path, entry] of Object.entries(tree)) this.put(path, entry);
  }

  /** Add a file, directory or link, creating parent directories. */
  put(path: string, entry: FakeEntry): void {
    this.#mkdirs(parentOf(path));
    if (typeof entry === "string") {
      this.nodes.set(path, { kind: "file", data: new TextEncoder().encode(entry), mode: 0o644 });
    } else if (entry instanceof Uint8Array) {
      this.nodes.set(path, { kind: "file", data: entry, mode: 0o644 });
    } else if ("dir" in entry) this.nodes.set(path, { kind: "dir", mode: 0o755 });
    else this.nodes.set(path, { kind: "symlink", target: entry.link });
  }

  #mkdirs(path: string): void {
    if (path === "/" || this.nodes.has(path)) return;
    this.#mkdirs(parentOf(path));
    this.nodes.set(path, { kind: "dir", mode: 0o755 });
  }

  /**
   * Resolve `path` like the kernel: every component but (unless `follow`) the last is followed
   * through links. Returns the resolved path and its node (undefined when absent).
   */
  #resolve(path: string, follow: boolean, syscall: string): { path: string; node: Node | undefined } {
    if (!path.startsWith("/")) throw fsError("EINVAL", syscall, path);
    const todo = path.split("/").filter((c) => c !== "" && c !== ".");
    let cur = "/";
    let hops = 0;
    while (todo.length > 0) {
      const c = todo.shift()!;
      if (c === "..") {
        cur = parentOf(cur);
        continue;
      }
      const curNode = this.nodes.get(cur);
      if (curNode?.kind !== "dir") throw fsError(curNode ? "ENOTDIR" : "ENOENT", syscall, path);
      const next = joinPath(cur, c);
      const node = this.nodes.get(next);
      if (node?.kind === "symlink" && (follow || todo.length > 0)) {
        if (++hops > 40) throw fsError("ELOOP", syscall, path);
        const t = node.target;
        todo.unshift(...t.split("/").filter((x) => x !== "" && x !== "."));
        if (t.startsWith("/")) cur = "/";
        continue;
      }
      if (!node && todo.length > 0) throw fsError("ENOENT", syscall, path);
      cur = next;
    }
    return { path: cur, node: this.nodes.get(cur) };
  }

  #info(node: Node): StatInfo {
    const size =
      node.kind === "file" ? node.data.length : node.kind === "symlink" ? node.target.length : 4096;
    const mode = node.kind === "symlink" ? 0o777 : node.mode;
    return { kind: node.kind as EntryKind, size, mtimeMs: 0, mode, dev: 1, ino: 0 };
  }

  #check(path: string, syscall: string): void {
    this.calls.push([syscall, path]);
    if (this.unreadable.has(path)) throw fsError("EACCES", syscall, path);
  }

  async readDir(path: string): Promise<DirEntry[]> {
    this.#check(path, "scandir");
    const r = this.#resolve(path, true, "scandir");
    if (!r.node) throw fsError("ENOENT", "scandir", path);
    if (r.node.kind !== "dir") throw fsError("ENOTDIR", "scandir", path);
    const prefix = r.path === "/" ? "/" : `${r.path}/`;
    const out: DirEntry[] = [];
    for (const [p, n] of this.nodes) {
      if (p !== "/" && p.startsWith(prefix) && !p.slice(prefix.length).includes("/")) {
        out.push({ name: p.slice(prefix.length), kind: n.kind });
      }
    }
    return out;
  }

  async readBytes(path: string): Promise<Uint8Array> {
    this.#check(path, "open");
    const r = this.#resolve(path, true, "open");
    if (!r.node) throw fsError("ENOENT", "open", path);
    if (r.node.kind !== "file") throw fsError("EISDIR", "read", path);
    return r.node.data;
  }

  async readText(path: string): Promise<string> {
    return new TextDecoder().decode(await this.readBytes(path));
  }

  async stat(path: string): Promise<StatInfo | null> {
    this.calls.push(["stat", path]);
    try {
      const r = this.#resolve(path, true, "stat");
      return r.node ? this.#info(r.node) : null;
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT" || (e as { code?: string }).code === "ENOTDIR")
        return null;
      throw e;
    }
  }

  async lstat(path: string): Promise<StatInfo | null> {
    this.calls.push(["lstat", path]);
    try {
      const r = this.#resolve(path, false, "lstat");
      return r.node ? this.#info(r.node) : null;
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT" || (e as { code?: string }).code === "ENOTDIR")
        return null;
      throw e;
    }
  }

  async realpath(path: string): Promise<string> {
    this.#check(path, "realpath");
    const r = this.#resolve(path, true, "realpath");
    if (!r.node) throw fsError("ENOENT", "realpath", path);
    return r.path;
  }

  async readLink(path: string): Promise<string> {
    this.calls.push(["readlink", path]);
    const r = this.#resolve(path, false, "readlink");
    if (!r.node) throw fsError("ENOENT", "readlink", path);
    if (r.node.kind !== "symlink") throw fsError("EINVAL", "readlink", path);
    return r.node.target;
  }

  async mkdirp(path: string): Promise<void> {
    this.calls.push(["mkdir", path]);
    const r = this.#resolve(path, true, "mkdir");
    if (r.node && r.node.kind !== "dir") throw fsError("EEXIST", "mkdir", path);
    this.#mkdirs(r.path);
  }

  async writeAtomic(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
    this.calls.push(["write", path]);
    const r = this.#resolve(parentOf(path), true, "open");
    if (r.node?.kind !== "dir") throw fsError(r.node ? "ENOTDIR" : "ENOENT", "open", path);
    const name = path.slice(path.lastIndexOf("/") + 1);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    this.nodes.set(joinPath(r.path, name), { kind: "file", data: bytes, mode });
  }

  async remove(path: string): Promise<void> {
    this.calls.push(["rm", path]);
    for (const p of [...this.nodes.keys()]) if (p === path || p.startsWith(`${path}/`)) this.nodes.delete(p);
  }

  async rename(from: string, to: string): Promise<void> {
    this.calls.push(["rename", from]);
    if (!this.nodes.has(from)) throw fsError("ENOENT", "rename", from);
    for (const [p, n] of [...this.nodes]) {
      if (p === from || p.startsWith(`${from}/`)) {
        this.nodes.delete(p);
        this.nodes.set(to + p.slice(from.length), n);
      }
    }
  }

  async readFileNoFollow(path: string, maxBytes: number): Promise<NoFollowRead | null> {
    this.#check(path, "open");
    let r: { path: string; node: Node | undefined };
    try {
      r = this.#resolve(path, false, "open");
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw e;
    }
    if (!r.node) return null;
    const info = this.#info(r.node);
    if (r.node.kind !== "file" || r.node.data.length > maxBytes) return { info, bytes: null };
    return { info, bytes: r.node.data };
  }

  async createExclusive(path: string, data: string): Promise<boolean> {
    this.#check(path, "open");
    const dir = this.#resolve(parentOf(path), true, "open");
    if (dir.node?.kind !== "dir") throw fsError(dir.node ? "ENOTDIR" : "ENOENT", "open", path);
    const at = joinPath(dir.path, path.slice(path.lastIndexOf("/") + 1));
    if (this.nodes.has(at)) return false;
    this.nodes.set(at, { kind: "file", data: new TextEncoder().encode(data), mode: 0o644 });
    return true;
  }

  async unlink(path: string): Promise<void> {
    this.#check(path, "unlink");
    const node = this.nodes.get(path);
    if (node?.kind === "dir") throw fsError("EISDIR", "unlink", path);
    this.nodes.delete(path);
  }

  async rmdir(path: string): Promise<void> {
    this.#check(path, "rmdir");
    const node = this.nodes.get(path);
    if (!node) return;
    if (node.kind !== "dir") throw fsError("ENOTDIR", "rmdir", path);
    for (const p of this.nodes.keys())
      if (p.startsWith(`${path}/`)) throw fsError("ENOTEMPTY", "rmdir", path);
    this.nodes.delete(path);
  }

  async syncDir(path: string): Promise<void> {
    this.#check(path, "fsync");
  }

  /** A file's text, or undefined (for assertions). */
  text(path: string): string | undefined {
    const n = this.nodes.get(path);
    return n?.kind === "file" ? new TextDecoder().decode(n.data) : undefined;
  }
}

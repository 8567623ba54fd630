/**
 * The ports through which the pure core sees the world. `core/host` implements them with real
 * I/O; unit tests pass fakes. Nothing in the pure core imports `node:`, Deno, citty or consola.
 *
 * Errors thrown by an FsPort carry a Node-style `code` (`ENOENT`, `EACCES`, `ENOTDIR`, ...).
 */

/** What a directory entry is, without following links. */
export type EntryKind = "file" | "dir" | "symlink" | "other";

export interface DirEntry {
  name: string;
  kind: EntryKind;
}

export interface StatInfo {
  kind: EntryKind;
  size: number;
  mtimeMs: number;
  mode: number;
  dev: number;
  ino: number;
}

/** A file read by {@link FsPort.readFileNoFollow}: what is at the path, and its bytes. */
export interface NoFollowRead {
  /** From fstat of the opened file, or lstat when the path is a link or cannot be opened. */
  info: StatInfo;
  /** The content; null when `info.kind` is not "file" or the file is larger than the bound. */
  bytes: Uint8Array | null;
}

/** A filesystem view. Paths are absolute POSIX paths. */
export interface FsPort {
  /** Entries of a directory (unsorted). Throws ENOENT/ENOTDIR/EACCES. */
  readDir(path: string): Promise<DirEntry[]>;
  /** Whole file as UTF-8 text. Throws ENOENT/EISDIR/EACCES. */
  readText(path: string): Promise<string>;
  /** Whole file as bytes. */
  readBytes(path: string): Promise<Uint8Array>;
  /** stat (follows links); null when the path does not exist. */
  stat(path: string): Promise<StatInfo | null>;
  /** lstat (does not follow links); null when the path does not exist. */
  lstat(path: string): Promise<StatInfo | null>;
  /** Canonical path with every link resolved. Throws ENOENT. */
  realpath(path: string): Promise<string>;
  /** Target of a symbolic link, as stored. */
  readLink(path: string): Promise<string>;
  /** mkdir -p. */
  mkdirp(path: string): Promise<void>;
  /** Write via temp file + fsync + rename + directory fsync (new files get `mode`, default 0o644). */
  writeAtomic(path: string, data: string | Uint8Array, mode?: number): Promise<void>;
  /** Remove a file or (recursively) a directory; absent is fine. */
  remove(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /**
   * Read a state file without ever following a final symbolic link (O_NOFOLLOW where the runtime
   * has it, lstat first otherwise; O_NONBLOCK, so a FIFO never blocks). null when absent. A link,
   * directory, FIFO or other non-regular file comes back with `bytes: null`, never read through.
   */
  readFileNoFollow(path: string, maxBytes: number): Promise<NoFollowRead | null>;
  /**
   * Create `path` holding `data`, only if nothing is there (O_CREAT|O_EXCL: a link there, even a
   * dangling one, counts as something). False when something is; a failed write leaves nothing.
   */
  createExclusive(path: string, data: string): Promise<boolean>;
  /** Remove one entry that is not a directory (a link itself, never its target); absent is fine. */
  unlink(path: string): Promise<void>;
  /** Remove an empty directory (ENOTEMPTY when it is not); absent is fine. */
  rmdir(path: string): Promise<void>;
  /** fsync a directory, so a rename or unlink in it survives a crash (best effort where unsupported). */
  syncDir(path: string): Promise<void>;
}

/** Result of one git invocation. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitRunOptions {
  cwd: string;
  /** Extra environment variables (merged over a sanitized environment). */
  env?: Record<string, string>;
  /** Data written to git's stdin. */
  input?: string;
}

/** Runs git without a shell. A non-zero exit is returned, not thrown. */
export interface GitPort {
  run(args: readonly string[], options: GitRunOptions): Promise<GitResult>;
}

/** Wall clock in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** Random bytes (crypto quality in host). */
export interface Random {
  bytes(n: number): Uint8Array;
}

/** Everything the core may need from the outside, bundled. */
export interface Ports {
  fs: FsPort;
  git: GitPort;
  clock: Clock;
  random: Random;
  /** The process environment (read only). */
  env: Readonly<Record<string, string | undefined>>;
  /** The process's working directory. */
  cwd: string;
}

/**
 * Discovery's reads as data, so one algorithm runs over both kinds of filesystem port.
 *
 * The algorithm is written as generators ({@link Task}) that `yield` the read they need
 * ({@link Op}) and get its result back. {@link runSync} answers each read at once from a
 * {@link SyncReadFs} (the CLI: no promise, no microtask per read); {@link runAsync} answers it
 * from an async {@link FsPort}, running the tasks of an `all` concurrently (library callers,
 * fakes in tests). A failed read is thrown into the generator, where `try`/`catch` sees it.
 *
 * @example
 * ```ts
 * function* isDir(path: string): Task<boolean> {
 *   return (yield* stat(path))?.kind === "dir";
 * }
 * runSync(isDir("/ws"), syncReadFs); // true
 * await runAsync(isDir("/ws"), nodeFs, createLimiter(8)); // true
 * ```
 */
import type { DirEntry, FsPort, StatInfo } from "../ports.ts";

/** The read-only, synchronous subset of {@link FsPort} that discovery needs; same errors. */
export interface SyncReadFs {
  readDir(path: string): DirEntry[];
  readText(path: string): string;
  stat(path: string): StatInfo | null;
  realpath(path: string): string;
}

/** One read, or several tasks to run (concurrently when the port is async). */
export type Op =
  | { readonly fn: "readDir" | "readText" | "stat" | "realpath"; readonly path: string }
  /** A read whose result (or error) a run may share between every task that asks for it. */
  | { readonly fn: "readShared"; readonly path: string }
  | { readonly fn: "all"; readonly tasks: readonly Task<void>[] }
  /** `task(item, index)` for each item, each task made only when a runner starts it. */
  | {
      readonly fn: "each";
      readonly items: readonly unknown[];
      readonly task: (item: unknown, index: number) => Task<void>;
    };

/** A computation that reads through {@link Op}s and returns `T`. */
export type Task<T> = Generator<Op, T, unknown>;

export function* readDir(path: string): Task<DirEntry[]> {
  return (yield { fn: "readDir", path }) as DirEntry[];
}

export function* readText(path: string): Task<string> {
  return (yield { fn: "readText", path }) as string;
}

/** Like {@link readText}, but read at most once per run (e.g. `packed-refs`). */
export function* readShared(path: string): Task<string> {
  return (yield { fn: "readShared", path }) as string;
}

export function* stat(path: string): Task<StatInfo | null> {
  return (yield { fn: "stat", path }) as StatInfo | null;
}

export function* realpath(path: string): Task<string> {
  return (yield { fn: "realpath", path }) as string;
}

/**
 * Run `task(item, index)` for every item, like {@link all}, but each task is made when it starts: a
 * synchronous run then holds one task at a time instead of one generator per item (10,000 of
 * them in a big workspace, kept alive until the last one ran and promoted by the collector).
 */
export function* each<T>(items: readonly T[], task: (item: T, index: number) => Task<void>): Task<void> {
  if (items.length > 0)
    yield { fn: "each", items, task: task as (item: unknown, index: number) => Task<void> };
}

/** Run `tasks` to completion (in order with a sync port, concurrently with an async one). */
export function* all(tasks: readonly Task<void>[]): Task<void> {
  if (tasks.length > 0) yield { fn: "all", tasks };
}

/** Run `task` to completion over a synchronous port. */
export function runSync<T>(task: Task<T>, fs: SyncReadFs, shared = new Map<string, () => string>()): T {
  let step = task.next();
  while (!step.done) {
    const op = step.value;
    let value: unknown;
    try {
      if (op.fn === "all") {
        for (const t of op.tasks) runSync(t, fs, shared);
      } else if (op.fn === "each") {
        for (let i = 0; i < op.items.length; i++) runSync(op.task(op.items[i], i), fs, shared);
      } else if (op.fn === "readShared") {
        let get = shared.get(op.path);
        if (!get) {
          get = memo(() => fs.readText(op.path));
          shared.set(op.path, get);
        }
        value = get();
      } else {
        value = fs[op.fn](op.path);
      }
    } catch (e) {
      step = task.throw(e);
      continue;
    }
    step = task.next(value);
  }
  return step.value;
}

/** `fn`'s value or error, computed on the first call and repeated after. */
function memo(fn: () => string): () => string {
  let done: { value: string } | { error: unknown } | null = null;
  return () => {
    if (done === null) {
      try {
        done = { value: fn() };
      } catch (error) {
        done = { error };
      }
    }
    if ("error" in done) throw done.error;
    return done.value;
  };
}

/**
 * Run `task` to completion over an async port. `limit` bounds the reads in flight (only leaf
 * reads take a slot, so nested `all`s cannot deadlock).
 */
export async function runAsync<T>(
  task: Task<T>,
  fs: FsPort,
  limit: <R>(fn: () => Promise<R>) => Promise<R>,
  shared = new Map<string, Promise<string>>(),
): Promise<T> {
  let step = task.next();
  while (!step.done) {
    const op = step.value;
    let value: unknown;
    try {
      if (op.fn === "all") {
        await Promise.all(op.tasks.map((t) => runAsync(t, fs, limit, shared)));
      } else if (op.fn === "each") {
        const { items, task: make } = op;
        await Promise.all(items.map((item, i) => runAsync(make(item, i), fs, limit, shared)));
      } else if (op.fn === "readShared") {
        let p = shared.get(op.path);
        if (!p) {
          p = limit(() => fs.readText(op.path));
          shared.set(op.path, p);
        }
        value = await p;
      } else {
        const fn = op.fn;
        value = await limit((): Promise<unknown> => fs[fn](op.path));
      }
    } catch (e) {
      step = task.throw(e);
      continue;
    }
    step = task.next(value);
  }
  return step.value;
}

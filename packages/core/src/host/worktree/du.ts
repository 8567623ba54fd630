import type { Ports } from "../../ports.ts";

/**
 * Bytes under `path` (file sizes, like `du -sb --apparent-size`), without following links and
 * without a shell. Unreadable entries count as 0.
 */
export async function diskBytes(ports: Ports, path: string): Promise<number> {
  const st = await ports.fs.lstat(path);
  if (!st) return 0;
  if (st.kind !== "dir") return st.size;
  let total = 0;
  const stack = [path];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries: Awaited<ReturnType<Ports["fs"]["readDir"]>>;
    try {
      entries = await ports.fs.readDir(dir);
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = `${dir}/${e.name}`;
      if (e.kind === "dir") {
        stack.push(p);
        continue;
      }
      const s = await ports.fs.lstat(p).catch(() => null);
      total += s?.size ?? 0;
    }
  }
  return total;
}

/**
 * TEMPORARY stand-ins for what the `core` branch owns (names, paths), so the worktree code can
 * be written and tested before that branch lands. Replaced by re-exports on `git merge core`.
 * @internal
 */
import { ArielError } from "../errors.ts";

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function validateTaskId(id: string): string {
  if (!TASK_ID.test(id) || id.endsWith(".lock") || id.includes(".."))
    throw new ArielError("ERR_INVALID_TASK_ID", `invalid task id '${id.slice(0, 140)}'`);
  return id;
}

export function validateBranchName(name: string): string {
  const ok =
    /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/.test(name) &&
    !name.includes("..") &&
    !name.includes("//") &&
    !name.endsWith("/") &&
    !name.endsWith(".") &&
    !name.endsWith(".lock") &&
    !name.split("/").some((c) => c.startsWith(".") || c.endsWith(".lock") || c === "");
  if (!ok) throw new ArielError("ERR_INVALID_BRANCH", `invalid branch name '${name.slice(0, 200)}'`);
  return name;
}

export function validateSourceName(name: string): string {
  if (name === ".") return name;
  const ok =
    name.length <= 1024 &&
    !name.startsWith("/") &&
    name.split("/").every((s) => /^[A-Za-z0-9._-]+$/.test(s) && s !== "." && s !== "..");
  if (!ok) throw new ArielError("ERR_INVALID_NAME", `invalid source name '${name.slice(0, 200)}'`);
  return name;
}

export function generateTaskId(seed: string, random: { bytes(n: number): Uint8Array }): string {
  const slug =
    seed
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "task";
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const tail = [...random.bytes(6)].map((b) => alphabet[b % alphabet.length]).join("");
  return `${slug}-${tail}`;
}

export function isWithin(parent: string, child: string): boolean {
  if (child === parent) return true;
  const p = parent.endsWith("/") ? parent : `${parent}/`;
  return child.startsWith(p);
}

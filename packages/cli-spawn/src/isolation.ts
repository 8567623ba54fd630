import type { IsolationDriver } from "@ariel/core/host";

/** The worktree manager behind --isolate (wired to addTask/removeTask once they land). */
export const isolation: IsolationDriver | undefined = undefined;
